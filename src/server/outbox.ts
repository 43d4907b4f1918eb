import type { Mailer } from './mailer.ts'
import { describeMailError, type LeadStore, type OutboxJob } from './store.ts'

/** How the outbox retries: exponential backoff from `minDelayMs`, doubling per attempt, capped at `maxDelayMs`. */
export type RetryPolicy = { minDelayMs: number; maxDelayMs: number }

/** The retry policy used unless configured otherwise: 30 s, 1 min, 2 min … up to 1 hour, forever. */
export const defaultRetryPolicy: RetryPolicy = { minDelayMs: 30_000, maxDelayMs: 3_600_000 }

/** Options for the outbox worker. */
export type OutboxWorkerOptions = {
  store: LeadStore
  mailer: Mailer
  clock?: () => Date
  retry?: RetryPolicy
  /** Notifications claimed at once. */
  batchSize?: number
  /** Sends in flight at once. */
  concurrency?: number
  /** How long a claim lasts; a worker that dies mid-send frees its claims this way. */
  leaseMs?: number
  log?: { info(message: string): void; error(message: string, error?: unknown): void }
  /** 0..1 spread added to each delay so a burst of failures does not retry in lockstep. Default 0.2. */
  jitter?: number
}

/** The result of one delivery run. */
export type DeliveryReport = { sent: number; failed: number }

/** Delivers the outbox: one run on demand (deliverDue), or continuously (start/kick/stop). */
export type OutboxWorker = {
  /** Delivers everything due now, batch after batch, until nothing due is left. Runs never overlap. */
  deliverDue(): Promise<DeliveryReport>
  /** Asks for a run soon (after a lead is stored); runs coalesce. */
  kick(): void
  /** Runs every `pollMs` as well, for retries that come due. */
  start(pollMs: number): void
  /** Stops polling and waits for the batch in hand; what is left stays pending for the next start. */
  stop(): Promise<void>
}

/** The delay before attempt `attempts + 1`, given `attempts` failures so far (0-based). */
export function retryDelayMs(attempts: number, policy: RetryPolicy, jitter = 0, random: () => number = Math.random): number {
  const base = Math.min(policy.maxDelayMs, policy.minDelayMs * 2 ** Math.min(attempts, 30))
  return Math.round(base * (1 + jitter * random()))
}

/**
 * The outbox worker: claims due notifications, sends them through the mailer, marks them sent, or records the
 * failure and when to try again. An outage delays mail; nothing is dropped.
 */
export function createOutboxWorker(options: OutboxWorkerOptions): OutboxWorker {
  const { store, mailer } = options
  const clock = options.clock ?? (() => new Date())
  const retry = options.retry ?? defaultRetryPolicy
  const batchSize = options.batchSize ?? 25
  const concurrency = Math.max(1, options.concurrency ?? 4)
  const leaseMs = options.leaseMs ?? 120_000
  const jitter = options.jitter ?? 0.2
  const log = options.log ?? { info: (m: string) => console.log(m), error: (m: string, e?: unknown) => console.error(m, e ?? '') }

  let running: Promise<DeliveryReport> | undefined
  let again = false
  let timer: ReturnType<typeof setInterval> | undefined
  let stopped = false

  async function sendBatch(jobs: OutboxJob[], report: DeliveryReport): Promise<void> {
    const sent: number[] = []
    let next = 0
    async function lane(): Promise<void> {
      while (next < jobs.length) {
        const job = jobs[next++] as OutboxJob
        try {
          await mailer.send(job.mail)
          sent.push(job.id)
        } catch (error) {
          report.failed += 1
          const delay = retryDelayMs(job.attempts, retry, jitter)
          log.error(`outbox: notification ${job.id} failed (attempt ${job.attempts + 1}), retry in ${Math.round(delay / 1000)} s: ${describeMailError(error)}`)
          await store.markMailFailed(job.id, describeMailError(error), new Date(clock().getTime() + delay))
        }
      }
    }
    await Promise.all(Array.from({ length: Math.min(concurrency, jobs.length) }, lane))
    await store.markMailSent(sent, clock())
    report.sent += sent.length
  }

  async function drain(): Promise<DeliveryReport> {
    const report: DeliveryReport = { sent: 0, failed: 0 }
    do {
      again = false
      // A stop ends the run after the batch in hand; the rest stays pending for the next start.
      while (!stopped) {
        const jobs = await store.claimDueMail(clock(), batchSize, leaseMs)
        if (jobs.length === 0) break
        await sendBatch(jobs, report)
      }
    } while (again && !stopped)
    return report
  }

  function deliverDue(): Promise<DeliveryReport> {
    if (running) {
      again = true
      return running
    }
    running = drain().finally(() => {
      running = undefined
    })
    return running
  }

  function runLogged(): void {
    deliverDue().catch((error: unknown) => log.error('outbox: delivery run failed', error))
  }

  return {
    deliverDue,
    kick() {
      if (!stopped) runLogged()
    },
    start(pollMs) {
      stopped = false
      timer ??= setInterval(runLogged, pollMs)
      // A server should exit when asked even if the poll timer is the last thing alive (Node only).
      ;(timer as { unref?: () => void }).unref?.()
      runLogged()
    },
    async stop() {
      stopped = true
      if (timer !== undefined) clearInterval(timer)
      timer = undefined
      await running?.catch(() => {})
    },
  }
}
