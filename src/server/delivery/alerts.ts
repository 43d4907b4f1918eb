import { createHash } from 'node:crypto'
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { backlogInWords } from './sending/backlog-words.ts'
import { escapeHtml } from './escape-html.ts'
import type { Mailer } from './mailer.ts'
import type { WebhookSender } from './outbox.ts'

/**
 * Alerts to the owners of a server: a launch whose config broke, a message of the outbox that reached the failed
 * state. Each is told once (its key is remembered in DATA_DIR/alerts/, so a restart does not tell it again): an
 * e-mail to ALERT_EMAIL and a signed `alert` webhook event (WEBHOOK_URL). The store's outbox holds only messages of
 * a registration, so alerts are queued as files here and retried with backoff until sent, like the outbox does.
 */

/** What the owners are told: a stable key (told once per key), a subject, plain text (no personal data). */
export type Alert = {
  key: string
  kind: 'launch-broken' | 'message-failed'
  launch?: string | undefined
  subject: string
  text: string
}

/** Where alerts go; with neither ALERT_EMAIL nor a webhook they are only logged. */
export type AlertOptions = {
  dir: string
  alertEmail?: string | undefined
  mailer: Mailer
  webhook?: WebhookSender | undefined
  /** Name in the From of alert mails. */
  fromName?: string | undefined
  clock?: () => Date
  log?: { info(message: string): void; error(message: string, error?: unknown): void }
  /** First retry delay; doubles each attempt up to an hour. Default 30 s. */
  retryMs?: number
  maxAttempts?: number
}

/** Raise alerts, forget those of a launch that recovered, deliver what is due. */
export type Alerts = {
  /** Queues the alert unless its key was told already; delivery starts at once. */
  raise(alert: Alert): void
  /** Forgets the alerts whose key starts with `prefix` (a launch works again: its next break is told again). */
  forget(prefix: string): void
  /** Delivers every alert due now. */
  deliverDue(): Promise<void>
  start(pollMs: number): void
  stop(): Promise<void>
}

type Stored = Alert & {
  createdAt: string
  mailSent: boolean
  webhookSent: boolean
  attempts: number
  nextAt: number
  failed?: boolean
}

function fileNameOf(key: string): string {
  const [prefix] = key.split(':')
  return `${(prefix ?? 'alert').replace(/[^a-z0-9-]/gi, '')}-${createHash('sha256').update(key).digest('hex').slice(0, 24)}.json`
}

function writeAtomically(file: string, text: string): void {
  const temporary = `${file}.${process.pid}.tmp`
  writeFileSync(temporary, text, { mode: 0o600 })
  renameSync(temporary, file)
}

/** What one server's alerts share: their options with every default decided. */
type AlertContext = {
  options: AlertOptions
  clock: () => Date
  log: NonNullable<AlertOptions['log']>
  retryMs: number
  maxAttempts: number
}

/** Every alert kept in the folder (one that cannot be read is left out). */
function readAll(dir: string): Array<{ file: string; alert: Stored }> {
  return readdirSync(dir)
    .filter((name) => name.endsWith('.json'))
    .flatMap((name) => {
      const file = path.join(dir, name)
      try {
        return [{ file, alert: JSON.parse(readFileSync(file, 'utf8')) as Stored }]
      } catch {
        return []
      }
    })
}

/**
 * Sends what is still unsent of one alert (the e-mail, the webhook call) and records it; a failure is retried later.
 */
async function deliverOne(ctx: AlertContext, file: string, alert: Stored): Promise<void> {
  const { options } = ctx
  const id = createHash('sha256').update(`${alert.key}\n${alert.createdAt}`).digest('hex').slice(0, 32)
  try {
    if (options.alertEmail && !alert.mailSent) {
      await options.mailer.send({
        to: options.alertEmail,
        subject: alert.subject,
        text: `${alert.text}\n`,
        html: `<pre style="white-space:pre-wrap;font-family:monospace">${escapeHtml(alert.text)}</pre>`,
        messageId: `<alert-${id}@localhost>`,
        idempotencyKey: `alert-${id}`,
        fromName: options.fromName,
      })
      alert.mailSent = true
    }
    if (options.webhook && !alert.webhookSent) {
      const body = JSON.stringify({
        type: 'alert',
        timestamp: alert.createdAt,
        data: { kind: alert.kind, launch: alert.launch ?? null, subject: alert.subject, text: alert.text },
      })
      await options.webhook.send({ id: `alert-${id}`, body })
      alert.webhookSent = true
    }
    writeAtomically(file, JSON.stringify(alert))
  } catch (error) {
    recordAlertFailure(ctx, alert, error)
    writeAtomically(file, JSON.stringify(alert))
  }
}

