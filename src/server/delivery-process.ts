import { setPriority } from 'node:os'
import path from 'node:path'
import pg from 'pg'
import { createEmlMailer } from './delivery/eml-mailer.ts'
import type { Mailer } from './delivery/mailer.ts'
import { createOutboxWorker } from './delivery/outbox.ts'
import { createSmtpMailer } from './delivery/smtp-mailer.ts'
import { createWebhookSender } from './delivery/webhook.ts'
import { lockDelivery } from './store/data-dir-lock.ts'
import { openSqliteStore } from './store/sqlite/sqlite-store.ts'
import { createPostgresStore } from './store/postgres/postgres-store.ts'
import type { LeadStore } from './store/store.ts'
import type {
  DeliveryComposing,
  DeliveryLaunches,
  DeliveryStart,
  FromDelivery,
  ToDelivery,
} from './delivery-supervisor.ts'
import { composingLaunchOf, createLaterComposer, type ComposingLaunch } from './compose-later.ts'
import { launchSiteOf } from './site/launch-site.ts'
import { hmacSha256 } from './store/private-files.ts'
import { addressKeyOf } from './store/suppression.ts'

// The delivery process (started and supervised by delivery-supervisor.ts, never run by hand): the outbox worker of
// the server that forked it, on the same SQLite database (or the same PostgreSQL). It ends when told to, and when its
// server is gone (the IPC
// pipe closes, even on a SIGKILL of the server) once the batch in hand is sent and marked.

const tell = (message: FromDelivery) => process.send?.(message)
// Set once the worker runs; until then a stop has nothing in hand and ends the process at once.
let running: { kick(): void; stop(): Promise<void> } | undefined
// The launches the queued notifications and replies are composed from, as the server last sent them.
let composing: DeliveryComposing | undefined
let launches = new Map<string, ComposingLaunch>()

/** The server's launches as its function composes their e-mails (node.ts makeFunction): the same links and settings. */
function takeLaunches(list: DeliveryLaunches): void {
  if (!composing) return
  const { timeZone, notifyEmail, unsubscribeSecret } = composing
  launches = new Map(
    list.map(({ contract, linkBase }) => {
      const links = contract.reply ? { secret: unsubscribeSecret, baseUrl: linkBase, hmac: hmacSha256 } : undefined
      // The Node server serves the worksheet page (it opens the release store): a realtor's reply may link it.
      const site = launchSiteOf(contract, { notifyEmail, links, worksheets: true })
      return [contract.slug, composingLaunchOf(site, timeZone)]
    }),
  )
}

function suppressionKeyOf(secret: string | undefined) {
  return secret === undefined ? undefined : (email: string) => addressKeyOf(secret, email, hmacSha256)
}

async function run(start: DeliveryStart): Promise<void> {
  composing = start.compose
  takeLaunches(start.compose.launches)
  // A low CPU priority: on a busy machine the server's answers go first, and delivery catches up when it is quieter
  // (what the outbox is for). Not the lowest (19): beside other busy processes that one got about 1 % of a core and
  // sent nothing for minutes; at 10 it gets about a tenth and keeps sending. Allowed to any process for itself.
  setPriority(10)
  let lock = { release() {} }
  let store: LeadStore
  if (start.databaseUrl) {
    // Several servers' delivery processes share the outbox: each claim is leased (SKIP LOCKED), and a claim left by a
    // killed process is taken again once its lease ends, never before; so no DATA_DIR lock and no releasing of claims.
    const pool = new pg.Pool({ connectionString: start.databaseUrl, max: 2 })
    pool.on('error', (error) =>
      console.error(`Delivery: a PostgreSQL connection was lost (${error.message}); the next query opens a new one.`),
    )
    store = createPostgresStore(pool, { defaultLaunch: start.defaultLaunch, close: () => pool.end() })
  } else {
    lock = await lockDelivery(start.dataDir)
    const sqlite = openSqliteStore(path.join(start.dataDir, 'leads.sqlite'), { defaultLaunch: start.defaultLaunch })
    // The only delivery process of DATA_DIR now: claims left by a killed predecessor are free to take at once.
    await sqlite.releaseAllClaims()
    store = sqlite
  }
  const mailer: Mailer =
    start.mail.kind === 'smtp'
      ? createSmtpMailer({ url: start.mail.url, from: start.mail.from, maxConnections: start.sending.concurrency })
      : createEmlMailer({ dir: path.join(start.dataDir, 'outbox'), from: start.mail.from })
  const worker = createOutboxWorker({
    store,
    mailer,
    webhook: start.webhook ? createWebhookSender(start.webhook) : undefined,
    retry: start.retry,
    webhookDelaysMs: start.webhookDelaysMs,
    concurrency: start.sending.concurrency,
    ratePerSecond: start.sending.ratePerSecond,
    compose: createLaterComposer({ store, launchOf: (slug) => launches.get(slug) }),
    suppressionKeyOf: suppressionKeyOf(start.compose.suppressionSecret),
    onFailed: (job, reason) =>
      tell({ type: 'failed', job: { id: job.id, kind: job.kind, leadId: job.leadId, attempts: job.attempts }, reason }),
  })
  let stopping: Promise<void> | undefined
  const stop = () =>
    (stopping ??= (async () => {
      await worker.stop()
      await mailer.close?.()
      await store.close()
      lock.release()
      process.exit(0)
    })())
  running = { kick: () => worker.kick(), stop }
  process.removeAllListeners('disconnect')
  process.on('disconnect', () => void stop())
  process.on('SIGTERM', () => void stop())
  worker.start(start.pollMs)
  tell({ type: 'ready' })
}

// Ctrl-C reaches the whole process group: the server decides when this process stops (after its own requests).
process.on('SIGINT', () => {})
process.on('disconnect', () => process.exit(0))
process.on('message', (message: ToDelivery) => {
  if (message.type === 'kick') running?.kick()
  else if (message.type === 'launches') takeLaunches(message.launches)
  else if (message.type === 'stop') void (running ? running.stop() : process.exit(0))
  else if (message.type === 'start' && !running) {
    run(message.start).catch((error: unknown) => {
      console.error(`Delivery: the delivery process could not start: ${(error as Error).message}`)
      process.exit(1)
    })
  }
})
tell({ type: 'listening' })
