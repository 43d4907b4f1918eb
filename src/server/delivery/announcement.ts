/**
 * An announcement as each registrant receives it: the team's short message (plain text they typed: escaped, never
 * markup or a link of theirs) with what CASL asks of a commercial message, as the reply has it (reply.ts): who sends
 * it (the brokerage), how to reach them, the privacy page, and the registrant's own unsubscribe link, in the text and
 * in the List-Unsubscribe / List-Unsubscribe-Post headers (RFC 8058). Web-standard only.
 */
import type { ReplyConfig } from '../../../schema/reply.ts'
import { headerSafe, messageDomain, singleAddress } from './mailer.ts'
import { escapeHtml } from './escape-html.ts'
import type { LeadStore, OutgoingMail } from '../store/store.ts'
import { unsubscribeUrl, type LinkSettings } from './unsubscribe.ts'

/**
 * What an announcement of a launch needs besides its words: the launch's reply (sender, contact, unsubscribe words).
 */
export type AnnouncementMailSettings = {
  reply: ReplyConfig
  links: LinkSettings
  siteName: string
  /** site.brokerage: who sends the message (CASL, RECO). */
  brokerage: string
  /** site.email: where answers go unless reply.sender.replyTo says otherwise. */
  siteEmail: string
  privacy: { url: string; label: string }
}

/** A launch's announcement settings from its function contract (site, privacy, reply), or undefined without a reply. */
export function announcementMailOf<
  C extends {
    reply?: ReplyConfig | undefined
    site: { name: string; brokerage: string; email: string }
    privacy: { url: string; label: string }
  },
>(contract: C | undefined, links: (contract: C) => LinkSettings): AnnouncementMailSettings | undefined {
  if (!contract?.reply) return undefined
  return {
    reply: contract.reply,
    links: links(contract),
    siteName: contract.site.name,
    brokerage: contract.site.brokerage,
    siteEmail: contract.site.email,
    privacy: contract.privacy,
  }
}

/** What the team wrote. */
export type AnnouncementDraft = { subject: string; text: string }

/** Who the message goes to: a registrant (their own unsubscribe link), or the author's test copy (a sample link). */
export type AnnouncementRecipient = { email: string; submissionId: string } | { testTo: string }

/** The address that stands for each registrant's own link in a preview and a test copy. */
export const sampleUnsubscribeLink = '(each registrant’s own unsubscribe link)'

/** The words of the unsubscribe notice, {site} filled; any other placeholder (a registrant's field) left out. */
function noticeOf(reply: ReplyConfig, siteName: string): string {
  return reply.unsubscribe.notice.replaceAll('{site}', () => siteName).replace(/\s*\{[^{}]*\}/g, '')
}

/**
 * The message of announcement `key` to one recipient, or undefined when a registrant's e-mail is not exactly one plain
 * address. Message-ID `<submissionId.announcement-key@sender's domain>`: a copy sent again after a crash is the same.
 */
export async function composeAnnouncement(
  draft: AnnouncementDraft,
  key: string,
  recipient: AnnouncementRecipient,
  settings: AnnouncementMailSettings,
): Promise<OutgoingMail | undefined> {
  const to = singleAddress('testTo' in recipient ? recipient.testTo : recipient.email)
  if (!to) return undefined
  const { reply } = settings
  const link = 'testTo' in recipient ? undefined : await unsubscribeUrl(settings.links, recipient.submissionId)
  const contact = reply.brokerage
  const contactLine = [contact.phone, contact.email, contact.website].filter((v): v is string => !!v).join(' · ')
  const paragraphs = draft.text
    .split(/\n\s*\n/)
    .map((p) => p.trim())
    .filter((p) => p !== '')
  const notice = noticeOf(reply, settings.siteName)
  const text = [
    ...paragraphs.flatMap((p) => [p, '']),
    '--',
    settings.brokerage,
    contact.mailingAddress,
    contactLine,
    `${settings.privacy.label}: ${settings.privacy.url}`,
    '',
    notice,
    link ?? sampleUnsubscribeLink,
    '',
  ].join('\n')
  const p = (body: string, style = 'margin:0 0 16px') => `<p style="${style}">${body}</p>`
  const a = (href: string, label: string) =>
    `<a href="${escapeHtml(href)}" style="color:#1f3d2b">${escapeHtml(label)}</a>`
  const small = 'margin:0 0 8px;color:#555;font-size:13px'
  const html = [
    '<!doctype html>',
    '<html><body style="font-family:system-ui,sans-serif;font-size:16px;line-height:1.5;color:#111;max-width:600px">',
    // What the team typed is text: escaped, its line breaks kept, nothing of it a link or markup.
    ...paragraphs.map((para) => p(para.split('\n').map(escapeHtml).join('<br>'))),
    '<hr style="border:0;border-top:1px solid #ddd;margin:24px 0 16px">',
    p(
      [
        ...[settings.brokerage, contact.mailingAddress, contactLine].map(escapeHtml),
        a(settings.privacy.url, settings.privacy.label),
      ].join('<br>'),
      small,
    ),
    p(
      `${escapeHtml(notice)} ${link ? a(link, reply.unsubscribe.linkLabel) : escapeHtml(sampleUnsubscribeLink)}`,
      small,
    ),
    '</body></html>',
  ].join('\n')
  const domain = messageDomain(reply.sender.email)
  const id = 'testTo' in recipient ? `test-${crypto.randomUUID()}` : recipient.submissionId.toLowerCase()
  const subject = headerSafe(draft.subject).slice(0, 200)
  return {
    to,
    replyTo: singleAddress(reply.sender.replyTo ?? settings.siteEmail),
    fromName: reply.sender.name,
    subject: 'testTo' in recipient ? `[Test] ${subject}` : subject,
    text,
    html,
    messageId: `<${id}.announcement-${key}@${domain}>`,
    idempotencyKey: `${id}.announcement-${key}`,
    ...(link
      ? { headers: { 'List-Unsubscribe': `<${link}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' } }
      : {}),
  }
}

/** How long after an announcement to a launch's list another one needs an owner's confirmation. */
export const announcementGapMs = 24 * 3_600_000

/** Who asks to send an announcement, as the daily limit reads them. */
export type AnnouncementSender = { owner: boolean; confirmed: boolean }

/**
 * The daily limit on a launch's list: at most one announcement (from the leads page or a phase's start) in any 24
 * hours, unless an owner confirms a second. Undefined when this send may go; else why not, and whether the sender may
 * confirm (an owner who has not yet).
 */
export async function checkAnnouncementVolume(
  store: Pick<LeadStore, 'listAnnouncements'>,
  launch: string,
  now: Date,
  sender: AnnouncementSender,
): Promise<{ refusal: string; mayConfirm: boolean } | undefined> {
  const since = now.getTime() - announcementGapMs
  const recent = (await store.listAnnouncements([launch])).find(
    (announcement) => announcement.launch === launch && Date.parse(announcement.createdAt) > since,
  )
  if (!recent || (sender.owner && sender.confirmed)) return undefined
  const already = `An announcement already went to this launch's list in the last 24 hours ("${recent.subject}", sent by ${recent.author}): one a day is the limit.`
  return sender.owner
    ? { refusal: `${already} Tick "Send a second one today" to confirm, then send again.`, mayConfirm: true }
    : { refusal: `${already} A second one needs an owner of the studio: ask one to send it.`, mayConfirm: false }
}
