import { removeEmlCopies } from '../delivery/mailers/eml-mailer.ts'
import type { DailyJob, NodeStore } from '../node-store.ts'
import type { ErasureTarget } from '../store/erasure.ts'
import { hmacSha256 } from '../store/private-files.ts'
import { eraseOlderThan } from '../store/retention.ts'
import { addressKeyOf } from '../store/suppression.ts'

/** What erasing a lead reaches on the Node server: the store, the suppression list's key, the .eml copies. */
export function nodeErasureOf(opened: NodeStore, emlDir: string): ErasureTarget {
  const suppressionSecret = opened.secrets.suppression()
  return {
    store: opened.store,
    keyOf: (email: string) => addressKeyOf(suppressionSecret, email, hmacSha256),
    removeCopies: (messageIds: string[], address: string | undefined) => removeEmlCopies(emlDir, messageIds, address),
  }
}

/**
 * Retention: leads older than RETENTION_DAYS go, with their notifications and .eml copies, at start and daily (on
 * PostgreSQL one server a day runs it, for all of them). Undefined without RETENTION_DAYS.
 */
export async function startRetention(
  opened: NodeStore,
  erasure: ErasureTarget,
  retentionDays: number | undefined,
): Promise<DailyJob | undefined> {
  if (retentionDays === undefined) return undefined
  return opened.daily(
    'retention',
    () => eraseOlderThan(erasure, retentionDays),
    'Retention (erasing old registrations)',
  )
}
