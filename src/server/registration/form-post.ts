/**
 * A registration sent as a plain web form (`application/x-www-form-urlencoded`): what a visitor without JavaScript,
 * or before it arrives, sends. The function reads it into the same shape as the JSON body and checks it with the
 * same rules; these are the parts that differ. Web-standard APIs only.
 *
 * - No anon key: a plain form cannot send headers. The Origin check stands in for it: the browser always sends
 *   Origin on a form POST, and only the site's own origin (or ALLOWED_ORIGINS) is accepted. A request without
 *   Origin (not a current browser) is accepted only when its Referer is one of those origins; otherwise refused.
 * - Attribution comes from the Referer (the page the form was on: its utm_* parameters, click ids and path). Same
 *   origin (the Node server) it is the full address; to a hosted function on another origin the site's
 *   Referrer-Policy (strict-origin-when-cross-origin) sends the origin only, so there it is empty.
 * - A submission id the form did not send is derived from the values, the client address and the 10-minute window:
 *   the same registration posted twice (a double click, a reload of the answer) is stored once, a corrected one is
 *   a new submission.
 */
import { attributionOfUrl } from '../../../schema/registration-contract.ts'
import { formFieldSchemas } from '../../../schema/registration-rules.ts'
import { refusal } from './refusal.ts'

/** The content type a plain HTML form posts. */
export const formContentType = 'application/x-www-form-urlencoded'

/**
 * The form body as the JSON body would carry it: each field's value as its schema's type reads it (numbers,
 * booleans from "true"/"on"), anything else as text; the last value of a repeated name wins.
 */
export function readFormBody(text: string, schema: unknown): Record<string, unknown> {
  const fields = formFieldSchemas(schema)
  const out: Record<string, unknown> = Object.create(null) as Record<string, unknown>
  for (const [key, value] of new URLSearchParams(text)) {
    const type = fields.get(key)?.type
    if ((type === 'number' || type === 'integer') && value.trim() !== '' && Number.isFinite(Number(value)))
      out[key] = Number(value)
    else if (type === 'boolean') out[key] = value === 'true' || value === 'on'
    else out[key] = value
  }
  return { ...out }
}

/** A form body's bytes as readFormBody reads them; refuses bad UTF-8 as the JSON reader does. */
export function parseFormBody(bytes: ArrayBuffer, schema: unknown): Record<string, unknown> {
  let text: string
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes)
  } catch {
    throw refusal(400, 'The request body is not valid UTF-8 text.')
  }
  return readFormBody(text, schema)
}

/** Whether a request is a plain form post (answered with pages, not JSON). */
export function isFormPost(request: Request): boolean {
  return (
    request.method === 'POST' &&
    (request.headers.get('content-type') ?? '').split(';')[0]?.trim().toLowerCase() === formContentType
  )
}

/** The origin a form post comes from: its Origin, or without one, its Referer's; undefined when neither is usable. */
export function formPostOrigin(origin: string | undefined, referer: string | undefined): string | undefined {
  if (origin !== undefined) return origin
  try {
    return referer ? new URL(referer).origin : undefined
  } catch {
    return undefined
  }
}

/**
 * The page address a form post carries in its body (the form shown again after a correction sends the address of
 * the page it was first sent from), when it is on the site the post comes from; else undefined.
 */
export function formPostPage(pageUrl: unknown, site: string): string | undefined {
  if (typeof pageUrl !== 'string') return undefined
  try {
    return new URL(pageUrl).origin === site ? pageUrl : undefined
  } catch {
    return undefined
  }
}

/** Attribution of a form post, from its Referer: the page address, its utm_* parameters, click ids and path. */
export function formPostAttribution(referer: string | undefined): {
  pageUrl: string | null
  utm: Record<string, string>
  clickIds: Record<string, string>
  landingPage: string | null
} {
  let url: URL | undefined
  try {
    url = referer ? new URL(referer) : undefined
  } catch {
    url = undefined
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:'))
    return { pageUrl: null, utm: {}, clickIds: {}, landingPage: null }
  const { utm, clickIds, landingPage } = attributionOfUrl(url)
  return { pageUrl: url.href.slice(0, 2048), utm, clickIds, landingPage }
}

/** A UUID-shaped id (version 8: custom) from SHA-256 of the canonical values, the client and the 10-minute window. */
export async function derivedSubmissionId(canonicalValues: string, client: string, now: Date): Promise<string> {
  const window = Math.floor(now.getTime() / 600_000)
  const digest = new Uint8Array(
    await crypto.subtle.digest('SHA-256', new TextEncoder().encode(`${canonicalValues}\n${client}\n${window}`)),
  )
  const hex = [...digest.slice(0, 16)].map((b) => b.toString(16).padStart(2, '0')).join('')
  const variant = ((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16)
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`
}

/** A minimal page for an answer that is not about the fields (too many tries, too large, not allowed, failed). */
export function plainAnswerPage(message: string, back: { href: string; label: string } | undefined): string {
  const escape = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)
  const link = back ? `<p><a href="${escape(back.href)}">${escape(back.label)}</a></p>` : ''
  return `<!doctype html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="robots" content="noindex"><title>${escape(message)}</title></head><body><p>${escape(message)}</p>${link}</body></html>`
}
