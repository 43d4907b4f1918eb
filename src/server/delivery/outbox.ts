// The delivery room (src/server/delivery/): what leaves after a lead is stored: this outbox and its worker, the
// mailers (.eml, SMTP, Resend), the notification, the reply, the CRM webhook and the unsubscribe links.
import { describeDeliveryError, DeliveryError, isPermanentFailure, slowDownOf } from './delivery-error.ts'
import { addressOf, isDoNotContact, type Mailer } from './mailer.ts'
import { createBurstBreak } from './sending/burst-watch.ts'
import { createFlight, createMarks, type Flight } from './sending/outbox-flight.ts'
import { createSendPace, type SendPace } from './sending/send-pace.ts'
import { isLaterMail } from '../store/messages.ts'
import type { AddressKey, LaterMail, LeadStore, OutboxJob, OutgoingMail, WebhookMessage } from '../store/store.ts'

/**
 * How the outbox retries mail: exponential backoff from `minDelayMs`, doubling per attempt, capped at `maxDelayMs`;
 * after `maxAttempts` attempts (default 10) the message is `failed` and kept for `npm run outbox:retry`.
 */
export type RetryPolicy = { minDelayMs: number; maxDelayMs: number; maxAttempts?: number }

/** How fast the outbox sends mail (MAIL_RATE_PER_SECOND, MAIL_CONCURRENCY); a rate of undefined is no cap. */
export type MailSending = { ratePerSecond: number | undefined; concurrency: number }

/** The retry policy used unless configured otherwise: 30 s, 1 min, 2 min … up to 1 hour, 10 attempts (about 4 h). */
export const defaultRetryPolicy: RetryPolicy = { minDelayMs: 30_000, maxDelayMs: 3_600_000, maxAttempts: 10 }

/** The attempts a message gets when a policy names none. */
export const defaultMaxAttempts = 10

/**
 * The webhook's delays between attempts, Standard Webhooks' schedule: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h
 * (eight attempts over about 28 hours).
 */
export const standardWebhookDelaysMs = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000]

/** Sends one queued webhook call (webhook.ts); rejects with a DeliveryError saying whether to try again. */
export type WebhookSender = { send(message: WebhookMessage): Promise<void> }

/** Options for the outbox worker. */
export type OutboxWorkerOptions = {
  store: LeadStore
  mailer: Mailer
  /** Where webhook messages go; absent (WEBHOOK_URL unset), a queued one fails with that reason. */
  webhook?: WebhookSender | undefined
  clock?: () => Date
  retry?: RetryPolicy
  /** Delays between webhook attempts; its length + 1 is the number of attempts. Default Standard Webhooks'. */
  webhookDelaysMs?: number[]
  /** How long a claim lasts; a worker that dies mid-send frees its claim this way. */
  leaseMs?: number
  log?: { info(message: string): void; error(message: string, error?: unknown): void }
  /** 0..1 spread added to each delay so a burst of failures does not retry in lockstep. Default 0.2. */
  jitter?: number
  /** Called once when a message reaches the failed state (the owners' alert); must not throw. */
  onFailed?: (job: OutboxJob, reason: string) => void
  /**
   * Messages claimed (and marked sent) together, in one transaction each. Default 128, fewer under a low rate cap so a
   * batch is sent well within its claim's lease.
   */
  batchSize?: number
  /** Sends in flight at once (MAIL_CONCURRENCY; the SMTP pool has as many connections). Default 8. */
  concurrency?: number
  /** The provider's send-rate cap, messages a second (MAIL_RATE_PER_SECOND); undefined: none. Webhooks go unpaced. */
  ratePerSecond?: number | undefined
  /**
   * Composes the notifications and replies queued as what to send (src/server/compose-later.ts), a batch at a time.
   * Absent, such a message waits (a temporary failure) for a worker that has it.
   */
  compose?: LaterComposer | undefined
  /**
   * The suppression list's key of an address (suppression.ts): with it, no message but the team's notification goes to
   * an address on the list. Without it only withdrawals are checked.
   */
  suppressionKeyOf?: ((email: string) => Promise<AddressKey>) | undefined
}

