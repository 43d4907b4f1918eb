import type { Context } from 'hono'
import { bodyLimit } from 'hono/body-limit'
import { cors } from 'hono/cors'
import { createMiddleware } from 'hono/factory'
import { offersKey, type OriginPolicy } from './caller.ts'
import { rateLimitKey } from './client-address.ts'
import { isFormPost } from './form-post.ts'
import type { RateLimiter } from './rate-limit.ts'
import { refusal } from './refusal.ts'

/**
 * The doors a registration passes before its body is read, in the order the function mounts them: another site's
 * page refused (403), CORS (preflight and the answer's headers), the rate limit per client (429), the anon key or,
 * for a plain form post, one of the site's pages as its origin (401/403), JSON or a form post only (415), and the
 * body's size (413). Each refusal says what to do.
 */

// The preflight answer as Supabase's own functions give it: supabase-js sends the first four headers, and x-region
// when a client picks a region. Each is one item, as Hono would join a list with a bare comma.
const allowHeaders = 'authorization, x-client-info, apikey, content-type, x-region'
export const allowMethods = 'POST, OPTIONS'

/** What the guards are judged by: the function's origin policy, its limiter and clock, its keys and body limit. */
export type GuardOptions = {
  originPolicy: OriginPolicy
  /** The site a plain form post comes from, when it is one of ours. */
  formPostSite: (c: Context) => string | undefined
  limiter: RateLimiter
  clock: () => Date
  clientAddressOf: (c: Context) => string
  anonKeys: string[]
  maxSize: number
}

/** The function's request guards, as Hono middleware. */
export function createRequestGuards({
  originPolicy,
  formPostSite,
  limiter,
  clock,
  clientAddressOf,
  anonKeys,
  maxSize,
}: GuardOptions) {
  // Another site's page is refused outright; no Origin at all is not a browser, and fine. (A plain form post is
  // checked more strictly, where the key would be.)
  const sameSiteOnly = createMiddleware(async (c, next) => {
    const origin = c.req.header('origin')
    if (!isFormPost(c.req.raw) && origin !== undefined && originPolicy(origin, c) === null) {
      throw refusal(
        403,
        `Requests from ${origin} are not allowed: add it to its launch's "origins" in page.config.json, or to ALLOWED_ORIGINS.`,
      )
    }
    await next()
  })
  const preflight = cors({
    origin: (origin, c) => (origin ? originPolicy(origin, c) : null),
    allowMethods: [allowMethods],
    allowHeaders: [allowHeaders],
    maxAge: 86_400,
  })
  // Other methods get the same two headers as Hono's cors gives them, set on the answer as it was made: Hono's cors
  // adds Vary with c.header() after the handler, which turns @hono/node-server's light answer into a web Response
  // with a body stream, a few per cent of the request thread's CPU under load.
  const corsHeaders = createMiddleware(async (c, next) => {
    if (c.req.method === 'OPTIONS') return preflight(c, next)
    const origin = c.req.header('origin')
    const allowed = origin ? originPolicy(origin, c) : null
    await next()
    if (allowed) c.res.headers.set('access-control-allow-origin', allowed)
    c.res.headers.append('vary', 'Origin')
  })
  const rateLimited = createMiddleware(async (c, next) => {
    const verdict = await limiter.hit(rateLimitKey(clientAddressOf(c)), clock().getTime())
    if (!verdict.allowed) {
      throw refusal(429, 'Too many registrations from this address. Please wait a minute and try again.', {
        headers: { 'retry-after': String(verdict.retryAfterSeconds) },
      })
    }
    await next()
  })
  const anonKeyRequired = createMiddleware(async (c, next) => {
    if (isFormPost(c.req.raw)) {
      // A plain form cannot send the key: coming from one of the site's pages stands in for it. Browsers send Origin
      // with every form POST; without it (not a current browser) a Referer on the site will do, nothing else.
      if (formPostSite(c) === undefined) {
        const from = c.req.header('origin') ?? c.req.header('referer') ?? 'a page that does not say where it is'
        throw refusal(
          403,
          `Registrations from ${from} are not allowed: add its origin to its launch's "origins" in page.config.json, or to ALLOWED_ORIGINS.`,
        )
      }
    } else if (!offersKey(c, anonKeys)) {
      throw refusal(401, 'Missing or wrong API key: send the site\'s anon key in the "apikey" header.')
    }
    await next()
  })
  const jsonOnly = createMiddleware(async (c, next) => {
    const type = (c.req.header('content-type') ?? '').split(';')[0]?.trim().toLowerCase()
    if (type !== 'application/json' && !isFormPost(c.req.raw)) {
      throw refusal(415, 'Send the registration as JSON, with "Content-Type: application/json".')
    }
    await next()
  })
  const tooLarge = () => {
    throw refusal(413, `The request body is too large: at most ${maxSize} bytes are accepted.`)
  }
  const streamedLimit = bodyLimit({ maxSize, onError: tooLarge })
  // A body of declared length is judged by its Content-Length alone (the HTTP parser reads no more than it says);
  // Hono's bodyLimit, kept for a chunked body, reads req.raw.body, which makes @hono/node-server build a web Request
  // and a stream for every body: about a tenth of the request thread's CPU under load.
  const sizeLimited = createMiddleware(async (c, next) => {
    const length = c.req.header('content-length')
    if (length === undefined || c.req.header('transfer-encoding') !== undefined) return streamedLimit(c, next)
    if (Number.parseInt(length, 10) > maxSize) tooLarge()
    await next()
  })
  return { sameSiteOnly, corsHeaders, rateLimited, anonKeyRequired, jsonOnly, sizeLimited }
}
