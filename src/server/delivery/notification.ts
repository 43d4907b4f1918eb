import { servedFieldSchemas } from '../../../schema/registration-rules.ts'
import { phaseWords } from '../../../schema/phase-schedule.ts'
import { isRealtorLead } from './realtor.ts'
import { escapeHtml } from './escape-html.ts'
import { pageForMail, referrerForMail } from '../store/lead-evidence.ts'
import { headerSafe, messageDomain, singleAddress } from './mailer.ts'
import type { NewLead, OutgoingMail } from '../store/store.ts'

/** The parts of the form config the notification reads: field order, labels and option names. */
export type NotificationForm = {
  schema: { properties?: Record<string, unknown> }
  uiSchema?: Record<string, unknown>
}

/** What the notification needs besides the lead. */
export type NotificationSettings = {
  siteName: string
  /** site.brokerage: the registered name every message of the launch carries (TRESA/RECO). */
  brokerage: string
  /** Where it goes: NOTIFY_EMAIL, or the config's contact e-mail. */
  recipient: string
  /** An IANA time zone for the "Received" line, e.g. America/Toronto. */
  timeZone: string
  form: NotificationForm
  /** Who the lead is assigned to, in words (assignment.ts); absent: no line. */
  assignedTo?: string | undefined
}

type UiField = { 'ui:title'?: unknown; 'ui:enumNames'?: unknown }
type SchemaField = { title?: unknown; enum?: unknown; type?: unknown }

function uiFor(form: NotificationForm, field: string): UiField {
  const entry = form.uiSchema?.[field]
  return typeof entry === 'object' && entry !== null ? entry : {}
}

function schemaFor(form: NotificationForm, field: string): SchemaField {
  const entry = servedFieldSchemas(form.schema).get(field)
  return typeof entry === 'object' && entry !== null ? entry : {}
}

/** A field's fields in display order: uiSchema "ui:order" first, then the schema's order. */
export function orderedFields(form: NotificationForm): string[] {
  const fields = [...servedFieldSchemas(form.schema).keys()]
  const order = form.uiSchema?.['ui:order']
  const first = Array.isArray(order)
    ? order.filter((f): f is string => typeof f === 'string' && fields.includes(f))
    : []
  return [...first, ...fields.filter((f) => !first.includes(f))]
}

/**
 * The label a visitor saw for a field: uiSchema "ui:title", else the schema's title, else the field name. A
 * trailing required-marker asterisk is dropped ("Are you an agent? *" reads "Are you an agent?").
 */
export function fieldLabel(form: NotificationForm, field: string): string {
  const ui = uiFor(form, field)['ui:title']
  const title = schemaFor(form, field).title
  const label = typeof ui === 'string' && ui.trim() ? ui : typeof title === 'string' && title.trim() ? title : field
  return label.replace(/\s*\*+\s*$/, '').trim() || field
}

/** A field's value as the visitor chose it: option names for enums ("Yes" for "yes"), Yes/No for booleans. */
export function displayValue(form: NotificationForm, field: string, value: unknown): string {
  if (value === undefined || value === null || value === '') return '—'
  const options = schemaFor(form, field).enum
  const names = uiFor(form, field)['ui:enumNames']
  if (Array.isArray(options) && Array.isArray(names)) {
    const index = options.indexOf(value)
    const name: unknown = names[index]
    if (index !== -1 && typeof name === 'string') return name
  }
  if (typeof value === 'boolean') return value ? 'Yes' : 'No'
  return typeof value === 'string' ? value : JSON.stringify(value)
}

/**
 * A visitor's value as the team's mail shows it: nothing in it reads as a link (mail programs turn `www.x.example`,
 * `x.example/…` and `scheme://` into links), so a dot before a letter becomes `[.]` and `://` becomes `[:]//`.
 * The notification comes from a trusted sender; what a visitor wrote must not look like something the site sent.
 */