/**
 * A queued notification or reply composed (src/server/compose-later.ts): the e-mail; `cancel`, nothing to send any
 * more (the lead was erased, or its launch no longer replies), with why; or `retry`, not now (its launch is not one
 * this process knows yet), with why.
 */
export type Composed = { mail: OutgoingMail } | { cancel: string } | { retry: string }

/** Composes a batch of queued e-mails (one read of their leads), in order. */
export type LaterComposer = (jobs: ReadonlyArray<{ leadId: number | null; mail: LaterMail }>) => Promise<Composed[]>

/** The result of one delivery run: messages sent, and attempts that failed (retried later or given up). */
export type DeliveryReport = { sent: number; failed: number }

/** Delivers the outbox: one run on demand (deliverDue), or continuously (start/kick/stop). */
export type OutboxWorker = {
  /** Delivers everything due now, a batch after another, until nothing due is left. Runs never overlap. */
  deliverDue(): Promise<DeliveryReport>
  /** Asks for a run soon (after a lead is stored); runs coalesce. */
  kick(): void
  /**
   * A burst of registrations began (true) or ended: meanwhile a batch at most each `burstBreakMs`, so the machine
   * answers the registrations first (delivery/sending/burst-watch.ts); the run catches up when it ends.
   */
  yieldToBurst(on: boolean): void
  /** Runs every `pollMs` as well, for retries that come due. */
  start(pollMs: number): void
  /** Stops polling and waits for the batch in hand; what is left stays pending for the next start. */
  stop(): Promise<void>
}

/** The delay before attempt `attempts + 1`, given `attempts` failures so far (0-based). */
export function retryDelayMs(
  attempts: number,
  policy: RetryPolicy,
  jitter = 0,
  random: () => number = Math.random,
): number {
  const base = Math.min(policy.maxDelayMs, policy.minDelayMs * 2 ** Math.min(attempts, 30))
  return Math.round(base * (1 + jitter * random()))
}

/** What one worker's runs share: its options with every default decided. */
type WorkerContext = {
  store: LeadStore
  mailer: Mailer
  webhook: WebhookSender | undefined
  compose: LaterComposer | undefined
  clock: () => Date
  retry: RetryPolicy
  mailAttempts: number
  webhookDelays: number[]
  leaseMs: number
  jitter: number
  batchSize: number
  concurrency: number
  /** The worker's pace (sending/send-pace.ts): the rate cap and the slow-downs receivers ask for, for every send. */
  pace: SendPace
  log: NonNullable<OutboxWorkerOptions['log']>
  onFailed: OutboxWorkerOptions['onFailed']
  suppressionKeyOf: OutboxWorkerOptions['suppressionKeyOf']
}

/** The sends in flight at once unless MAIL_CONCURRENCY says otherwise. */
export const defaultConcurrency = 8

/** During a burst of registrations, the break between two batches (OutboxWorker.yieldToBurst). */
export const burstBreakMs = 5_000

/**
 * The batch: 128 (two fsyncs, the claim and the mark, for that many messages), or under a rate cap no more than a
 * quarter of the lease's worth of sends, so a batch is out long before its claims could pass to another worker.
 */
function batchSizeOf(options: OutboxWorkerOptions): number {
  const wanted = Math.max(1, options.batchSize ?? 128)
  if (options.ratePerSecond === undefined) return wanted
  const leaseSeconds = (options.leaseMs ?? 120_000) / 1000
  return Math.max(1, Math.min(wanted, Math.floor((options.ratePerSecond * leaseSeconds) / 4)))
}

