/**
 * The send-contact-email function: one Hono app, web-standard APIs only, run by src/server/node.ts (Node, with
 * SQLite) and supabase/functions/send-contact-email/index.ts (Deno, with Postgres). Its store, clock and
 * outbox wake-up are passed in; nothing here reads env or touches a runtime.
 *
 * ## Request contract
 *
 * POST /functions/v1/send-contact-email   (also /send-contact-email: the path a Supabase function sees)
 *   What supabase-js `functions.invoke('send-contact-email', { body })` sends:
 *   headers  apikey: <anon key>  and/or  authorization: Bearer <anon key>
 *            content-type: application/json
 *   body     {
 *              name, email, phone, isRealtor,        the form fields (page.config.json form.schema)
 *              submissionId: "<uuid>",               made once per submission by the browser; a retry with the
 *                                                    same id and data is stored once (optional: made here if absent)
 *              pageUrl: "https://…",                 location.href (optional)
 *              referrer: "https://…" | "",           document.referrer (optional)
 *              utm: { utm_source: "…", … },          the page's utm_* parameters (optional)
 *              consentText: "By submitting, …",      the consent note shown (optional: the config's text if absent)
 *              website: ""                           honeypot: a hidden input people leave empty
 *            }
 *   Unknown fields are dropped. Keys named __proto__, constructor or prototype are refused.
 *
 * Answers (always JSON; never a stack trace):
 *   200 { ok: true }                                stored (or already stored, or a bot filled the honeypot)
 *   400 { error, errors: { field: message } }       a field breaks a rule: the config's message for it
 *   400 { error }                                   not JSON, not an object, a bad submissionId/pageUrl/utm…
 *   401 { error }                                   no or wrong anon key
 *   403 { error }                                   the Origin is not one of the site's origins
 *   405 { error }                                   not POST/OPTIONS
 *   409 { error }                                   this submissionId was already used for different data
 *   413 { error }                                   body larger than the limit (16 KiB by default)
 *   415 { error }                                   not application/json
 *   429 { error } + Retry-After                     over RATE_LIMIT_PER_MINUTE for this client IP
 *   500 { error }                                   could not be stored: nothing was acknowledged
 * OPTIONS: CORS preflight, 204 for the site's origins (same origin, or ALLOWED_ORIGINS), 403 for others.
 *
 * POST …/send-contact-email/deliver-pending with `authorization: Bearer <OUTBOX_SECRET>` delivers due
 * notifications now (the scheduled retry on Supabase) and answers { ok, sent, failed }.
 */
import { Hono, type Context } from 'hono'
import type { FormConfig } from '../../schema/page-config.ts'
import { createRegistrationValidator, type FieldMessages } from '../../schema/registration-ajv.ts'
import { contactFunctionPath } from '../../schema/local-defaults.ts'
import { composeLeadMail } from './notification.ts'
import { createRateLimiter } from './rate-limit.ts'
import type { LeadStore, NewLead } from './store.ts'

/** Where the app reports what happened; console by default. Never given visitors' personal data. */
export type AppLog = {
  info(message: string): void
  error(message: string, error?: unknown): void
}

/** The scheduled-retry endpoint: its secret, and the delivery run it triggers. */
export type OutboxTrigger = {
  secret: string
  run(): Promise<{ sent: number; failed: number }>
}

