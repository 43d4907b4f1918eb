/**
 * The e-mail each registrant receives (page.config.json `reply`), queued in the outbox with the lead. Plain text and
 * HTML, every value escaped; with what CASL asks of a commercial message: who sends it (the brokerage's registered
 * name, which RECO asks for too), a mailing address and a way to reach them, the privacy page, and a working way to say
 * no (an unsubscribe link in the text, and the
 * List-Unsubscribe / List-Unsubscribe-Post headers of RFC 8058 so mail programs offer it in one click).
 */
import type { ReplyConfig } from '../../../schema/reply.ts'
import { isReplyPlaceholder, replyName, replyPhone } from '../../../schema/reply-placeholders.ts'
import { headerSafe, messageDomain, singleAddress } from './mailer.ts'
import { escapeHtml } from './escape-html.ts'
import { servedFieldSchemas } from '../../../schema/registration-rules.ts'
import { displayValue, type NotificationForm } from './notification.ts'
import type { NewLead, OutgoingMail } from '../store/store.ts'
import { unsubscribeUrl, type LinkSettings } from './unsubscribe.ts'
import type { DocumentLink } from './document-links.ts'

/** What the reply needs besides the lead. */
export type ReplySettings = {
  config: ReplyConfig
  siteName: string
  /** site.brokerage: who sends the message (CASL). */
  brokerage: string
  /** site.email: where answers go unless reply.sender.replyTo says otherwise. */
  siteEmail: string
  /** The launch's privacy page, linked at the foot of every reply. */
  privacy: { url: string; label: string }
  form: NotificationForm
  links: LinkSettings
  /**
   * The registrant's own links to the launch's documents offered to them (document-links.ts), listed before the plain
   * links.
   */
  documentLinks?: DocumentLink[] | undefined
  /** A realtor's own link to the launch's worksheet page (delivery/document-links.ts), after the paragraphs. */
  worksheetLink?: { label: string; url: string } | undefined
}

/**
 * A text with {site} and the placeholders a reply may hold filled in (schema/reply-placeholders.ts): {name} only when
 * it reads as a name, {phone} normalised, a list field's option name. Anything else the visitor typed never reaches
 * the reply: such a placeholder (which the checker refuses) and one without a value go, with the space before them,
 * so "Hi {name}," greets "Hi," when the name is not one.
 */
export function fillPlaceholders(
  text: string,
  lead: Pick<NewLead, 'fields'>,
  settings: Pick<ReplySettings, 'siteName' | 'form'>,
): string {
  const fields = servedFieldSchemas(settings.form.schema)
  return text.replace(/(\s*)\{([^{}]*)\}/g, (whole, space: string, name: string) => {
    if (name === 'site') return `${space}${settings.siteName}`
    if (!fields.has(name)) return whole
    const value = lead.fields[name]
    const shown =
      !isReplyPlaceholder(name, fields.get(name)) || value === undefined || value === null || value === ''
        ? undefined
        : name === 'name'
          ? replyName(value)
          : name === 'phone'
            ? replyPhone(value)
            : displayValue(settings.form, name, value)
    return shown === undefined ? '' : `${space}${shown}`
  })
}

/** The Message-ID of the reply to a submission, by the sender of its words (`config`, the lead's own: realtor.ts). */
export function replyMessageId(submissionId: string, config: Pick<ReplyConfig, 'sender'>): string {
  return `<${submissionId}.reply@${messageDomain(config.sender.email)}>`
}

/**
 * Composes the reply to a new lead, or undefined when its e-mail field is not exactly one plain address (nothing
 * could be delivered). Message-ID `<submissionId.reply@sender's domain>`, idempotency key `submissionId.reply`.
 */
export async function composeReply(
  lead: Pick<NewLead, 'fields' | 'submissionId'>,
  settings: ReplySettings,
): Promise<OutgoingMail | undefined> {
  const to = typeof lead.fields.email === 'string' ? singleAddress(lead.fields.email) : undefined
  if (!to) return undefined
  const { config } = settings
  const fill = (text: string) => fillPlaceholders(text, lead, settings)
  const link = await unsubscribeUrl(settings.links, lead.submissionId)
  const contact = config.brokerage
  const contactLine = [contact.phone, contact.email, contact.website].filter((v): v is string => !!v)
  // The launch's documents (each a personal, signed link), then the plain links the config names.
  const documents = [
    ...(settings.documentLinks ?? []).map((d) => ({ label: d.title, url: d.url })),
    ...(config.documents ?? []),
  ]

  const text = [
    fill(config.greeting),
    '',
    ...config.paragraphs.flatMap((p) => [fill(p), '']),
    ...(settings.worksheetLink ? [`${settings.worksheetLink.label}: ${settings.worksheetLink.url}`, ''] : []),
    ...(documents.length > 0
      ? [config.documentsHeading ?? '', ...documents.map((d) => `- ${d.label}: ${d.url}`), '']
      : []),
    ...config.signature,
    '',
    '--',
    settings.brokerage,
    contact.mailingAddress,
    contactLine.join(' · '),
    `${settings.privacy.label}: ${settings.privacy.url}`,
    '',
    fill(config.unsubscribe.notice),
    link,
    '',
  ].join('\n')

  const p = (body: string, style = 'margin:0 0 16px') => `<p style="${style}">${body}</p>`
  const a = (href: string, label: string) =>
    `<a href="${escapeHtml(href)}" style="color:#1f3d2b">${escapeHtml(label)}</a>`
  const small = 'margin:0 0 8px;color:#555;font-size:13px'
  const html = [
    '<!doctype html>',
    '<html><body style="font-family:system-ui,sans-serif;font-size:16px;line-height:1.5;color:#111;max-width:600px">',
    p(escapeHtml(fill(config.greeting))),
    ...config.paragraphs.map((text) => p(escapeHtml(fill(text)))),
    ...(settings.worksheetLink ? [p(a(settings.worksheetLink.url, settings.worksheetLink.label))] : []),
    ...(documents.length > 0
      ? [
          config.documentsHeading ? p(escapeHtml(config.documentsHeading), 'margin:0 0 8px') : '',
          `<ul style="margin:0 0 16px">${documents.map((d) => `<li>${a(d.url, d.label)}</li>`).join('')}</ul>`,
        ]
      : []),
    p(config.signature.map(escapeHtml).join('<br>')),
    '<hr style="border:0;border-top:1px solid #ddd;margin:24px 0 16px">',
    p(
      [
        ...[settings.brokerage, contact.mailingAddress, contactLine.join(' · ')].map(escapeHtml),
        a(settings.privacy.url, settings.privacy.label),
      ].join('<br>'),
      small,
    ),
    p(`${escapeHtml(fill(config.unsubscribe.notice))} ${a(link, config.unsubscribe.linkLabel)}`, small),
    '</body></html>',
  ].join('\n')

  const sender = config.sender
  return {
    to,
    replyTo: singleAddress(sender.replyTo ?? settings.siteEmail),
    fromName: sender.name,
    subject: headerSafe(fill(config.subject)).slice(0, 200),
    text,
    html,
    messageId: replyMessageId(lead.submissionId, config),
    idempotencyKey: `${lead.submissionId}.reply`,
    headers: { 'List-Unsubscribe': `<${link}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' },
  }
}