function contextOf(options: OutboxWorkerOptions): WorkerContext {
  const retry = options.retry ?? defaultRetryPolicy
  const clock = options.clock ?? (() => new Date())
  return {
    store: options.store,
    mailer: options.mailer,
    webhook: options.webhook,
    compose: options.compose,
    clock,
    retry,
    mailAttempts: Math.max(1, retry.maxAttempts ?? defaultMaxAttempts),
    webhookDelays: options.webhookDelaysMs ?? standardWebhookDelaysMs,
    leaseMs: options.leaseMs ?? 120_000,
    jitter: options.jitter ?? 0.2,
    batchSize: batchSizeOf(options),
    concurrency: Math.max(1, options.concurrency ?? defaultConcurrency),
    pace: createSendPace({ ratePerSecond: options.ratePerSecond, now: () => clock().getTime() }),
    log: options.log ?? {
      info: (m: string) => console.log(m),
      error: (m: string, e?: unknown) => console.error(m, e ?? ''),
    },
    onFailed: options.onFailed,
    suppressionKeyOf: options.suppressionKeyOf,
  }
}

/** Hands one message to its mailer or webhook; rejects with a DeliveryError saying whether to try again. */
function send(ctx: WorkerContext, job: OutboxJob, composed: Composed | undefined): Promise<void> {
  if (job.kind !== 'webhook') {
    if (!isLaterMail(job.mail)) return ctx.mailer.send(job.mail)
    if (composed && 'mail' in composed) return ctx.mailer.send(composed.mail)
    return Promise.reject(
      new DeliveryError(
        composed && 'retry' in composed
          ? `Not composed: ${composed.retry}.`
          : 'Not composed: this delivery has no launches to compose it from.',
        false,
      ),
    )
  }
  if (!ctx.webhook) return Promise.reject(new DeliveryError('No webhook address is configured (WEBHOOK_URL).', true))
  return ctx.webhook.send(job.webhook)
}

/** The batch's messages queued as what to send, composed (one read of their leads); a failure to read is each one's. */
async function composeBatch(ctx: WorkerContext, jobs: OutboxJob[]): Promise<Map<number, Composed>> {
  const later = jobs.flatMap((job) =>
    job.kind !== 'webhook' && isLaterMail(job.mail) ? [{ id: job.id, leadId: job.leadId, mail: job.mail }] : [],
  )
  if (later.length === 0 || !ctx.compose) return new Map()
  try {
    const composed = await ctx.compose(later)
    return new Map(later.map((job, i) => [job.id, composed[i]!]))
  } catch (error) {
    const retry = `its lead could not be read (${describeDeliveryError(error)})`
    return new Map(later.map((job) => [job.id, { retry }]))
  }
}

/**
 * Why a claimed message must not be sent at all, or undefined. Checked as it goes, whatever queued it: no message but
 * the team's notification and a studio account's own link (kind 'account': an invitation or reset, not marketing)
 * reaches an address that withdrew or is on the suppression list.
 */
async function cancelReasonOf(
  ctx: WorkerContext,
  job: OutboxJob,
  composed: Composed | undefined,
): Promise<string | undefined> {
  if (job.withdrawn && job.kind !== 'notification') return 'the registrant withdrew'
  if (composed && 'cancel' in composed) return composed.cancel
  if (job.kind === 'notification' || job.kind === 'webhook' || job.kind === 'account') return undefined
  const to = composed && 'mail' in composed ? composed.mail.to : job.mail.to
  if (await isDoNotContact(ctx.store, ctx.suppressionKeyOf, addressOf(to)))
    return 'its address withdrew consent or is on the suppression list'
  return undefined
}

/** Sends one claimed message; true when it went (marked sent with its batch), else its failure is recorded here. */
async function deliver(
  ctx: WorkerContext,
  job: OutboxJob,
  report: DeliveryReport,
  composed: Composed | undefined,
): Promise<boolean> {
  try {
    const cancelled = await cancelReasonOf(ctx, job, composed)
    if (cancelled !== undefined) {
      await ctx.store.markMessageCancelled(job.id, ctx.clock())
      ctx.log.info(`outbox: ${job.kind} ${job.id} not sent: ${cancelled}`)
      return false
    }
    await send(ctx, job, composed)
  } catch (error) {
    report.failed += 1
    await recordFailure(ctx, job, error)
    return false
  }
  return true
}

/** When the slow-down in force ends; now when none is. */
function pauseEndOf(ctx: WorkerContext): Date {
  return new Date(Math.max(ctx.pace.pausedUntil(), ctx.clock().getTime()))
}

