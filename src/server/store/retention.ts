import { eraseEverywhere, type ErasureTarget } from './erasure.ts'

/**
 * Retention: erases registrations older than `days` (with their notifications and .eml copies) and logs how many;
 * nothing when `days` is undefined (kept until erased by hand). The Node server runs it at start and once a day.
 */
export async function eraseOlderThan(
  erasure: ErasureTarget,
  days: number | undefined,
  now = Date.now(),
): Promise<void> {
  if (days === undefined) return
  const report = await eraseEverywhere(erasure, { createdBefore: new Date(now - days * 86_400_000) })
  if (report.leads > 0) {
    console.log(
      `Retention: erased ${report.leads} registration(s) older than ${days} days, ` +
        `${report.messages} notification(s) and ${report.emlFiles} .eml file(s).`,
    )
  }
}
