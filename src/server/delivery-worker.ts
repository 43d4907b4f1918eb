import { availableParallelism, setPriority } from 'node:os'
import path from 'node:path'
import pg from 'pg'
import { createEmlMailer } from './delivery/mailers/eml-mailer.ts'
import type { Mailer } from './delivery/mailer.ts'
import { createOutboxWorker, type MailSending, type OutboxWorker } from './delivery/outbox.ts'
import { createSmtpMailer } from './delivery/mailers/smtp-mailer.ts'
import { createWebhookSender } from './delivery/webhook.ts'
import type { DeliveryComposing, DeliveryLaunches, DeliveryStart, FailedMessage } from './delivery-supervisor.ts'
import { composingLaunchOf, createLaterComposer, type ComposingLaunch } from './compose-later.ts'
import { launchSiteOf } from './site/launch-site.ts'
import { hmacSha256 } from './store/private-files.ts'
import { openSqliteStore } from './store/sqlite/sqlite-store.ts'
import { createPostgresStore } from './store/postgres/postgres-store.ts'
import type { LeadStore } from './store/store.ts'
import { addressKeyOf } from './store/suppression.ts'

// One outbox worker of the delivery process (delivery-process.ts): its own connection to the store, its own SMTP pool
// and its share of the sending settings. The process runs one on its main thread and, with MAIL_WORKERS above 1, the
// others each on a thread of its own (delivery-thread.ts), so composing and sending use more than one core. They share
// the outbox as several servers' processes do on PostgreSQL: a claim is taken by one worker in one transaction, and
// leased, so no two ever send the same message.

/** The launches the queued notifications and replies are composed from, as the server last sent them. */
export type LaunchBook = { take(list: DeliveryLaunches): void; launchOf(slug: string): ComposingLaunch | undefined }

/** A book of the server's launches, composed as its function composes their e-mails (the same links and settings). */
export function createLaunchBook(composing: DeliveryComposing): LaunchBook {
  let launches = new Map<string, ComposingLaunch>()
  const { timeZone, notifyEmail, unsubscribeSecret } = composing
  const take = (list: DeliveryLaunches) => {
    launches = new Map(
      list.map(({ contract, linkBase }) => {
        const links = contract.reply ? { secret: unsubscribeSecret, baseUrl: linkBase, hmac: hmacSha256 } : undefined
        // The Node server serves the worksheet page (it opens the release store): a realtor's reply may link it.
        const site = launchSiteOf(contract, { notifyEmail, links, worksheets: true })
        return [contract.slug, composingLaunchOf(site, timeZone)]
      }),
    )
  }
  take(composing.launches)
  return { take, launchOf: (slug) => launches.get(slug) }
}

/**
 * Worker `index`'s share of the sending settings, of `workers` in all: the sends at once divided among them (at least
 * one each), and the rate cap too, so that together they keep MAIL_CONCURRENCY and MAIL_RATE_PER_SECOND.
 */
export function sendingShare(sending: MailSending, workers: number | undefined, index: number): MailSending {
  const count = workersOf(sending, workers)
  const each = Math.floor(sending.concurrency / count)
  return {
    // The sends that do not divide evenly go to the first workers.
    concurrency: each + (index < sending.concurrency - each * count ? 1 : 0),
    ratePerSecond: sending.ratePerSecond === undefined ? undefined : sending.ratePerSecond / count,
  }
}

/**
 * How many workers run: MAIL_WORKERS (unset: 2, or 1 on a machine with one core: a second worker there only takes turns
 * with the first), but never more than the sends allowed at once (each needs one).
 */
export function workersOf(sending: MailSending, workers: number | undefined): number {
  const wanted = workers ?? Math.min(2, availableParallelism())
  return Math.max(1, Math.min(wanted, sending.concurrency))
}

/**
 * The delivery's low CPU priority: on a busy machine the server's answers go first, and delivery catches up when it is
 * quieter (what the outbox is for). Not the lowest (19): beside other busy processes that one got about 1 % of a core
 * and sent nothing for minutes; at 10 it gets about a tenth and keeps sending. Linux keeps it per thread: each worker's
 * thread sets its own.
 */
export function lowerPriority(): void {
  setPriority(10)
}

/**
 * The store a worker delivers from: PostgreSQL (DATABASE_URL) or DATA_DIR's SQLite database, whose
 * `releaseAllClaims` only the process holding DATA_DIR/delivery.lock may call, before any of its workers claims.
 */
export function openDeliveryStore(start: DeliveryStart): { store: LeadStore; releaseAllClaims?: () => Promise<void> } {
  if (!start.databaseUrl) {
    const sqlite = openSqliteStore(path.join(start.dataDir, 'leads.sqlite'), { defaultLaunch: start.defaultLaunch })
    return { store: sqlite, releaseAllClaims: () => sqlite.releaseAllClaims() }
  }
  const pool = new pg.Pool({ connectionString: start.databaseUrl, max: 2 })
  pool.on('error', (error) =>
    console.error(`Delivery: a PostgreSQL connection was lost (${error.message}); the next query opens a new one.`),
  )
  return { store: createPostgresStore(pool, { defaultLaunch: start.defaultLaunch, close: () => pool.end() }) }
}

/** One running worker: what it sends with, to close when it has stopped. */
export type DeliveryWorker = { worker: OutboxWorker; mailer: Mailer }

/** Worker `index`'s outbox worker over `store`, with its own mailer (an SMTP pool of its share of the connections). */
export function createDeliveryWorker(
  start: DeliveryStart,
  store: LeadStore,
  book: LaunchBook,
  index: number,
  onFailed: (job: FailedMessage, reason: string) => void,
): DeliveryWorker {
  const share = sendingShare(start.sending, start.workers, index)
  const mailer: Mailer =
    start.mail.kind === 'smtp'
      ? createSmtpMailer({ url: start.mail.url, from: start.mail.from, maxConnections: share.concurrency })
      : createEmlMailer({ dir: path.join(start.dataDir, 'outbox'), from: start.mail.from })
  const secret = start.compose.suppressionSecret
  const worker = createOutboxWorker({
    store,
    mailer,
    webhook: start.webhook ? createWebhookSender(start.webhook) : undefined,
    retry: start.retry,
    webhookDelaysMs: start.webhookDelaysMs,
    concurrency: share.concurrency,
    ratePerSecond: share.ratePerSecond,
    compose: createLaterComposer({ store, launchOf: (slug) => book.launchOf(slug) }),
    suppressionKeyOf: secret === undefined ? undefined : (email) => addressKeyOf(secret, email, hmacSha256),
    onFailed: (job, reason) =>
      onFailed({ id: job.id, kind: job.kind, leadId: job.leadId, attempts: job.attempts }, reason),
  })
  return { worker, mailer }
}

/** What a worker's thread is started with: the delivery's start and which worker it is (1, 2 …; 0 is the process's). */
export type ThreadStart = { start: DeliveryStart; index: number }

/** Delivery process → a worker's thread. */
export type ToThread =
  | { type: 'kick' }
  | { type: 'launches'; launches: DeliveryLaunches }
  | { type: 'burst'; on: boolean }
  | { type: 'stop' }

/** A worker's thread → the delivery process. */
export type FromThread =
  { type: 'ready' } | { type: 'failed'; job: FailedMessage; reason: string } | { type: 'stopped' }