/** A failed attempt: failed for good (refused, or out of attempts) with the owners' alert, or retried after a delay. */
async function recordFailure(ctx: WorkerContext, job: OutboxJob, error: unknown): Promise<void> {
  const reason = describeDeliveryError(error)
  const slowDown = job.kind === 'webhook' ? undefined : slowDownOf(error)
  if (slowDown) {
    // The receiver's pace, not this message's fault: tried again once the slow-down ends, no attempt counted.
    ctx.pace.slowDown(slowDown.afterMs)
    ctx.log.error(`outbox: ${job.kind} ${job.id} put off until the receiver's slow-down ends: ${reason}`)
    await ctx.store.postponeMail([job.id], pauseEndOf(ctx), reason)
    return
  }
  const attempt = job.attempts + 1
  const allowed = job.kind === 'webhook' ? ctx.webhookDelays.length + 1 : ctx.mailAttempts
  if (isPermanentFailure(error) || attempt >= allowed) {
    ctx.log.error(
      `outbox: ${job.kind} ${job.id} failed after ${attempt} attempt${attempt === 1 ? '' : 's'}${isPermanentFailure(error) ? ' (refused for good)' : ''}: ${reason}. ` +
        'It stays in the outbox as failed: `npm run outbox:retry` sends it again.',
    )
    await ctx.store.markMessageFailed(job.id, reason, ctx.clock())
    ctx.onFailed?.(job, reason)
    return
  }
  const delay =
    job.kind === 'webhook'
      ? Math.round((ctx.webhookDelays[job.attempts] ?? 0) * (1 + ctx.jitter * Math.random()))
      : retryDelayMs(job.attempts, ctx.retry, ctx.jitter)
  ctx.log.error(
    `outbox: ${job.kind} ${job.id} failed (attempt ${attempt} of ${allowed}), retry in ${Math.round(delay / 100) / 10} s: ${reason}`,
  )
  await ctx.store.markMailFailed(job.id, reason, new Date(ctx.clock().getTime() + delay))
}

/** A send's turn: what to call when it is over (`ok`: it went). Webhook calls are not paced. */
type Turn = (ok: boolean) => void
const unpaced: Turn = () => {}

/**
 * A claimed message's turn to go, or undefined when it must wait: a slow-down is in force (or began while it waited),
 * or the batch has been out for half its lease (a low rate), so its claims are freed before they could lapse.
 */
async function turnOf(ctx: WorkerContext, job: OutboxJob, claimedAt: number): Promise<Turn | undefined> {
  if (ctx.clock().getTime() - claimedAt > ctx.leaseMs / 2) return undefined
  if (job.kind === 'webhook') return unpaced
  return ctx.pace.take()
}

/**
 * Starts one claimed batch's sends, each when a place in the flight is free and the pace allows, and returns once all
 * have started; the sent ones are marked a group at a time, the last group when all have finished (tracked by the
 * flight). A slow-down puts the batch's unstarted messages off until it ends, claims freed and no attempt counted.
 */
async function deliverBatch(
  ctx: WorkerContext,
  jobs: OutboxJob[],
  report: DeliveryReport,
  flight: Flight,
): Promise<void> {
  const claimedAt = ctx.clock().getTime()
  const composed = await composeBatch(ctx, jobs)
  const sending: Array<Promise<boolean>> = []
  const marks = createMarks(flight, async (ids) => {
    await ctx.store.markMailSent(ids, ctx.clock())
    report.sent += ids.length
  })
  for (const [i, job] of jobs.entries()) {
    await flight.slot()
    const turn = await turnOf(ctx, job, claimedAt)
    if (!turn) {
      flight.release()
      await ctx.store.postponeMail(
        jobs.slice(i).map((left) => left.id),
        pauseEndOf(ctx),
      )
      break
    }
    sending.push(
      flight.run(async () => {
        const went = await deliver(ctx, job, report, composed.get(job.id)).catch((error: unknown) => {
          turn(false)
          throw error
        })
        turn(went)
        if (went) marks.add(job.id)
        return went
      }),
    )
  }
  // Every send settled, then the last group marked, even when one of them failed unexpectedly (a store that did not
  // answer): the others that went are not sent again.
  flight.track(
    Promise.allSettled(sending).then(async (settled) => {
      await marks.flush()
      const failure = settled.find((result) => result.status === 'rejected')
      if (failure) throw failure.reason
    }),
  )
}