export function defangForMail(text: string): string {
  return text.replace(/:\/\//g, '[:]//').replace(/\.(?=\p{L})/gu, '[.]')
}

/**
 * A form value as the mail shows it: an e-mail address as it is (the team writes to it; Reply-To is the same), anything
 * else defanged.
 */
function shownInMail(value: string): string {
  return singleAddress(value) === value ? value : defangForMail(value)
}

// Building a DateTimeFormat costs far more than using one: keep one per time zone.
const formats = new Map<string, Intl.DateTimeFormat>()

// Formatting costs too (about 20 µs): the time shown has whole seconds, so the last one formatted is kept.
let lastFormatted = { second: '', timeZone: '', text: '' }

function formatTime(iso: string, timeZone: string): string {
  const second = iso.slice(0, 19)
  if (lastFormatted.second !== second || lastFormatted.timeZone !== timeZone) {
    let format = formats.get(timeZone)
    if (!format) {
      format = new Intl.DateTimeFormat('en-CA', { dateStyle: 'full', timeStyle: 'long', timeZone })
      formats.set(timeZone, format)
    }
    lastFormatted = { second, timeZone, text: format.format(new Date(iso)) }
  }
  return `${lastFormatted.text} (${iso})`
}

/**
 * The line at the foot of every mail to the team: which page sent it, and the brokerage's registered name (TRESA/RECO).
 */
export function teamMailSender(siteName: string, brokerage: string): string {
  return `Sent by the registration page of ${siteName}, ${brokerage}.`
}

/** A mail to the team as HTML: `body` (HTML, each part escaped by the caller), then `sender` in small grey type. */
export function teamMailHtml(body: string[], sender: string): string {
  return [
    '<!doctype html>',
    '<html><body style="font-family:system-ui,sans-serif;font-size:15px;color:#111">',
    ...body,
    `<p style="margin-top:16px;color:#555;font-size:13px">${escapeHtml(sender)}</p>`,
    '</body></html>',
  ].join('\n')
}

/** The Message-ID of a submission's notification to `recipient`. */
export function notificationMessageId(submissionId: string, recipient: string): string {
  return `<${submissionId}.notification@${messageDomain(recipient)}>`
}

/**
 * What the notification reads of a lead: a new one, or a stored one (composed when sent: src/server/compose-later.ts).
 */
export type NotifiedLead = Pick<
  NewLead,
  'submissionId' | 'createdAt' | 'fields' | 'utm' | 'phase' | 'pageUrl' | 'referrer' | 'consentText' | 'userAgent'
>

/**
 * Composes the sales team's notification for a lead: every field with its label, the time, where it came
 * from, and the brokerage's registered name at its foot; plain text and HTML with every value escaped. Header values
 * are stripped of line breaks, so no field
 * can add a header.
 */
export function composeLeadMail(lead: NotifiedLead, settings: NotificationSettings): OutgoingMail {
  const { form } = settings
  const rows: [string, string][] = orderedFields(form)
    .filter((field) => field in lead.fields)
    .map((field) => [fieldLabel(form, field), shownInMail(displayValue(form, field, lead.fields[field]))])
  const utm = Object.entries(lead.utm)
    .map(([k, v]) => defangForMail(`${k}=${v}`))
    .join(', ')
  const context: [string, string][] = [
    ...(settings.assignedTo ? ([['Assigned to', settings.assignedTo]] as [string, string][]) : []),
    ['Received', formatTime(lead.createdAt, settings.timeZone)],
    ...(lead.phase ? ([['Phase', phaseWords(lead.phase)]] as [string, string][]) : []),
    // The mail comes from a trusted sender: nothing the visitor wrote may read as a link in it.
    ['Page', pageForMail(lead.pageUrl)],
    ['Referrer', referrerForMail(lead.referrer)],
    ['UTM', utm || '—'],
    ['Consent shown', lead.consentText],
    ['Browser', lead.userAgent === null ? '—' : defangForMail(lead.userAgent)],
    ['Submission id', lead.submissionId],
  ]

  const name = typeof lead.fields.name === 'string' ? lead.fields.name : rows[0]?.[1]
  const subject = headerSafe(
    `New registration for ${settings.siteName}${name ? `: ${defangForMail(name)}` : ''}`,
  ).slice(0, 200)
  const heading = `New ${isRealtorLead(lead.fields) ? 'realtor ' : ''}registration for ${settings.siteName}`
  const sender = teamMailSender(settings.siteName, settings.brokerage)

  const text = [
    heading,
    '',
    ...rows.map(([k, v]) => `${k}: ${v}`),
    '',
    ...context.map(([k, v]) => `${k}: ${v}`),
    '',
    '--',
    sender,
    '',
  ].join('\n')

  const tr = ([k, v]: [string, string]) =>
    `<tr><th align="left" valign="top" style="padding:4px 12px 4px 0">${escapeHtml(k)}</th><td style="padding:4px 0;white-space:pre-wrap">${escapeHtml(v)}</td></tr>`
  const html = teamMailHtml(
    [
      `<h1 style="font-size:18px">${escapeHtml(heading)}</h1>`,
      `<table role="presentation" cellspacing="0" cellpadding="0">${rows.map(tr).join('')}</table>`,
      `<table role="presentation" cellspacing="0" cellpadding="0" style="margin-top:16px;color:#555;font-size:13px">${context.map(tr).join('')}</table>`,
    ],
    sender,
  )

  // Reply-To points at the visitor only when the field is exactly one plain address.
  const email = typeof lead.fields.email === 'string' ? singleAddress(lead.fields.email) : undefined
  return {
    to: headerSafe(settings.recipient),
    replyTo: email === lead.fields.email ? email : undefined,
    subject,
    text,
    html,
    messageId: notificationMessageId(lead.submissionId, settings.recipient),
    idempotencyKey: `${lead.submissionId}.notification`,
  }
}
