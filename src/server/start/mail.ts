import path from 'node:path'
import type { FunctionLaunch } from '../../../schema/function-launch.ts'
import { contactFunctionPath } from '../../../schema/function-path.ts'
import { createAlerts, messageFailedAlert, type Alerts } from '../delivery/alerts.ts'
import { createEmlMailer } from '../delivery/mailers/eml-mailer.ts'
import type { Mailer } from '../delivery/mailer.ts'
import type { WebhookSender } from '../delivery/outbox.ts'
import { createSmtpMailer } from '../delivery/mailers/smtp-mailer.ts'
import { createWebhookSender } from '../delivery/webhook.ts'
import { superviseDelivery, type DeliverySupervisor, type FailedMessage } from '../delivery-supervisor.ts'
import { waitedSeconds } from '../delivery/sending/backlog-words.ts'
import type { NodeServerConfig } from '../env.ts'
import type { NodeStore } from '../node-store.ts'
import { hmacSha256 } from '../store/private-files.ts'

/** How a launch's unsubscribe and document links are made: the key they are signed with and where they point. */
export type ReplyLinks = {
  /** UNSUBSCRIBE_SECRET, or the key kept in the store. */
  secret: () => string
  /** Unless PUBLIC_FUNCTION_URL, each launch's own function address (its first origin). */
  baseOf: (contract: FunctionLaunch) => string
  /** What a message's links are signed with, for one launch. */
  signerOf: (contract: FunctionLaunch) => { secret: string; baseUrl: string; hmac: typeof hmacSha256 }
}

/** What goes out of the Node server: the mailer, the CRM webhook, the owners' alerts and the outbox's process. */
export type NodeMail = {
  mailer: Mailer
  /** DATA_DIR/outbox: where .eml copies are written without SMTP_URL. */
  emlDir: string
  webhook: WebhookSender | undefined
  alerts: Alerts
  delivery: DeliverySupervisor
  links: ReplyLinks
}

/** What createNodeMail needs. */
export type NodeMailDeps = {
  settings: NodeServerConfig
  /** DATA_DIR, resolved. */
  dataDir: string
  opened: NodeStore
  defaultSlug: string
  /** The default launch's contract: its reply sender (or its name) is the From without MAIL_FROM. */
  defaultContract: FunctionLaunch
}

/** Without MAIL_FROM the default launch's reply sender is the From of every message, so a try-out works as it is. */
function defaultFromOf(contract: FunctionLaunch): string {
  const unquoted = (name: string) => name.replace(/["\\]/g, '')
  return contract.reply
    ? `"${unquoted(contract.reply.sender.name)}" <${contract.reply.sender.email}>`
    : `"${unquoted(contract.site.name)}" <no-reply@localhost>`
}

function replyLinksOf(settings: NodeServerConfig, opened: NodeStore): ReplyLinks {
  const secret = () => settings.unsubscribeSecret ?? opened.secrets.unsubscribe()
  const baseOf = (contract: FunctionLaunch) =>
    settings.publicFunctionUrl ?? `${contract.origins[0]}${contactFunctionPath}`
  return { secret, baseOf, signerOf: (contract) => ({ secret: secret(), baseUrl: baseOf(contract), hmac: hmacSha256 }) }
}

/** The owners' alert of a failed message, saying how many wait behind it (without, if the store does not answer). */
async function raiseMessageFailed(
  store: NodeStore['store'],
  alerts: Alerts,
  job: FailedMessage,
  reason: string,
): Promise<void> {
  const backlog = await store.countBacklog().catch(() => undefined)
  const waiting = backlog && { pending: backlog.pending, oldestSeconds: waitedSeconds(backlog) }
  alerts.raise(messageFailedAlert(job, reason, waiting))
}

/** The outbox is delivered by a child process (delivery-supervisor.ts), started once the server listens. */
function superviseNodeDelivery(deps: NodeMailDeps, from: string, alerts: Alerts, links: ReplyLinks) {
  const { settings, dataDir } = deps
  return superviseDelivery({
    start: {
      dataDir,
      databaseUrl: settings.databaseUrl,
      defaultLaunch: deps.defaultSlug,
      mail: settings.mail.kind === 'smtp' ? settings.mail : { kind: 'eml', from },
      webhook: settings.webhook,
      retry: settings.retry,
      webhookDelaysMs: settings.webhookDelaysMs,
      sending: settings.sending,
      workers: settings.mailWorkers,
      // Poll at least as often as the shortest retry delay, so a retry is not later than configured.
      pollMs: Math.min(5_000, settings.retry.minDelayMs, ...settings.webhookDelaysMs),
      // The launches come with each function made (node-function.ts).
      compose: {
        launches: [],
        timeZone: settings.timeZone,
        notifyEmail: settings.notifyEmail,
        unsubscribeSecret: links.secret(),
        suppressionSecret: deps.opened.secrets.suppression(),
      },
    },
    onFailed: (job, reason) => void raiseMessageFailed(deps.opened.store, alerts, job, reason),
  })
}

/**
 * Makes the mailer (SMTP_URL, or .eml files), the webhook sender, the alerts and the delivery process (not started).
 */
export function createNodeMail(deps: NodeMailDeps): NodeMail {
  const { settings, dataDir } = deps
  const emlDir = path.join(dataDir, 'outbox')
  const from = settings.mail.from ?? defaultFromOf(deps.defaultContract)
  const mailer: Mailer =
    settings.mail.kind === 'smtp'
      ? createSmtpMailer({ url: settings.mail.url, from: settings.mail.from })
      : createEmlMailer({ dir: emlDir, from })
  const webhook = settings.webhook ? createWebhookSender(settings.webhook) : undefined
  const alerts = createAlerts({
    dir: path.join(dataDir, 'alerts'),
    alertEmail: settings.alertEmail,
    mailer,
    webhook,
    retryMs: settings.retry.minDelayMs,
  })
  const links = replyLinksOf(settings, deps.opened)
  const delivery = superviseNodeDelivery(deps, from, alerts, links)
  return { mailer, emlDir, webhook, alerts, delivery, links }
}