/**
 * The outbox worker. Claims up to `batchSize` due messages (one committed transaction), sends them `concurrency` at a
 * time at the pace allowed (sending/send-pace.ts), and claims the next batch while the last sends of one are out; marks
 * the sent ones 32 at a time (one committed transaction each). So a crash can repeat at most the sent ones not yet
 * marked and those in flight, and each copy carries the same Message-ID / idempotency key as the first. A temporary
 * failure is retried with backoff; a receiver's "slow down" backs the whole rate off; a permanent refusal, or the last
 * allowed attempt, leaves the message `failed` with its last error. A reply or webhook call of a registrant who
 * withdrew is cancelled unsent.
 */
export function createOutboxWorker(options: OutboxWorkerOptions): OutboxWorker {
  const ctx = contextOf(options)
  let running: Promise<DeliveryReport> | undefined
  let again = false
  let timer: ReturnType<typeof setInterval> | undefined
  let stopped = false
  const burstBreak = createBurstBreak()

  async function drain(): Promise<DeliveryReport> {
    const report: DeliveryReport = { sent: 0, failed: 0 }
    const flight = createFlight(ctx.concurrency)
    try {
      do {
        again = false
        // A stop ends the run after the batch in hand; the rest stays pending for the next start. During a slow-down
        // nothing is claimed: the run ends, and the poll (or the wake-up at its end) starts the next.
        while (!stopped && ctx.pace.pausedUntil() === 0) {
          const jobs = await ctx.store.claimDueMail(ctx.clock(), ctx.batchSize, ctx.leaseMs)
          if (jobs.length === 0) break
          await deliverBatch(ctx, jobs, report, flight)
          // A stop ends the break too (then the loop ends).
          if (!stopped) await burstBreak.take(burstBreakMs)
        }
      } while (again && !stopped && ctx.pace.pausedUntil() === 0)
    } finally {
      await flight.settle()
    }
    wakeAfterSlowDown()
    return report
  }

  // A run that a slow-down ended starts again when it is over (Node: a timer that does not hold the process open).
  let wake: ReturnType<typeof setTimeout> | undefined
  function wakeAfterSlowDown(): void {
    const until = ctx.pace.pausedUntil()
    if (until === 0 || stopped || wake !== undefined || timer === undefined) return
    wake = setTimeout(() => {
      wake = undefined
      runLogged()
    }, until - ctx.clock().getTime())
    ;(wake as { unref?: () => void }).unref?.()
  }

  function deliverDue(): Promise<DeliveryReport> {
    if (running) {
      again = true
      return running
    }
    running = drain().finally(() => {
      running = undefined
      // A wake-up that came after the run's last look but before this line (a lead stored as the run ended) would
      // otherwise wait for the next poll, and the edge function has none: run again for it.
      if (again && !stopped) runLogged()
    })
    return running
  }

  function runLogged(): void {
    deliverDue().catch((error: unknown) => ctx.log.error('outbox: delivery run failed', error))
  }

  return {
    deliverDue,
    kick() {
      if (!stopped) runLogged()
    },
    yieldToBurst: (on) => burstBreak.set(on),
    start(pollMs) {
      stopped = false
      timer ??= setInterval(runLogged, pollMs)
      // A server should exit when asked even if the poll timer is the last thing alive (Node only).
      ;(timer as { unref?: () => void }).unref?.()
      runLogged()
    },
    async stop() {
      stopped = true
      burstBreak.end()
      if (timer !== undefined) clearInterval(timer)
      timer = undefined
      if (wake !== undefined) clearTimeout(wake)
      wake = undefined
      await running?.catch(() => {})
    },
  }
}
