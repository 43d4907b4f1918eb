import {
  announcementGapMs,
  checkAnnouncementVolume,
  composeAnnouncement,
  type AnnouncementMailSettings,
} from '../delivery/announcement.ts'
import { listRecipients } from '../store/announcements.ts'
import type { AddressKey, LeadStore } from '../store/store.ts'
import { announcementLimits } from '../../../schema/phases.ts'
import type { AnnouncementForm } from './announcement-view.ts'
import type { LeadsAudit, Viewer } from './viewers.ts'

/**
 * Announcements to a launch's list (the page: routes/announcements.ts). Who may send: a studio account with role
 * owner or editor, or a sales account given every launch (the sales manager), each only to the launches it may see;
 * a sales account limited to some launches, and the shared LEADS_PASSWORD, may not (a message to the list is sent by a
 * person the audit log names). A send queues one 'announcement' message per registrant who may receive marketing now
 * (AnnouncementStore.listMarketableLeads, one per address, never an address on the suppression list) in one
 * transaction, and the outbox sends them. The test copy goes to the signed-in account's own address through the outbox
 * too (a message of no lead), so a mail server that is down delays it rather than losing it.
 */

/** What sending announcements needs from the entry; absent: the page says announcements are off. */
export type AnnouncementDeps = {
  /**
   * The launch's mail settings (its reply's sender and unsubscribe words, its link secret), or undefined without a
   * reply.
   */
  mailOf(launch: string): AnnouncementMailSettings | undefined
  /** The suppression list's key of an address (suppression.ts). */
  suppressionKeyOf(email: string): Promise<AddressKey>
}

/** What a send uses of the leads page. */
export type AnnouncementSendDeps = {
  store: Pick<
    LeadStore,
    'isSuppressed' | 'listMarketableLeads' | 'saveAnnouncement' | 'queueTestAnnouncement' | 'listAnnouncements'
  >
  announcements: AnnouncementDeps | undefined
  audit: LeadsAudit
  onQueued?: (() => void) | undefined
}

/**
 * Whether a viewer may send announcements at all: an owner or editor account, or a sales account given every launch.
 */
export function maySendAnnouncements(viewer: Viewer): boolean {
  const account = viewer.account
  if (!account) return false
  return account.role === 'owner' || account.role === 'editor' || account.launches === undefined
}

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

/**
 * The announcement form as sent: trimmed, line ends made \n, its key kept when it is one (a send's idempotency key).
 */
export function readAnnouncementForm(body: Record<string, unknown>): AnnouncementForm {
  const read = (name: string) => {
    const value = body[name]
    return typeof value === 'string' ? value : ''
  }
  return {
    launch: read('launch').trim(),
    subject: read('subject').trim(),
    text: read('text').replace(/\r\n?/g, '\n').trim(),
    key: uuid.test(read('key')) ? read('key') : crypto.randomUUID(),
  }
}

/** What is wrong with a subject and a message, in words for the sender; undefined when they may go. */
export function announcementProblem(form: AnnouncementForm): string | undefined {
  if (form.subject === '' || form.text === '') return 'Write a subject and a message first.'
  if (form.subject.length > announcementLimits.subject)
    return `A subject can be at most ${announcementLimits.subject} characters: this one has ${form.subject.length}.`
  if (form.text.length > announcementLimits.text)
    return `A message can be at most ${announcementLimits.text} characters: this one has ${form.text.length}. Shorten it.`
  if (/[\p{Cc}\p{Cf}]/u.test(form.subject) || /[\p{Cf}]|[^\P{Cc}\n\t]/u.test(form.text))
    return 'Remove the invisible or control characters from the subject or message.'
  return undefined
}

/** The registrants of a launch who may receive marketing now (store/announcements.ts, as at a phase's start). */
export function recipientsOf(deps: AnnouncementSendDeps, launch: string, now: Date) {
  return listRecipients(deps.store, launch, now, (email) => deps.announcements!.suppressionKeyOf(email))
}

