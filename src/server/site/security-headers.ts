/**
 * Security headers for the built site, in one place for every way it is served: the Hono middleware (Node and
 * Deno) and a `_headers` file for static hosts (Netlify, Cloudflare Pages). Web-standard APIs only.
 */
import type { MiddlewareHandler } from 'hono'

/** What the headers depend on: the page's inline JSON-LD, whether it is served over HTTPS, the backend's URL. */
export type SecurityHeaderOptions = {
  /**
   * CSP source hashes of the page's inline scripts (the JSON-LD and the boot module), as `cspHashesOf` returns them
   * (`sha256-…`).
   */
  jsonLdHashes: readonly string[]
  /**
   * CSP source hashes of the pages' inline <style> (the build inlines the stylesheet), as `styleHashesOf` returns them.
   */
  styleHashes?: readonly string[]
  /** Adds Strict-Transport-Security. Browsers ignore it over plain HTTP, but a proxy may not be HTTPS end to end. */
  https: boolean
  /** VITE_SUPABASE_URL of the build, when the form posts to a hosted Supabase project instead of this origin. */
  supabaseUrl?: string
  /** The config names a Google Tag Manager container: allow its hosts (and only then). */
  tagManager?: boolean
}

// Google Tag Manager and the Analytics endpoints it reports to (src/page/analytics.ts loads the container).
const tagManagerOrigins = [
  'https://www.googletagmanager.com',
  'https://*.google-analytics.com',
  'https://*.analytics.google.com',
]

// Features the page never uses, refused to it and to anything it might embed. Only names Chromium knows:
// an unknown one (e.g. interest-cohort) prints a console warning on every load.
const permissionsPolicy = 'camera=(), microphone=(), geolocation=(), payment=(), usb=(), browsing-topics=()'

/**
 * The Content-Security-Policy value: 'self' everywhere, the build's inline scripts by hash, nothing else inline or
 * eval'd.
 */
export function contentSecurityPolicy({
  jsonLdHashes,
  styleHashes = [],
  supabaseUrl,
  tagManager,
}: Omit<SecurityHeaderOptions, 'https'>): string {
  const connect = ["'self'"]
  // Without JavaScript the form itself posts to the hosted function, which redirects back to this site.
  const formAction = ["'self'"]
  // The page's visit image (src/page/Page.tsx) is the hosted function's.
  const images = ["'self'", 'data:']
  if (supabaseUrl) {
    connect.push(new URL(supabaseUrl).origin)
    formAction.push(new URL(supabaseUrl).origin)
    images.push(new URL(supabaseUrl).origin)
  }
  const tracking = tagManager ? tagManagerOrigins : []
  connect.push(...tracking)
  return [
    "default-src 'self'",
    // The boot module (src/build/boot.ts) runs by its hash. A JSON-LD block is data, which browsers do not check
    // against script-src; its hash is listed anyway so that the policy states exactly which inline scripts the
    // page carries, and no other inline script runs.
    ['script-src', "'self'", ...jsonLdHashes.map((hash) => `'${hash}'`), ...tracking.slice(0, 1)].join(' '),
    // No 'unsafe-inline': React, react-modal and react-toastify set styles through the CSSOM (element.style),
    // which style-src does not restrict; the prerendered HTML has no style attributes, and its one <style> (the
    // inlined stylesheet) is allowed by hash.
    ['style-src', "'self'", ...styleHashes.map((hash) => `'${hash}'`)].join(' '),
    ['img-src', ...images, ...tracking].join(' '),
    "font-src 'self'",
    `connect-src ${connect.join(' ')}`,
    "object-src 'none'",
    "base-uri 'self'",
    `form-action ${formAction.join(' ')}`,
    "frame-ancestors 'none'",
  ].join('; ')
}

/** The headers every page of the site is sent with (HTML and everything else); no caching headers. */
export function securityHeaders(options: SecurityHeaderOptions): Record<string, string> {
  const headers: Record<string, string> = {
    'Content-Security-Policy': contentSecurityPolicy(options),
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'strict-origin-when-cross-origin',
    'Permissions-Policy': permissionsPolicy,
    // For browsers without CSP frame-ancestors.
    'X-Frame-Options': 'DENY',
    'Cross-Origin-Opener-Policy': 'same-origin',
  }
  // Two years, the value hstspreload.org asks for; no `preload`: that is a commitment for the owner to make.
  if (options.https) headers['Strict-Transport-Security'] = 'max-age=63072000; includeSubDomains'
  return headers
}

// Headers a handler may set for its own answer, stricter than the site's: the unsubscribe page's no-referrer (its
// address carries a signed token), an image's sandboxing CSP (static-site.ts). Every other header is the site's.
const ownedByHandler = new Set(['content-security-policy', 'referrer-policy'])

