/**
 * The messages queued with a new lead besides its notification: the reply (the phase's words; a realtor's own, see
 * realtor.ts) and the CRM's webhook call. None for an address that withdrew (CASL), whether still among the leads or
 * only on the suppression list. Web-standard only: the Deno function runs it too.
 */
import type { ReplyConfig } from '../../../schema/page-config.ts'
import { singleAddress } from './mailer.ts'
import { replyForLead } from './realtor.ts'
import { composeReply } from './reply.ts'
import { composeWebhook } from './webhook.ts'
import type { NotificationForm } from './notification.ts'
import type { LinkSettings } from './unsubscribe.ts'
import type { AddressKey, LeadStore, NewLead, NewMessage } from '../store/store.ts'

/** What deciding a lead's follow-ups needs from the app. */
export type FollowUpDeps = {
  store: Pick<LeadStore, 'isAddressWithdrawn' | 'isSuppressed'>
  suppressionKeyOf?: ((email: string) => Promise<AddressKey>) | undefined
  webhook?: boolean | undefined
  log: { info(message: string): void }
}

/** The launch as the follow-ups read it (site/launch-site.ts's LaunchSite fits). */
export type FollowUpLaunch = {
  reply?: { config: ReplyConfig; links: LinkSettings } | undefined
  site: { name: string; email: string; brokerage: string }
  privacy: { url: string; label: string }
  form: NotificationForm
}

/** The reply and the webhook call to queue with `lead`; `phaseReply` gives the reply in the lead's phase. */
export async function followUpMessages(deps: FollowUpDeps, lead: NewLead, launch: FollowUpLaunch, phaseReply: (config: ReplyConfig) => ReplyConfig): Promise<NewMessage[]> {
  if (!launch.reply && !deps.webhook) return []
  const email = typeof lead.fields.email === 'string' ? singleAddress(lead.fields.email) : undefined
  const withdrawn =
    email !== undefined &&
    ((await deps.store.isAddressWithdrawn(email)) || (deps.suppressionKeyOf !== undefined && (await deps.store.isSuppressed(await deps.suppressionKeyOf(email)))))
  if (withdrawn) {
    deps.log.info('send-contact-email: this address withdrew earlier: no reply or webhook call')
    return []
  }
  const more: NewMessage[] = []
  const { site, form } = launch
  const reply =
    launch.reply &&
    (await composeReply(lead, {
      config: replyForLead(phaseReply(launch.reply.config), lead.fields),
      links: launch.reply.links,
      siteName: site.name,
      brokerage: site.brokerage,
      siteEmail: site.email,
      privacy: launch.privacy,
      form,
    }))
  if (reply) more.push({ kind: 'reply', mail: reply })
  if (deps.webhook) more.push({ kind: 'webhook', webhook: composeWebhook(lead, { siteName: site.name }) })
  return more
}
