/**
 * The CRM webhook: every new lead (lead.created), every change of its follow-up on the leads page (lead.updated) and
 * every opening of one of its document links (document.opened), POSTed as JSON to WEBHOOK_URL through the outbox.
 * Web-standard only (fetch,
 * crypto.subtle), so the Node server and the Deno function send the same bytes. The wire format (docs/webhook.md):
 *
 *   POST <WEBHOOK_URL>
 *   content-type: application/json
 *   webhook-id: <submission id>                 the idempotency key: the same on every retry of this lead
 *   webhook-timestamp: <unix seconds>           when this attempt was signed
 *   webhook-signature: t=<unix seconds>,v1=<hex HMAC-SHA256(WEBHOOK_SECRET, "<t>.<body>")>
 *   { "type": "lead.created", "timestamp": "<ISO>", "data": { submissionId, createdAt, launch, site, fields, … } }
 *
 * Header names and retry schedule as Standard Webhooks; the signature as Stripe's (t=…,v1=…, over timestamp.body).
 * Only a 2xx answer counts as delivered; 408, 429, 5xx and network errors are retried, other answers end it failed.
 */
import { isRealtorLead } from './realtor.ts'
import { timingSafeEqual } from 'hono/utils/buffer'
import { DeliveryError, isPermanentHttpStatus } from './delivery-error.ts'
import type { WebhookSender } from './outbox.ts'
import type { NewLead, WebhookMessage } from '../store/store.ts'
import { impliedConsentEnd } from '../store/consent.ts'

/** What the webhook payload names besides the lead. */
export type WebhookContext = { siteName: string }

/** The queued webhook call for a new lead: its exact body, and the submission id as idempotency key. */
export function composeWebhook(lead: NewLead, context: WebhookContext): WebhookMessage {
  const body = JSON.stringify({
    type: 'lead.created',
    timestamp: lead.createdAt,
    data: {
      submissionId: lead.submissionId,
      createdAt: lead.createdAt,
      launch: lead.launch,
      // The launch's phase it was registered in (page.config.json "phases"); null for a launch without phases.
      phase: lead.phase ?? null,
      site: context.siteName,
      // Whether a realtor registered (the form's isRealtor is yes): the CRM routes it to the co-op desk.
      realtor: isRealtorLead(lead.fields),
      fields: lead.fields,
      consentText: lead.consentText,
      // CASL: 'express' (the updates box ticked) or 'implied' by the inquiry, which ends at impliedConsentUntil.
      consentKind: lead.consentKind ?? 'implied',
      impliedConsentUntil:
        lead.consentKind === 'express' ? null : (lead.impliedConsentUntil ?? impliedConsentEnd(lead.createdAt)),
      pageUrl: lead.pageUrl,
      referrer: lead.referrer,
      utm: lead.utm,
    },
  })
  return { id: lead.submissionId, body }
}

/** One change of a lead's follow-up on the leads page, and where the lead stands after it. */
export type LeadUpdate = {
  /** A fresh id for this event: its idempotency key (webhook-id), the same on every retry of it. */
  eventId: string
  lead: { submissionId: string; launch: string }
  siteName: string
  change: { kind: 'status' | 'assignee' | 'note'; value: string }
  /** Where the follow-up stands after the change (status: the launch's first when never set). */
  status: string
  assignee: string
  /** Who made the change: the account's e-mail, or the shared password's words. */
  by: string
  /** ISO 8601, UTC. */
  at: string
}

/**
 * The queued webhook call for a change of a lead's follow-up (`lead.updated`), signed and sent like lead.created:
 * the event id as idempotency key, the lead by its submission id (as lead.created named it), no other personal data.
 */
export function composeLeadUpdate(update: LeadUpdate): WebhookMessage {
  const body = JSON.stringify({
    type: 'lead.updated',
    timestamp: update.at,
    data: {
      submissionId: update.lead.submissionId,
      launch: update.lead.launch,
      site: update.siteName,
      change: update.change,
      status: update.status,
      assignee: update.assignee || null,
      updatedBy: update.by,
      updatedAt: update.at,
    },
  })
  return { id: update.eventId, body }
}

/** One opening of a document link (document-routes.ts). */
export type DocumentOpened = {
  /** A fresh id for this event: its idempotency key (webhook-id), the same on every retry of it. */
  eventId: string
  lead: { submissionId: string; launch: string }
  siteName: string
  document: { id: string; title: string }
  /** ISO 8601, UTC. */
  openedAt: string
}

