/**
 * The messages queued with a new lead besides its notification: the reply (the phase's words; a realtor's own, see
 * realtor.ts) and the CRM's webhook call. None for an address that withdrew (CASL), whether still among the leads or
 * only on the suppression list. Web-standard only: the Deno function runs it too.
 */
import type { ReplyConfig } from '../../../schema/reply.ts'
import { documentsOffered, type FunctionDocuments } from '../../../schema/documents.ts'
import { isDoNotContact, singleAddress } from './mailer.ts'
import { isRealtorLead, replyForLead } from './realtor.ts'
import { composeReply, replyMessageId, type ReplySettings } from './reply.ts'
import { documentLinksFor } from './document-links.ts'
import { composeWebhook } from './webhook.ts'
import { worksheetUrl } from './document-links.ts'
import { hasWorksheetWindow, type WorksheetPhases, type WorksheetTexts } from '../../../schema/worksheets.ts'
import { deliverySettings } from './settings.ts'
import type { NotificationForm } from './notification.ts'
import type { LinkSettings } from './unsubscribe.ts'
import type { AddressKey, LeadStore, NewLead, NewMessage, OutgoingMail } from '../store/store.ts'

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
  /** The launch's documents: each reply links those offered in the lead's phase, to its kind (buyer or realtor). */
  documents?: FunctionDocuments | undefined
  /** The worksheets' words, when this server serves the launch's worksheet page: a realtor's reply links it. */
  worksheets?: { texts: WorksheetTexts } | undefined
  /** The launch's phases: their worksheet windows say whether the realtor's reply links the worksheet page. */
  phases?: WorksheetPhases | undefined
}

/** A realtor's link to the worksheet page, while the launch has a worksheet window open or ahead at `now`. */
async function worksheetLinkFor(
  lead: Pick<NewLead, 'fields' | 'submissionId'>,
  launch: FollowUpLaunch & { reply: NonNullable<FollowUpLaunch['reply']> },
  now: Date,
): Promise<ReplySettings['worksheetLink']> {
  const { worksheets, phases } = launch
  const zone = phases?.timeZone ?? deliverySettings.NOTIFY_TIME_ZONE.default
  if (!worksheets || !isRealtorLead(lead.fields) || !hasWorksheetWindow(phases, zone, now.getTime())) return undefined
  return { label: worksheets.texts.replyLinkLabel, url: await worksheetUrl(launch.reply.links, lead.submissionId) }
}

/** The reply's settings for a lead of `launch` (which has a reply), its document links made at `now`. */
async function replySettingsFor(
  lead: Pick<NewLead, 'fields' | 'submissionId' | 'phase'>,
  launch: FollowUpLaunch & { reply: NonNullable<FollowUpLaunch['reply']> },
  config: ReplyConfig,
  now: Date,
): Promise<ReplySettings> {
  const { site, documents } = launch
  const offered = documents ? documentsOffered(documents.list, lead.phase, isRealtorLead(lead.fields)) : []
  return {
    config: replyForLead(config, lead.fields),
    links: launch.reply.links,
    siteName: site.name,
    brokerage: site.brokerage,
    siteEmail: site.email,
    privacy: launch.privacy,
    form: launch.form,
    documentLinks:
      documents && offered.length > 0
        ? await documentLinksFor(launch.reply.links, lead.submissionId, offered, now, documents.linkDays)
        : [],
    worksheetLink: await worksheetLinkFor(lead, launch, now),
  }
}

/**
 * The e-mail with fresh links to a lead's documents (asked for from an expired or wrong link): the reply's sender,
 * signature, brokerage contact and unsubscribe, the documents' own subject and first line, and the links made at
 * `now`. Undefined when the launch has no reply or documents, none is offered to the lead, or its address is not one.
 */
export async function composeDocumentsReply(
  lead: Pick<NewLead, 'fields' | 'submissionId' | 'phase'>,
  launch: FollowUpLaunch,
  phaseReply: (config: ReplyConfig) => ReplyConfig,
  now: Date,
): Promise<OutgoingMail | undefined> {
  const { reply, documents } = launch
  if (!reply || !documents) return undefined
  const settings = await replySettingsFor(lead, { ...launch, reply }, phaseReply(reply.config), now)
  if (!settings.documentLinks?.length) return undefined
  const { documents: _links, documentsHeading: _heading, realtor: _realtor, ...words } = settings.config
  const config: ReplyConfig = { ...words, subject: documents.texts.subject, paragraphs: [documents.texts.intro] }
  const mail = await composeReply(lead, { ...settings, config })
  if (!mail) return undefined
  // Each fresh-link e-mail is a message of its own: the same lead may ask again another day.
  const stamp = now.getTime().toString(36)
  return {
    ...mail,
    messageId: mail.messageId.replace('.reply@', () => `.documents-${stamp}@`),
    idempotencyKey: `${lead.submissionId}.documents.${stamp}`,
  }
}

/**
 * The reply to `lead` in its phase (`phaseReply`), with its document links made for the time it registered (so a copy
 * composed again after a crash is the same), or undefined when the launch has no reply or the lead's e-mail is not one
 * plain address.
 */
export async function composeLeadReply(
  lead: Pick<NewLead, 'fields' | 'submissionId' | 'phase' | 'createdAt'>,
  launch: FollowUpLaunch,
  phaseReply: (config: ReplyConfig) => ReplyConfig,
): Promise<OutgoingMail | undefined> {
  if (!launch.reply) return undefined
  return composeReply(
    lead,
    await replySettingsFor(
      lead,
      { ...launch, reply: launch.reply },
      phaseReply(launch.reply.config),
      new Date(lead.createdAt),
    ),
  )
}

/**
 * The reply and the webhook call to queue with `lead`; `phaseReply` gives the reply in the lead's phase. With `later`,
 * the reply is queued as what to send (store.ts LaterMail), composed by the delivery process when it goes.
 */
export async function followUpMessages(
  deps: FollowUpDeps,
  lead: NewLead,
  launch: FollowUpLaunch,
  phaseReply: (config: ReplyConfig) => ReplyConfig,
  later = false,
): Promise<NewMessage[]> {
  if (!launch.reply && !deps.webhook) return []
  const email = typeof lead.fields.email === 'string' ? singleAddress(lead.fields.email) : undefined
  const withdrawn = email !== undefined && (await isDoNotContact(deps.store, deps.suppressionKeyOf, email))
  if (withdrawn) {
    deps.log.info('send-contact-email: this address withdrew earlier: no reply or webhook call')
    return []
  }
  const more: NewMessage[] = []
  const { site } = launch
  if (launch.reply && later) {
    // Queued only when composing it could give an e-mail: the launch has a reply and the address is one plain address.
    if (email !== undefined)
      more.push({
        kind: 'reply',
        mail: {
          compose: 'reply',
          to: email,
          messageId: replyMessageId(lead.submissionId, replyForLead(phaseReply(launch.reply.config), lead.fields)),
        },
      })
  } else {
    const reply = await composeLeadReply(lead, launch, phaseReply)
    if (reply) more.push({ kind: 'reply', mail: reply })
  }
  if (deps.webhook) more.push({ kind: 'webhook', webhook: composeWebhook(lead, { siteName: site.name }) })
  return more
}