/**
 * Hono middleware that adds `securityHeaders(options)` to every response after the handler ran, replacing any
 * of the same name, except a Content-Security-Policy or Referrer-Policy the handler set for its own answer. Leaves
 * Cache-Control to the handler.
 */
export function secureHeadersMiddleware(options: SecurityHeaderOptions): MiddlewareHandler {
  const headers = Object.entries(securityHeaders(options))
  return async function secureHeaders(c, next) {
    await next()
    for (const [name, value] of headers) {
      if (ownedByHandler.has(name.toLowerCase()) && c.res.headers.has(name)) continue
      c.res.headers.set(name, value)
    }
  }
}

// The inline scripts a build writes: JSON-LD, and the module that starts the app (no src attribute).
const buildScript =
  /<script\b(?![^>]*\bsrc\s*=)[^>]*\btype\s*=\s*["']?(?:application\/ld\+json|module)["']?[^>]*>([\s\S]*?)<\/script\s*>/gi

function base64(bytes: ArrayBuffer): string {
  let binary = ''
  for (const byte of new Uint8Array(bytes)) binary += String.fromCharCode(byte)
  return btoa(binary)
}

const inlineStyle = /<style\b[^>]*>([\s\S]*?)<\/style\s*>/gi

/**
 * The CSP hashes (`sha256-…`, without quotes) of the inline JSON-LD scripts and inline module scripts in a built
 * page, in document order, duplicates removed; classic inline scripts are never hashed. Hashes the exact text
 * between the tags, so pass the HTML as it is served.
 */
export async function cspHashesOf(html: string): Promise<string[]> {
  return hashesOf(html, buildScript)
}

/** The CSP hashes of a built page's inline <style> elements, as `cspHashesOf` does for JSON-LD. */
export async function styleHashesOf(html: string): Promise<string[]> {
  return hashesOf(html, inlineStyle)
}

async function hashesOf(html: string, element: RegExp): Promise<string[]> {
  const hashes: string[] = []
  for (const match of html.matchAll(element)) {
    const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(match[1] ?? ''))
    const hash = `sha256-${base64(digest)}`
    if (!hashes.includes(hash)) hashes.push(hash)
  }
  return hashes
}

/**
 * The policy images are served with (as src/server/site/static-site.ts serves them): an SVG opened on its own is a
 * document that could run script or load anything; this lets it draw with its own inline styles and nothing else.
 */
export const staticImagePolicy = "default-src 'none'; style-src 'unsafe-inline'"

// Every image the build writes: public/images/ (and its variants in images/_v/), the favicons at the root.
const imagePaths = [
  '/images/*',
  ...['svg', 'png', 'jpg', 'jpeg', 'gif', 'webp', 'avif', 'ico'].map((ext) => `/*.${ext}`),
]

/**
 * A `_headers` file (Netlify, Cloudflare Pages) with the same headers: on every path the security headers, on
 * images the image policy instead of the page's, on /assets/* (hashed names) a year's immutable caching, on the
 * HTML revalidation every time. The two hosts merge matching rules differently: Cloudflare applies them in order and
 * joins two values of one header with a comma (two CSPs would both apply), unless a later rule detaches it first
 * (`! Name`); Netlify takes the later rule's value and skips a line without a colon. So an image rule, after `/*`,
 * detaches the CSP and sets its own, which both read as that one policy; and Cache-Control is only ever set by one
 * rule per path.
 */
export function staticHostHeaders(options: SecurityHeaderOptions): string {
  const block = (path: string, headers: Record<string, string>, detach: string[] = []) =>
    [
      path,
      ...detach.map((name) => `  ! ${name}`),
      ...Object.entries(headers).map(([name, value]) => `  ${name}: ${value}`),
    ].join('\n')
  const revalidate = { 'Cache-Control': 'public, max-age=0, must-revalidate' }
  return [
    '# Written by the build from src/server/site/security-headers.ts: edit that file, not this one.',
    block('/*', securityHeaders(options)),
    ...imagePaths.map((path) =>
      block(path, { 'Content-Security-Policy': staticImagePolicy }, ['Content-Security-Policy']),
    ),
    block('/assets/*', { 'Cache-Control': 'public, max-age=31536000, immutable' }),
    block('/', revalidate),
    block('/index.html', revalidate),
    block('/404.html', revalidate),
    block('/registered.html', revalidate),
    block('/check-details.html', revalidate),
    // Both hosts serve privacy.html at /privacy too (their "pretty URLs").
    block('/privacy', revalidate),
    block('/privacy.html', revalidate),
    '',
  ].join('\n')
}