/** Queues a test copy to the sender's own address; the problem in words when that address cannot receive mail. */
export async function sendTestAnnouncement(
  deps: AnnouncementSendDeps,
  viewer: Viewer,
  form: AnnouncementForm,
  settings: AnnouncementMailSettings,
  now: Date,
): Promise<{ to: string } | { problem: string }> {
  const to = viewer.account!.email
  const mail = await composeAnnouncement(form, 'test', { testTo: to }, settings)
  if (!mail) return { problem: "Your account's address cannot receive mail: ask an owner to check it." }
  await deps.store.queueTestAnnouncement(mail, now)
  deps.onQueued?.()
  await deps.audit({ who: viewer.who, action: 'sent a test announcement to themselves', launch: form.launch })
  return { to }
}

/**
 * Queues the announcement to every registrant who may receive it, once per form (its key): the same form sent again
 * (a double click, a reload of the answer) answers with the first send's count. The problem in words when no one may.
 */
export async function sendAnnouncement(
  deps: AnnouncementSendDeps,
  viewer: Viewer,
  form: AnnouncementForm,
  settings: AnnouncementMailSettings,
  now: Date,
  confirmed = false,
): Promise<{ queued: number } | { problem: string; limited?: { mayConfirm: boolean } }> {
  const sentBefore = async () =>
    (await deps.store.listAnnouncements(viewer.launches)).find((announcement) => announcement.key === form.key)
  const already = await sentBefore()
  if (already) return { queued: already.recipients }
  // One a day to a launch's list unless an owner confirms a second (delivery/announcement.ts).
  const sender = { owner: viewer.account!.role === 'owner', confirmed }
  const limit = await checkAnnouncementVolume(deps.store, form.launch, now, sender)
  if (limit) {
    await deps.audit({ who: viewer.who, action: 'refused a second announcement within a day', launch: form.launch })
    return { problem: limit.refusal, limited: { mayConfirm: limit.mayConfirm } }
  }
  const recipients = await recipientsOf(deps, form.launch, now)
  if (recipients.length === 0)
    return { problem: 'No registrant of this launch may receive marketing now: nothing was sent.' }
  const messages = []
  for (const lead of recipients) {
    const recipient = { email: String(lead.fields.email), submissionId: lead.submissionId }
    const mail = await composeAnnouncement(form, form.key, recipient, settings)
    if (mail) messages.push({ leadId: lead.id, mail })
  }
  const { key, launch, subject, text } = form
  // Checked again where it is stored, in the same transaction: another sender may have passed the check above.
  const quietSince = sender.owner && confirmed ? undefined : new Date(now.getTime() - announcementGapMs).toISOString()
  let saved: { id: number; recipients: number } | undefined
  try {
    saved = await deps.store.saveAnnouncement(
      { key, launch, subject, text, author: viewer.account!.email, createdAt: now.toISOString() },
      messages,
      quietSince,
    )
  } catch (error) {
    // Two clicks at once: the key is unique, so the second insert is refused and nothing of it is kept.
    const first = await sentBefore()
    if (first) return { queued: first.recipients }
    throw error
  }
  if (!saved) {
    // The same form posted twice at once: the first of them was stored, and this one is it.
    const first = await sentBefore()
    if (first) return { queued: first.recipients }
    const raced = await checkAnnouncementVolume(deps.store, form.launch, now, sender)
    await deps.audit({ who: viewer.who, action: 'refused a second announcement within a day', launch: form.launch })
    const refusal = raced?.refusal ?? 'Another announcement to this launch was just sent: nothing was sent.'
    return { problem: refusal, limited: { mayConfirm: raced?.mayConfirm ?? sender.owner } }
  }
  await deps.audit({
    who: viewer.who,
    action: 'sent an announcement',
    launch,
    detail: `announcement ${saved.id} to ${saved.recipients} registrants, sent by ${viewer.account!.email}${sender.owner && confirmed ? ' (a second within a day, confirmed by this owner)' : ''}`,
  })
  deps.onQueued?.()
  return { queued: saved.recipients }
}