/** What createApp needs: everything from outside is passed in. */
export type AppDeps = {
  /** The registration form of page.config.json (schema, uiSchema, messages, consent). */
  formConfig: Pick<FormConfig, 'schema' | 'uiSchema' | 'messages' | 'consent'>
  /** The development's name, for the notification. */
  siteName: string
  /** Who is notified of each lead. */
  notifyEmail: string
  /** IANA time zone for times in the notification. Default America/Toronto. */
  timeZone?: string
  store: LeadStore
  /** Now. Injected so tests control time. */
  clock?: () => Date
  /** Keys accepted in `apikey` / `authorization: Bearer`. At least one. */
  anonKeys: string[]
  /** Origins (scheme://host[:port]) allowed to call from a browser besides the same origin; ['*'] allows any. */
  allowedOrigins?: string[]
  /** Largest accepted body in bytes. Default 16 KiB. */
  bodyLimitBytes?: number
  /** Requests a minute per client IP; 0 turns the limit off. Default 5. */
  rateLimitPerMinute?: number
  /** How many proxies in front append to X-Forwarded-For; 0 (default) ignores the header. */
  trustProxy?: number
  /**
   * A header the platform sets to the visitor's address (its first entry is used), e.g. x-forwarded-for on
   * Supabase. Used when trustProxy is 0. A client could forge it only to dodge its own rate limit.
   */
  clientIpHeader?: string
  /** The TCP peer's address, from the runtime (getConnInfo). */
  clientAddress?: (c: Context) => string | undefined
  /** Called after a lead and its notification are committed: wake the outbox worker. Must not throw. */
  onLeadStored?: () => void
  /** Enables POST …/deliver-pending. */
  outboxTrigger?: OutboxTrigger
  log?: AppLog
  /** Makes a submission id when the browser sent none. Default crypto.randomUUID. */
  newId?: () => string
}

/** The limit a body may not exceed unless configured otherwise. */
export const defaultBodyLimitBytes = 16 * 1024

const functionPaths = [contactFunctionPath, '/send-contact-email']
const triggerPaths = functionPaths.map((p) => `${p}/deliver-pending`)
const allowHeaders = 'authorization, x-client-info, apikey, content-type, x-region'
const forbiddenKeys = new Set(['__proto__', 'constructor', 'prototype'])
const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
const utmKeyPattern = /^utm_[a-z0-9_]{1,40}$/i
// eslint-disable-next-line no-control-regex
const controlExceptTab = /[\u0000-\u0008\u000a-\u001f\u007f]/
// eslint-disable-next-line no-control-regex
const controlExceptWhitespace = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/

/** An answer that ends the request early, with a plain message (and field messages for 400s). */
class Refusal {
  constructor(
    readonly status: 400 | 401 | 403 | 405 | 409 | 413 | 415 | 429,
    readonly message: string,
    readonly errors?: FieldMessages,
    readonly headers: Record<string, string> = {},
  ) {}
}

/** Compares two strings in time that does not depend on where they differ. */
function sameSecret(a: string, b: string): boolean {
  const x = new TextEncoder().encode(a)
  const y = new TextEncoder().encode(b)
  let diff = x.length ^ y.length
  for (let i = 0; i < Math.max(x.length, y.length); i++) diff |= (x[i] ?? 0) ^ (y[i] ?? 0)
  return diff === 0
}

function bearer(header: string | undefined): string | undefined {
  const match = /^Bearer\s+(.+)$/i.exec(header ?? '')
  return match?.[1]?.trim()
}

/** Reads the body as UTF-8 text, refusing (413) as soon as it passes `limit` bytes, declared or streamed. */
async function readBody(request: Request, limit: number): Promise<string> {
  const tooLarge = new Refusal(413, `The request body is too large: at most ${limit} bytes are accepted.`)
  const declared = Number(request.headers.get('content-length') ?? '0')
  if (Number.isFinite(declared) && declared > limit) throw tooLarge
  if (!request.body) return ''
  const reader = request.body.getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    size += value.byteLength
    if (size > limit) {
      await reader.cancel().catch(() => {})
      throw tooLarge
    }
    chunks.push(value)
  }
  const bytes = new Uint8Array(size)
  let offset = 0
  for (const chunk of chunks) {
    bytes.set(chunk, offset)
    offset += chunk.byteLength
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes)
  } catch {
    throw new Refusal(400, 'The request body is not valid UTF-8 text.')
  }
}

const maxDepth = 16

