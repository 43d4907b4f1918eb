import type { Hono, MiddlewareHandler } from 'hono'
import type { ClientAddressOf } from './function.ts'
import type { LaunchPicker } from './requests.ts'
import { unpublishedAnswer } from '../site/unpublished-page.ts'
import type { VisitCounter } from '../site/visit-counter.ts'

/** Each launch's security headers, and a refused body's connection closed: before any route of the site. */
export function mountSiteHeaders(site: Hono, pick: LaunchPicker): void {
  site.use('*', async (c: Parameters<MiddlewareHandler>[0], next) => {
    const { launch } = await pick(c)
    // Each launch's pages: their inline JSON-LD and stylesheet allowed by hash in its CSP (and a hosted function's
    // origin).
    if (launch.version) return launch.version.headers(c, next)
    await next()
  })
  site.use('*', async (c, next) => {
    await next()
    // A refused body is never read: tell the client this connection is done, or its next request meets a closed socket.
    if (c.res.status === 413) c.res.headers.set('connection', 'close')
  })
}

/** What the launches' files are answered with. */
export type LaunchFilesDeps = {
  pick: LaunchPicker
  visits: VisitCounter
  clientAddress: ClientAddressOf
  /** VITE_SUPABASE_URL: pages count their visits through the hosted function instead. */
  supabaseUrl: string | undefined
}

/** Every other path: the launch's built files (visits counted), its "not published yet" page, or the error page. */
export function mountLaunchFiles(site: Hono, { pick, visits, clientAddress, supabaseUrl }: LaunchFilesDeps): void {
  site.all('*', async (c) => {
    const { launch } = await pick(c)
    if (!launch.version) return unpublishedAnswer(launch.siteName, c.req.method, launch.unpublished)
    const response = await launch.version.files(c)
    if (launch.version.contract.countVisits !== false && supabaseUrl === undefined)
      visits.count(c.req.raw, response, launch.slug, clientAddress(c) ?? '')
    // A page loaded just before a publish may still ask for its own hashed assets: the replaced version has them.
    if (response.status === 404 && launch.previous && new URL(c.req.url).pathname.startsWith('/assets/')) {
      const old = await launch.previous.files(c)
      if (old.status === 200) return old
    }
    return response
  })
  site.onError((error, c) => {
    console.error('Unexpected error', error)
    return c.json({ error: 'The server could not answer just now. Please try again in a moment.' }, 500)
  })
}
