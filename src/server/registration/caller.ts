/**
 * Who is calling: whether the page's origin may, and the key it offers (its address: client-address.ts).
 * Web-standard APIs only: the Deno entry runs this file too.
 */
import type { Context } from 'hono'

/** The host a request came to: the page's host behind a trusted proxy (X-Forwarded-Host), else Host. */
export function requestHost(c: Context, trustProxy: number): string | undefined {
  return trustProxy > 0 ? (c.req.header('x-forwarded-host') ?? c.req.header('host')) : c.req.header('host')
}

/** The Access-Control-Allow-Origin value for a page origin, or null when it may not call. */
export type OriginPolicy = (origin: string, c: Context) => string | null

/**
 * The Access-Control-Allow-Origin value for a page origin, or null when it is another site's: `*` when any is
 * allowed, the origin itself when listed or when it is this site (compared by host, since behind a
 * TLS-terminating proxy the request URL says http).
 */
export function createOriginPolicy(allowedOrigins: readonly string[], trustProxy: number): OriginPolicy {
  const allowed = new Set(allowedOrigins)
  return (origin, c) => {
    if (allowed.has('*')) return '*'
    if (allowed.has(origin)) return origin
    const host = requestHost(c, trustProxy)
    // "null" and other opaque origins do not parse, and are never ours.
    return host && URL.canParse(origin) && new URL(origin).host === host ? origin : null
  }
}

/** The token of an `Authorization: Bearer …` header. */
export function bearerToken(header: string | undefined): string | undefined {
  return /^Bearer\s+(.+)$/i.exec(header ?? '')?.[1]?.trim()
}

/**
 * Whether two keys are equal, in a time that does not depend on where they differ (only on their lengths): no Web
 * Crypto digest, which Hono's timingSafeEqual takes twice a comparison and which was a sixteenth of the request
 * thread's CPU under load. The anon keys are public by design; this is care, not the keys' only protection.
 */
function sameKey(a: string, b: string): boolean {
  if (a.length !== b.length) return false
  let difference = 0
  for (let i = 0; i < a.length; i++) difference |= a.charCodeAt(i) ^ b.charCodeAt(i)
  return difference === 0
}

/** Whether the request carries one of `keys`: supabase-js sends the key as `apikey` and as a Bearer token. */
export function offersKey(c: Context, keys: readonly string[]): boolean {
  // A signed-in visitor's Bearer token is a user JWT, so either header may be the one that matches.
  const offered = [c.req.header('apikey')?.trim(), bearerToken(c.req.header('authorization'))].filter(
    (k): k is string => !!k,
  )
  let found = false
  for (const key of offered) for (const k of keys) found = sameKey(k, key) || found
  return found
}
