import type { IncomingHttpHeaders } from 'node:http'

/**
 * Which requests the editor answers at all. It runs on 127.0.0.1 beside the project's private files (.data/ with
 * registrants' details, .env), and every page the person has open in the same browser can send it requests: so it
 * serves only its own paths, and nothing to another origin.
 */

// Vite's own module paths and the source the editor and the preview load through it; everything else Vite could
// serve (the project root: package.json, .data/, /__open-in-editor …) is not the editor's business.
const vitePrefixes = ['/@vite/', '/@react-refresh', '/@id/', '/@fs/', '/node_modules/', '/src/', '/schema/']

/** True for a path the editor hands to Vite: its client, its module ids, the page code and its dependencies. */
export function isVitePath(pathname: string): boolean {
  return vitePrefixes.some((prefix) => pathname.startsWith(prefix))
}

/**
 * True when a request's path is one the editor may serve at all: written the way a URL parser leaves it (no `..`,
 * no encoded dots or slashes, no backslashes) and with no hidden name (`.env`, `.data`) in it, except Vite's
 * dependency cache (node_modules/.vite-editor).
 */
export function isPlainPath(rawUrl: string): boolean {
  const raw = rawUrl.split('?')[0] ?? ''
  if (!raw.startsWith('/') || /%2e|%2f|%5c|%00|\\/i.test(raw)) return false
  if (new URL(raw, 'http://editor').pathname !== raw) return false
  let decoded: string
  try {
    decoded = decodeURIComponent(raw)
  } catch {
    return false
  }
  return decoded.split('/').every((segment) => !segment.startsWith('.') || segment === '.vite-editor')
}

/**
 * Why a request must be refused because another site sent it, or undefined when it may be answered: an Origin that
 * is not the editor's own, or a browser's Sec-Fetch-Site saying another site asked (a page on evil.localhost, which
 * the browser also resolves to 127.0.0.1). A person following a link to the editor page is let through: that opens
 * the page as its own top-level tab, which the other site cannot read.
 */
export function crossSiteRefusal(method: string | undefined, pathname: string, headers: IncomingHttpHeaders): string | undefined {
  const origin = headers.origin
  if (origin !== undefined && origin !== `http://${headers.host}`) return `requests from ${origin} are not answered`
  const site = headers['sec-fetch-site']
  if (site === undefined || site === 'same-origin' || site === 'none') return undefined
  const navigation = method === 'GET' && pathname === '/' && headers['sec-fetch-mode'] === 'navigate' && headers['sec-fetch-dest'] === 'document'
  return navigation ? undefined : 'requests from another site are not answered'
}