/** JSON.parse that refuses deep nesting and prototype-polluting keys anywhere in the document. */
function parseJson(text: string): unknown {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (error) {
    if (error instanceof RangeError) throw new Refusal(400, 'The request body is nested too deeply.')
    throw new Refusal(400, 'The request body is not valid JSON.')
  }
  // Iterative, so a hostile document cannot exhaust the stack here either.
  const pending: [unknown, number][] = [[value, 0]]
  while (pending.length > 0) {
    const [node, depth] = pending.pop()!
    if (typeof node !== 'object' || node === null) continue
    if (depth >= maxDepth) throw new Refusal(400, 'The request body is nested too deeply.')
    for (const key of Object.keys(node)) {
      if (forbiddenKeys.has(key)) throw new Refusal(400, `The request body contains a key that is not allowed: "${key}".`)
      pending.push([(node as Record<string, unknown>)[key], depth + 1])
    }
  }
  return value
}

function optionalText(body: Record<string, unknown>, key: string, max: number, allowNewlines = false): string | null {
  const value = body[key]
  if (value === undefined || value === null) return null
  if (typeof value !== 'string') throw new Refusal(400, `${key} must be a string.`)
  const trimmed = value.trim()
  if (trimmed.length > max) throw new Refusal(400, `${key} is too long: at most ${max} characters.`)
  if ((allowNewlines ? controlExceptWhitespace : controlExceptTab).test(trimmed)) {
    throw new Refusal(400, `${key} contains line breaks or control characters.`)
  }
  return trimmed === '' ? null : trimmed
}

function pageUrlOf(body: Record<string, unknown>): string | null {
  const value = optionalText(body, 'pageUrl', 2048)
  if (value === null) return null
  let url: URL
  try {
    url = new URL(value)
  } catch {
    throw new Refusal(400, 'pageUrl must be the address of the page (http or https).')
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Refusal(400, 'pageUrl must be the address of the page (http or https).')
  return value
}

function utmOf(body: Record<string, unknown>): Record<string, string> {
  const value = body.utm
  if (value === undefined || value === null) return {}
  if (typeof value !== 'object' || Array.isArray(value)) throw new Refusal(400, 'utm must be an object of utm_* parameters.')
  const entries = Object.entries(value as Record<string, unknown>)
  if (entries.length > 20) throw new Refusal(400, 'utm has too many parameters: at most 20.')
  const out: Record<string, string> = {}
  for (const [key, v] of entries) {
    if (!utmKeyPattern.test(key)) throw new Refusal(400, `utm may only hold utm_* parameters; "${key.slice(0, 50)}" is not one.`)
    if (typeof v !== 'string') throw new Refusal(400, `utm.${key} must be a string.`)
    const text = v.trim()
    if (text.length > 500) throw new Refusal(400, `utm.${key} is too long: at most 500 characters.`)
    if (controlExceptTab.test(text)) throw new Refusal(400, `utm.${key} contains line breaks or control characters.`)
    if (text !== '') out[key.toLowerCase()] = text
  }
  return out
}

/** Single-line fields may not carry line breaks or control characters; textarea fields may carry line breaks. */
function controlCharacterErrors(input: Record<string, unknown>, form: AppDeps['formConfig']): FieldMessages {
  const errors: FieldMessages = {}
  for (const field of Object.keys(form.schema.properties ?? {})) {
    const value = input[field]
    if (typeof value !== 'string') continue
    const ui = (form.uiSchema as Record<string, { 'ui:widget'?: unknown } | undefined>)[field]
    const multiline = ui?.['ui:widget'] === 'textarea'
    if ((multiline ? controlExceptWhitespace : controlExceptTab).test(value)) {
      errors[field] = multiline ? 'Remove control characters.' : 'Remove line breaks and control characters.'
    }
  }
  return errors
}

/** The same JSON for the same data, whatever the key order (Postgres jsonb reorders keys). */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`
  if (typeof value === 'object' && value !== null) {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`
  }
  return JSON.stringify(value)
}

/**
 * Builds the function's Hono app. Mount it with `root.route('/', app)`: it only answers the function's paths,
 * so a host app can serve everything else.
 */