function recordAlertFailure(ctx: AlertContext, alert: Stored, error: unknown): void {
  alert.attempts += 1
  if (alert.attempts >= ctx.maxAttempts) {
    alert.failed = true
    ctx.log.error(
      `alerts: "${alert.subject}" could not be sent after ${alert.attempts} attempts: ${(error as Error).message}`,
    )
  } else {
    alert.nextAt = ctx.clock().getTime() + Math.min(3_600_000, ctx.retryMs * 2 ** (alert.attempts - 1))
    ctx.log.error(`alerts: "${alert.subject}" not sent yet (attempt ${alert.attempts}): ${(error as Error).message}`)
  }
}

/** Keeps a new alert (once per key: a second raise of the same key is nothing); false when it was not kept. */
function keepAlert(ctx: AlertContext, alert: Alert): boolean {
  const file = path.join(ctx.options.dir, fileNameOf(alert.key))
  try {
    writeFileSync(
      file,
      JSON.stringify({
        ...alert,
        createdAt: ctx.clock().toISOString(),
        mailSent: false,
        webhookSent: false,
        attempts: 0,
        nextAt: 0,
      } satisfies Stored),
      { flag: 'wx', mode: 0o600 },
    )
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST')
      ctx.log.error(`alerts: "${alert.subject}" could not be queued`, error)
    return false
  }
  if (!ctx.options.alertEmail && !ctx.options.webhook)
    ctx.log.info(`alerts: ${alert.subject} (set ALERT_EMAIL to be told by e-mail)`)
  return true
}

/** The alerts of a server, kept in `options.dir`. */
export function createAlerts(options: AlertOptions): Alerts {
  const ctx: AlertContext = {
    options,
    clock: options.clock ?? (() => new Date()),
    log: options.log ?? {
      info: (m: string) => console.log(m),
      error: (m: string, e?: unknown) => console.error(m, e ?? ''),
    },
    retryMs: options.retryMs ?? 30_000,
    maxAttempts: options.maxAttempts ?? 10,
  }
  mkdirSync(options.dir, { recursive: true, mode: 0o700 })
  let running: Promise<void> | undefined
  let again = false
  let timer: ReturnType<typeof setInterval> | undefined
  let stopped = false

  async function drain(): Promise<void> {
    do {
      again = false
      const now = ctx.clock().getTime()
      for (const { file, alert } of readAll(options.dir)) {
        if (stopped) return
        const done = (alert.mailSent || !options.alertEmail) && (alert.webhookSent || !options.webhook)
        if (done || alert.failed || alert.nextAt > now) continue
        await deliverOne(ctx, file, alert)
      }
    } while (again && !stopped)
  }

  function deliverDue(): Promise<void> {
    if (running) {
      again = true
      return running
    }
    running = drain()
      .catch((error: unknown) => ctx.log.error('alerts: a delivery run failed', error))
      .finally(() => {
        running = undefined
      })
    return running
  }

  return {
    raise(alert) {
      if (keepAlert(ctx, alert) && !stopped) void deliverDue()
    },
    forget(prefix) {
      for (const { file, alert } of readAll(options.dir))
        if (alert.key.startsWith(prefix)) rmSync(file, { force: true })
    },
    deliverDue,
    start(pollMs) {
      stopped = false
      timer ??= setInterval(() => void deliverDue(), pollMs)
      timer.unref()
      void deliverDue()
    },
    async stop() {
      stopped = true
      if (timer !== undefined) clearInterval(timer)
      timer = undefined
      await running
    },
  }
}

/**
 * The owners' alert for an outbox message that failed for good (no one's address in it); with `backlog`, how many
 * messages wait behind it and how long the oldest has (a failure often comes with mail falling behind).
 */
export function messageFailedAlert(
  job: { id: number; kind: string; leadId: number | null; attempts: number },
  reason: string,
  backlog?: { pending: number; oldestSeconds: number },
): Alert {
  return {
    key: `message-failed:${job.id}`,
    kind: 'message-failed',
    subject: `A ${job.kind} could not be delivered (outbox message ${job.id})`,
    text: [
      `Outbox message ${job.id} (the ${job.kind}${job.leadId === null ? '' : ` of registration ${job.leadId}`}) failed for good after ${job.attempts + 1} attempt(s).`,
      // An SMTP refusal may quote the recipient: the owners get the reason without anyone's address.
      `Reason: ${reason.replace(/[^\s@<>()]+@[^\s@<>()]+/g, '<address>')}`,
      'It stays in the outbox as failed. Fix the cause (see the server log), then run npm run outbox:retry to send it again.',
      ...(backlog ? [`Waiting: ${backlogInWords(backlog.pending, backlog.oldestSeconds)}`] : []),
    ].join('\n'),
  }
}
