import type { NodeServerConfig } from '../env.ts'
import type { NodeMail } from './mail.ts'
import type { LiveLaunch } from '../site/live-launches.ts'

/** What the start-up lines are made of: the settings, where the leads are, and how mail goes. */
export type SummaryDeps = {
  settings: NodeServerConfig
  /** Where the leads are, in plain words (node-store.ts). */
  where: string
  mail: Pick<NodeMail, 'emlDir' | 'webhook' | 'links'>
  /** The launches at start. */
  initial: readonly LiveLaunch[]
}

function mailLine(settings: NodeServerConfig, emlDir: string): string {
  if (settings.mail.kind !== 'smtp') return `Mail: written as .eml files to ${emlDir} (set SMTP_URL to send it)`
  const smtpHost = new URL(settings.mail.url)
  const port = smtpHost.port || (smtpHost.protocol === 'smtps:' ? 465 : 587)
  return `Mail: SMTP ${smtpHost.hostname}:${port}, from ${settings.mail.from}`
}

function repliesLine(served: readonly LiveLaunch[], links: NodeMail['links']): string {
  const withReply = served.filter((launch) => launch.version!.contract.reply)
  if (withReply.length === 0) return 'Replies to registrants: off (no launch\'s page.config.json has a "reply")'
  const each = withReply.map((launch) => {
    const contract = launch.version!.contract
    return `${launch.slug} (sender "${contract.reply!.sender.name}", unsubscribe links at ${links.baseOf(contract)}/unsubscribe)`
  })
  return `Replies to registrants: on for ${each.join(', ')}`
}

function alertsLine(settings: NodeServerConfig, webhook: boolean): string {
  const what = 'Alerts (a launch broken, a message failed)'
  return settings.alertEmail
    ? `${what}: to ${settings.alertEmail}${webhook ? ' and the webhook' : ''}`
    : `${what}: ${webhook ? 'to the webhook; ' : ''}set ALERT_EMAIL to be told by e-mail`
}

/** The lines printed at start: where the leads are, how mail goes, replies, the webhook, alerts (no credentials). */
export function startupSummary({ settings, where, mail, initial }: SummaryDeps): string[] {
  const served = initial.filter((launch) => launch.version)
  return [
    `Leads: ${where}`,
    mailLine(settings, mail.emlDir),
    ...served.map(
      (launch) =>
        `Notifications of ${launch.slug}: to ${settings.notifyEmail ?? launch.version!.contract.notifyEmail}${settings.notifyEmail ? ' (NOTIFY_EMAIL)' : ''}`,
    ),
    repliesLine(served, mail.links),
    ...(settings.publishCommand
      ? ["Static host: PUBLISH_COMMAND runs after each publish and at each phase's start"]
      : []),
    settings.webhook
      ? `CRM webhook: on, to ${new URL(settings.webhook.url).host} (signed)`
      : 'CRM webhook: off (WEBHOOK_URL not set)',
    `Failed messages: retried up to ${settings.retry.maxAttempts} times, then kept as failed (npm run outbox:retry); health at /healthz`,
    alertsLine(settings, mail.webhook !== undefined),
  ]
}