export function createApp(deps: AppDeps): Hono {
  const clock = deps.clock ?? (() => new Date())
  const log: AppLog = deps.log ?? { info: (m) => console.log(m), error: (m, e) => console.error(m, e ?? '') }
  const newId = deps.newId ?? (() => crypto.randomUUID())
  const bodyLimit = deps.bodyLimitBytes ?? defaultBodyLimitBytes
  const trustProxy = deps.trustProxy ?? 0
  const allowed = new Set(deps.allowedOrigins ?? [])
  const limiter = createRateLimiter(deps.rateLimitPerMinute ?? 5)
  const validate = createRegistrationValidator(deps.formConfig)
  const notification = {
    siteName: deps.siteName,
    recipient: deps.notifyEmail,
    timeZone: deps.timeZone ?? 'America/Toronto',
    form: deps.formConfig,
  }
  if (deps.anonKeys.length === 0) throw new Error('createApp needs at least one anon key.')

  /** The origin to allow for this request, or null when it is another site's. No Origin: not a browser, fine. */
  function allowedOrigin(c: Context): string | null | undefined {
    const origin = c.req.header('origin')
    if (origin === undefined) return undefined
    if (allowed.has('*')) return '*'
    if (allowed.has(origin)) return origin
    try {
      // Same origin, compared by host: behind a TLS-terminating proxy the request URL says http.
      const host = trustProxy > 0 ? (c.req.header('x-forwarded-host') ?? c.req.header('host')) : c.req.header('host')
      if (host && new URL(origin).host === host) return origin
    } catch {
      // "null" and other opaque origins are never ours.
    }
    return null
  }

  function withCors(c: Context, response: Response): Response {
    const origin = allowedOrigin(c)
    if (origin) {
      response.headers.set('Access-Control-Allow-Origin', origin)
      if (origin !== '*') response.headers.append('Vary', 'Origin')
    }
    return response
  }

  function answer(c: Context, status: number, body: unknown, headers: Record<string, string> = {}): Response {
    const response = new Response(JSON.stringify(body), {
      status,
      headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', ...headers },
    })
    return withCors(c, response)
  }

  function clientIp(c: Context): string {
    if (trustProxy > 0) {
      const hops = (c.req.header('x-forwarded-for') ?? '')
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)
      const ip = hops[hops.length - trustProxy] ?? hops[0]
      if (ip) return ip
    }
    if (deps.clientIpHeader) {
      const ip = c.req.header(deps.clientIpHeader)?.split(',')[0]?.trim()
      if (ip) return ip
    }
    try {
      return deps.clientAddress?.(c) ?? 'unknown'
    } catch {
      return 'unknown'
    }
  }

  async function register(c: Context): Promise<Response> {
    if (allowedOrigin(c) === null) {
      throw new Refusal(403, `Requests from ${c.req.header('origin')} are not allowed: add it to ALLOWED_ORIGINS.`)
    }
    const verdict = limiter.hit(clientIp(c), clock().getTime())
    if (!verdict.allowed) {
      throw new Refusal(429, 'Too many registrations from this address. Please wait a minute and try again.', undefined, {
        'retry-after': String(verdict.retryAfterSeconds),
      })
    }
    // supabase-js sends the key in both; a signed-in visitor's Bearer token is a user JWT, so either may match.
    const offered = [c.req.header('apikey')?.trim(), bearer(c.req.header('authorization'))].filter((k): k is string => !!k)
    if (!offered.some((key) => deps.anonKeys.some((k) => sameSecret(k, key)))) {
      throw new Refusal(401, 'Missing or wrong API key: send the site\'s anon key in the "apikey" header.')
    }
    const type = (c.req.header('content-type') ?? '').split(';')[0]?.trim().toLowerCase()
    if (type !== 'application/json') throw new Refusal(415, 'Send the registration as JSON, with "Content-Type: application/json".')

    const parsed = parseJson(await readBody(c.req.raw, bodyLimit))
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      throw new Refusal(400, 'The request body must be a JSON object of form fields.')
    }
    const body = parsed as Record<string, unknown>

    // Bots fill every input, including the hidden one: answer as if stored, store and notify nothing.
    const honeypot = body.website
    if (honeypot !== undefined && honeypot !== null && !(typeof honeypot === 'string' && honeypot.trim() === '')) {
      log.info('send-contact-email: honeypot filled, registration ignored')
      return answer(c, 200, { ok: true })
    }

    const rawId = body.submissionId
    if (rawId !== undefined && rawId !== null && (typeof rawId !== 'string' || !uuidPattern.test(rawId))) {
      throw new Refusal(400, 'submissionId must be a UUID.')
    }
    const submissionId = (typeof rawId === 'string' ? rawId : newId()).toLowerCase()
    const pageUrl = pageUrlOf(body)
    const referrer = optionalText(body, 'referrer', 2048)
    const utm = utmOf(body)
    const consentText = optionalText(body, 'consentText', 2000, true) ?? deps.formConfig.consent

    const checked = validate(body)
    const errors = { ...controlCharacterErrors(body, deps.formConfig), ...(checked.ok ? {} : checked.errors) }
    if (!checked.ok || Object.keys(errors).length > 0) {
      throw new Refusal(400, 'Some fields need attention.', errors)
    }

    const userAgent = (c.req.header('user-agent') ?? '').replace(/[\u0000-\u001f\u007f]/g, ' ').trim().slice(0, 512)
    const lead: NewLead = {
      submissionId,
      createdAt: clock().toISOString(),
      fields: checked.value,
      consentText,
      pageUrl,
      referrer,
      utm,
      userAgent: userAgent || null,
    }
    let saved
    try {
      saved = await deps.store.saveLead(lead, composeLeadMail(lead, notification))
    } catch (error) {
      log.error(`send-contact-email: could not store submission ${submissionId}`, error)
      return answer(c, 500, { error: 'Your registration could not be saved. Please try again in a moment.' })
    }
    if (saved.created) {
      log.info(`send-contact-email: stored lead ${saved.lead.id}`)
      deps.onLeadStored?.()
    } else if (canonical(saved.lead.fields) !== canonical(lead.fields)) {
      throw new Refusal(409, 'This submissionId was already used for a different registration: make a new one for each submission.')
    }
    return answer(c, 200, { ok: true })
  }

  async function handle(c: Context, run: (c: Context) => Promise<Response>): Promise<Response> {
    try {
      return await run(c)
    } catch (error) {
      if (error instanceof Refusal) {
        return answer(c, error.status, error.errors ? { error: error.message, errors: error.errors } : { error: error.message }, error.headers)
      }
      log.error('send-contact-email: unexpected error', error)
      return answer(c, 500, { error: 'The registration could not be saved just now. Please try again in a moment.' })
    }
  }

  const app = new Hono()

  for (const path of triggerPaths) {
    app.all(path, (c) =>
      handle(c, async () => {
        if (c.req.method !== 'POST') throw new Refusal(405, 'Use POST.', undefined, { allow: 'POST' })
        const trigger = deps.outboxTrigger
        const token = bearer(c.req.header('authorization'))
        if (!trigger || !token || !sameSecret(trigger.secret, token)) throw new Refusal(401, 'Missing or wrong outbox secret.')
        const result = await trigger.run()
        return answer(c, 200, { ok: true, ...result })
      }),
    )
  }

  for (const path of functionPaths) {
    app.all(path, (c) =>
      handle(c, async () => {
        if (c.req.method === 'OPTIONS') {
          const origin = allowedOrigin(c)
          if (origin === null) {
            throw new Refusal(403, `Requests from ${c.req.header('origin')} are not allowed: add it to ALLOWED_ORIGINS.`)
          }
          return withCors(
            c,
            new Response(null, {
              status: 204,
              headers: {
                'access-control-allow-methods': 'POST, OPTIONS',
                'access-control-allow-headers': allowHeaders,
                'access-control-max-age': '86400',
              },
            }),
          )
        }
        if (c.req.method !== 'POST') throw new Refusal(405, 'Use POST to send a registration.', undefined, { allow: 'POST, OPTIONS' })
        return register(c)
      }),
    )
  }

  return app
}
