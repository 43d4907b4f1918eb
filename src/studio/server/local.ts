import { timingSafeEqual } from 'node:crypto'
import type { IncomingHttpHeaders } from 'node:http'
import type { Hono } from 'hono'
import { escapeHtml } from '../../server/delivery/escape-html.ts'
import { localTokenHeader, localTokenMeta } from '../protocol.ts'
import type { StudioContext, StudioEnv } from './context.ts'
import { recordDiskVersions } from './launches.ts'
import type { Account } from './store.ts'

/**
 * The studio in local mode (`npm run edit`): one person on 127.0.0.1, no accounts. It runs beside the project's
 * private files (.data/ with registrants' details, .env), and every page the person has open in the same browser can
 * send it requests: so it answers only its own Host, only its own paths, nothing to another origin, and its API only
 * to the page it served (the token written into that page, which no other site can read).
 */

/** The one local person: an owner of every launch, who never signs in. */
export const localAccount: Account = {
  id: 0,
  email: 'you (this computer)',
  role: 'owner',
  sessionsValidAfter: new Date(0).toISOString(),
  invitedAt: new Date(0).toISOString(),
}

/**
 * True when a request's Host names this editor: 127.0.0.1 or localhost, on its port. Anything else is refused,
 * so a web page whose name someone points at 127.0.0.1 (DNS rebinding) cannot reach the editor as its own site.
 */
export function isAllowedHost(host: string | undefined, port: number): boolean {
  return host === `127.0.0.1:${port}` || host === `localhost:${port}`
}

/**
 * True when a request's path is one the editor may serve at all: written the way a URL parser leaves it (no `..`,
 * no encoded dots or slashes, no backslashes) and with no hidden name (`.env`, `.data`) in it.
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
  return decoded.split('/').every((segment) => !segment.startsWith('.'))
}

/** The pages a person may open by typing the address or following a link: the studio's shell. */
function isShellPath(pathname: string): boolean {
  return (
    pathname === '/' ||
    pathname === '/studio' ||
    pathname === '/studio/' ||
    /^\/studio\/launches(\/[^/]+)?\/?$/.test(pathname)
  )
}

/**
 * Why a request must be refused because another site sent it, or undefined when it may be answered: an Origin that
 * is not the editor's own, or a browser's Sec-Fetch-Site saying another site asked (a page on evil.localhost, which
 * the browser also resolves to 127.0.0.1, or another port of 127.0.0.1). A person following a link to the editor's
 * page is let through: that opens the page as its own top-level tab, which the other site cannot read.
 */
export function crossSiteRefusal(
  method: string | undefined,
  pathname: string,
  headers: IncomingHttpHeaders,
): string | undefined {
  const origin = headers.origin
  if (origin !== undefined && origin !== `http://${headers.host}`) return `requests from ${origin} are not answered`
  const site = headers['sec-fetch-site']
  if (site === undefined || site === 'same-origin' || site === 'none') return undefined
  const navigation =
    method === 'GET' &&
    isShellPath(pathname) &&
    headers['sec-fetch-mode'] === 'navigate' &&
    headers['sec-fetch-dest'] === 'document'
  return navigation ? undefined : 'requests from another site are not answered'
}

function sameToken(given: string | undefined, expected: string): boolean {
  const a = Buffer.from(given ?? '')
  const b = Buffer.from(expected)
  return a.length === b.length && timingSafeEqual(a, b)
}

/** The studio's paths local mode serves: its pages, its code, and the API of launches (no accounts, links, leads). */
function isLocalPath(pathname: string): boolean {
  return (
    isShellPath(pathname) ||
    pathname === '/studio/preview-frame' ||
    pathname === '/studio/pages.css' ||
    pathname.startsWith('/studio/assets/') ||
    pathname === '/studio/api/me' ||
    (/^\/studio\/api\/launches(\/|$)/.test(pathname) && !pathname.endsWith('/preview-link'))
  )
}

/**
 * What a frame loads without being able to add a header (the draft form's module, pictures): read-only, same origin.
 */
function isFrameResource(method: string, pathname: string): boolean {
  return method === 'GET' && /^\/studio\/api\/launches\/[^/]+\/(validator\.js|images\/.+)$/.test(pathname)
}

/**
 * The local mode's gate, in place of sign-in: only the paths above; the API only with the page's token (in the
 * x-editor-token header); the person is `localAccount`. Opening a launch (or the list) first records its file as a
 * version "from disk" when a developer changed it (and it has no problems), so the editor opens what the file holds.
 */
export function addLocalGate(app: Hono<StudioEnv>, ctx: StudioContext): void {
  const local = ctx.local!
  app.use('*', async (c, next) => {
    const pathname = c.req.path
    if (!isLocalPath(pathname)) {
      return pathname.startsWith('/studio/api/')
        ? c.json({ error: 'There is no such request in the local editor.' }, 404)
        : c.text('Not found', 404)
    }
    if (
      pathname.startsWith('/studio/api/') &&
      !isFrameResource(c.req.method, pathname) &&
      !sameToken(c.req.header(localTokenHeader), local.token)
    ) {
      return c.json(
        { error: 'This request did not come from the editor page (its token is missing or wrong). Reload the editor.' },
        403,
      )
    }
    c.set('account', localAccount)
    c.set('sessionHash', '')
    if (c.req.method === 'GET' && /^\/studio\/api\/launches(\/[^/]+)?$/.test(pathname)) await recordDiskVersions(ctx)
    return next()
  })
}

/** The studio's page with the local token written in (the page's API calls send it back). */
export function withLocalToken(html: string, local: { token: string }): string {
  const meta = `<meta name="${localTokenMeta}" content="${escapeHtml(local.token)}">\n`
  return html.replace(/<\/head>/i, () => `${meta}</head>`)
}