/**
 * The queued webhook call for an opening of a document link (`document.opened`), signed and sent like lead.created:
 * the event id as idempotency key, the lead by its submission id, no other personal data.
 */
export function composeDocumentOpened(opened: DocumentOpened): WebhookMessage {
  const body = JSON.stringify({
    type: 'document.opened',
    timestamp: opened.openedAt,
    data: {
      submissionId: opened.lead.submissionId,
      launch: opened.lead.launch,
      site: opened.siteName,
      document: opened.document.id,
      title: opened.document.title,
      openedAt: opened.openedAt,
    },
  })
  return { id: opened.eventId, body }
}

const encoder = new TextEncoder()

async function hmacHex(secret: string, text: string): Promise<string> {
  const key = await crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, [
    'sign',
  ])
  const mac = new Uint8Array(await crypto.subtle.sign('HMAC', key, encoder.encode(text)))
  return Array.from(mac, (b) => b.toString(16).padStart(2, '0')).join('')
}

/** The webhook-signature header for `body` signed at `timestamp` (unix seconds): `t=<timestamp>,v1=<hex>`. */
export async function signWebhook(secret: string, timestamp: number, body: string): Promise<string> {
  return `t=${timestamp},v1=${await hmacHex(secret, `${timestamp}.${body}`)}`
}

/**
 * Whether a webhook-signature header is valid for `body` and no older (or newer) than `toleranceSeconds` (default
 * 300): what a receiver checks. Any of several v1 values may match (a rotated secret).
 */
export async function verifyWebhookSignature(
  secret: string,
  header: string,
  body: string,
  options: { now?: Date; toleranceSeconds?: number } = {},
): Promise<boolean> {
  const parts = header.split(',').map((p) => p.trim().split('='))
  const t = Number(parts.find(([k]) => k === 't')?.[1])
  if (!Number.isInteger(t)) return false
  const now = Math.floor((options.now ?? new Date()).getTime() / 1000)
  if (Math.abs(now - t) > (options.toleranceSeconds ?? 300)) return false
  const expected = await hmacHex(secret, `${t}.${body}`)
  for (const [k, v] of parts) if (k === 'v1' && v !== undefined && (await timingSafeEqual(v, expected))) return true
  return false
}

/** Options for the webhook sender. */
export type WebhookSenderOptions = {
  url: string
  /** WEBHOOK_SECRET: the receiver checks the signature with it. */
  secret: string
  fetch?: typeof fetch
  clock?: () => Date
  /** Give up on one attempt after this long (the outbox retries). Default 10 s. */
  timeoutMs?: number
}

function reasonOf(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } } | null)?.cause
  if (typeof cause?.code === 'string') return cause.code
  if (error instanceof Error && error.name === 'TimeoutError') return 'no answer in time'
  return error instanceof Error ? error.message : String(error)
}

/** Sends queued webhook calls to one address, signed at the moment of each attempt. */
export function createWebhookSender(options: WebhookSenderOptions): WebhookSender {
  const doFetch = options.fetch ?? fetch
  const clock = options.clock ?? (() => new Date())
  const host = new URL(options.url).host
  return {
    async send(message) {
      const timestamp = Math.floor(clock().getTime() / 1000)
      let response: Response
      try {
        response = await doFetch(options.url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'webhook-id': message.id,
            'webhook-timestamp': String(timestamp),
            'webhook-signature': await signWebhook(options.secret, timestamp, message.body),
          },
          body: message.body,
          // A redirect would re-send the lead somewhere not configured: answer it as a refusal instead.
          redirect: 'manual',
          signal: AbortSignal.timeout(options.timeoutMs ?? 10_000),
        })
      } catch (error) {
        throw new DeliveryError(`The webhook at ${host} could not be reached: ${reasonOf(error)}`, false)
      }
      if (response.status >= 200 && response.status < 300) {
        // Read to its end, the connection goes back to fetch's pool (keep-alive) for the next call.
        await response.arrayBuffer().catch(() => {})
        return
      }
      await response.body?.cancel().catch(() => {})
      const redirect = (response.status >= 300 && response.status < 400) || response.type === 'opaqueredirect'
      throw new DeliveryError(
        redirect
          ? `The webhook at ${host} answered with a redirect (${response.status}): set WEBHOOK_URL to the final address.`
          : `The webhook at ${host} answered ${response.status}.`,
        redirect || isPermanentHttpStatus(response.status),
      )
    },
  }
}
