/**
 * The messages of a worksheet received (issue 45), queued in its transaction (store.saveWorksheet): the confirmation
 * to the realtor and to the co-op desk (launch.realtorEmail, else the notification address), in the config's words
 * (page.config.json `worksheets.texts`), and the CRM's `worksheet.received` call when a webhook is set. Every value is
 * escaped in the HTML; the subject is made header-safe. Web-standard only.
 */
import { fillWorksheetText, type WorksheetTexts } from '../../../schema/worksheets.ts'
import { escapeHtml } from '../delivery/escape-html.ts'
import { headerSafe, messageDomain } from '../delivery/mailer.ts'
import type { OutgoingMail } from '../store/messages.ts'
import type { StoredWorksheet, WorksheetChoice, WorksheetMessage } from '../store/release.ts'

/** What the confirmation needs besides the worksheet. */
export type ReceivedContext = {
  siteName: string
  texts: WorksheetTexts
  /** The co-op desk: launch.realtorEmail, else the launch's notification address. */
  desk: string
  /** The sender's display name (the reply's sender, else the site's name). */
  fromName: string
  /** The realtor as the mail names them: their registered name, else their address. */
  realtorName: string
  /** The received time in the launch's words and time zone. */
  time: string
  /** Queue the CRM's worksheet.received call (WEBHOOK_URL set). */
  webhook: boolean
  newId: () => string
}

/** A choice in the texts' words ("Lot 14 — Maple", "Any lot — Maple"). */
export function choiceWords(choice: WorksheetChoice, texts: WorksheetTexts): string {
  return choice.lot === null
    ? fillWorksheetText(texts.anyLotOption, { model: choice.model })
    : fillWorksheetText(texts.lotOption, { lot: choice.lot, model: choice.model })
}

function confirmation(worksheet: StoredWorksheet, ctx: ReceivedContext, to: string, who: string): OutgoingMail {
  const t = ctx.texts
  const values = {
    site: ctx.siteName,
    number: worksheet.number,
    client: worksheet.clientName,
    realtor: ctx.realtorName,
    time: ctx.time,
  }
  const lines = [
    fillWorksheetText(t.confirmationText, values),
    [worksheet.clientName, worksheet.clientEmail, worksheet.clientPhone].filter((v) => v !== '').join(' · '),
  ]
  const choices = worksheet.choices.map((choice, i) => `${i + 1}. ${choiceWords(choice, t)}`)
  const deposit = `${t.depositHeading}: ${t.depositStructure} (${t.depositAccept})`
  const notes = worksheet.notes === '' ? [] : [`${t.notes}: ${worksheet.notes}`]
  const key = `worksheet-${worksheet.id}-received-${who}`
  const p = (text: string) => `<p style="margin:0 0 16px">${escapeHtml(text)}</p>`
  return {
    to,
    fromName: ctx.fromName,
    subject: headerSafe(fillWorksheetText(t.confirmationSubject, values)).slice(0, 200),
    text: [...lines, '', t.confirmationChoices, ...choices, '', deposit, ...notes, ''].join('\n'),
    html: [
      '<!doctype html>',
      '<html><body style="font-family:system-ui,sans-serif;font-size:16px;line-height:1.5;color:#111;max-width:600px">',
      ...lines.map(p),
      p(t.confirmationChoices),
      `<ol style="margin:0 0 16px">${worksheet.choices.map((c) => `<li>${escapeHtml(choiceWords(c, t))}</li>`).join('')}</ol>`,
      p(deposit),
      ...notes.map(p),
      '</body></html>',
    ].join('\n'),
    messageId: `<${key}@${messageDomain(to)}>`,
    idempotencyKey: key,
  }
}

/** The CRM's call: the worksheet as received (its number, client, choices, deposit and notes). */
function receivedWebhook(worksheet: StoredWorksheet, ctx: ReceivedContext): WorksheetMessage {
  const body = JSON.stringify({
    type: 'worksheet.received',
    timestamp: worksheet.receivedAt,
    data: {
      launch: worksheet.launch,
      site: ctx.siteName,
      worksheet: worksheet.number,
      receivedAt: worksheet.receivedAt,
      realtor: { name: ctx.realtorName, email: worksheet.realtorEmail },
      client: { name: worksheet.clientName, email: worksheet.clientEmail, phone: worksheet.clientPhone },
      choices: worksheet.choices,
      depositAccepted: worksheet.depositAccepted,
      notes: worksheet.notes,
    },
  })
  return { kind: 'webhook', event: 'received.webhook', webhook: { id: ctx.newId(), body } }
}

/** The messages to queue with a worksheet just numbered. */
export function receivedMessages(worksheet: StoredWorksheet, ctx: ReceivedContext): WorksheetMessage[] {
  return [
    { kind: 'reply', event: 'received', mail: confirmation(worksheet, ctx, worksheet.realtorEmail, 'realtor') },
    { kind: 'notification', event: 'received.desk', mail: confirmation(worksheet, ctx, ctx.desk, 'desk') },
    ...(ctx.webhook ? [receivedWebhook(worksheet, ctx)] : []),
  ]
}

/** What the e-mail with a realtor's worksheet link needs. */
export type LinkMailContext = {
  siteName: string
  texts: WorksheetTexts
  fromName: string
  /** The realtor's registered address: the link goes there, never to an address typed in the request. */
  to: string
  /** The realtor's signed link (delivery/document-links.ts: worksheetUrl). */
  url: string
  /** Makes the message's id unique to this request: a realtor may ask again later. */
  newId: () => string
}

/** The e-mail a realtor asked for on the worksheet link page: their signed link, in the config's words. */
export function linkMail(ctx: LinkMailContext): OutgoingMail {
  const t = ctx.texts
  const fill = (text: string) => fillWorksheetText(text, { site: ctx.siteName })
  const key = `worksheet-link-${ctx.newId()}`
  return {
    to: ctx.to,
    fromName: ctx.fromName,
    subject: headerSafe(fill(t.linkMailSubject)).slice(0, 200),
    text: [fill(t.linkMailText), '', `${t.replyLinkLabel}: ${ctx.url}`, ''].join('\n'),
    html: [
      '<!doctype html>',
      '<html><body style="font-family:system-ui,sans-serif;font-size:16px;line-height:1.5;color:#111;max-width:600px">',
      `<p style="margin:0 0 16px">${escapeHtml(fill(t.linkMailText))}</p>`,
      `<p style="margin:0 0 16px"><a href="${escapeHtml(ctx.url)}">${escapeHtml(t.replyLinkLabel)}</a></p>`,
      '</body></html>',
    ].join('\n'),
    messageId: `<${key}@${messageDomain(ctx.to)}>`,
    idempotencyKey: key,
  }
}
