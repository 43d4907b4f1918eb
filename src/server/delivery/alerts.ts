import { createHash } from 'node:crypto'
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'
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

/** The alerts of a server, kept in `options.dir`. */
export function createAlerts(options: AlertOptions): Alerts {
  const clock = options.clock ?? (() => new Date())
  const log = options.log ?? {
    info: (m: string) => console.log(m),
    error: (m: string, e?: unknown) => console.error(m, e ?? ''),
  }
  const retryMs = options.retryMs ?? 30_000
  const maxAttempts = options.maxAttempts ?? 10
  mkdirSync(options.dir, { recursive: true, mode: 0o700 })
  let running: Promise<void> | undefined
  let again = false
  let timer: ReturnType<typeof setInterval> | undefined
  let stopped = false

  const readAll = (): Array<{ file: string; alert: Stored }> =>
    readdirSync(options.dir)
      .filter((name) => name.endsWith('.json'))
      .flatMap((name) => {
        const file = path.join(options.dir, name)
        try {
          return [{ file, alert: JSON.parse(readFileSync(file, 'utf8')) as Stored }]
        } catch {
          return []
        }
      })

  async function deliverOne(file: string, alert: Stored): Promise<void> {
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
      alert.attempts += 1
      if (alert.attempts >= maxAttempts) {
        alert.failed = true
        log.error(
          `alerts: "${alert.subject}" could not be sent after ${alert.attempts} attempts: ${(error as Error).message}`,
        )
      } else {
        alert.nextAt = clock().getTime() + Math.min(3_600_000, retryMs * 2 ** (alert.attempts - 1))
        log.error(`alerts: "${alert.subject}" not sent yet (attempt ${alert.attempts}): ${(error as Error).message}`)
      }
      writeAtomically(file, JSON.stringify(alert))
    }
  }

  async function drain(): Promise<void> {
    do {
      again = false
      const now = clock().getTime()
      for (const { file, alert } of readAll()) {
        if (stopped) return
        const done = (alert.mailSent || !options.alertEmail) && (alert.webhookSent || !options.webhook)
        if (done || alert.failed || alert.nextAt > now) continue
        await deliverOne(file, alert)
      }
    } while (again && !stopped)
  }

  function deliverDue(): Promise<void> {
    if (running) {
      again = true
      return running
    }
    running = drain()
      .catch((error: unknown) => log.error('alerts: a delivery run failed', error))
      .finally(() => {
        running = undefined
      })
    return running
  }

  return {
    raise(alert) {
      const file = path.join(options.dir, fileNameOf(alert.key))
      try {
        writeFileSync(
          file,
          JSON.stringify({
            ...alert,
            createdAt: clock().toISOString(),
            mailSent: false,
            webhookSent: false,
            attempts: 0,
            nextAt: 0,
          } satisfies Stored),
          { flag: 'wx', mode: 0o600 },
        )
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'EEXIST') return
        log.error(`alerts: "${alert.subject}" could not be queued`, error)
        return
      }
      if (!options.alertEmail && !options.webhook)
        log.info(`alerts: ${alert.subject} (set ALERT_EMAIL to be told by e-mail)`)
      if (!stopped) void deliverDue()
    },
    forget(prefix) {
      for (const { file, alert } of readAll()) if (alert.key.startsWith(prefix)) rmSync(file, { force: true })
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

/** The owners' alert for an outbox message that failed for good (no one's address in it). */
export function messageFailedAlert(
  job: { id: number; kind: string; leadId: number | null; attempts: number },
  reason: string,
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
    ].join('\n'),
  }
}
