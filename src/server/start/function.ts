import type { HttpBindings } from '@hono/node-server'
import { Hono, type Context, type MiddlewareHandler } from 'hono'
import { contactFunctionPaths, createApp } from '../app.ts'
import type { DeliverySupervisor } from '../delivery-supervisor.ts'
import { requestHandlingOf, type NodeServerConfig } from '../env.ts'
import type { ReplyLinks } from './mail.ts'
import type { LaunchPicker } from './requests.ts'
import type { RateLimiter } from '../registration/rate-limit.ts'
import { createDocumentFiles } from '../site/document-files.ts'
import { launchSiteOf } from '../site/launch-site.ts'
import type { LaunchVersion } from '../site/launch-version.ts'
import type { FunctionMaker, LiveLaunch } from '../site/live-launches.ts'
import type { VisitImageCounter } from '../site/visit-requests.ts'
import type { ReleaseStore } from '../store/release.ts'
import type { AddressKey, LeadStore } from '../store/store.ts'

// The function's own 404 (a path under its paths that it does not answer): the site's 404 page answers instead.
const notFunction = 'x-not-the-function'

/** The visitor's address as the Node server trusts it (TRUST_PROXY's proxies counted), from the request. */
export type ClientAddressOf = (c: Context) => string | undefined

/** What the function of each snapshot is made with: the server's parts that outlive a publish. */
export type FunctionDeps = {
  settings: NodeServerConfig
  clock: (() => Date) | undefined
  store: LeadStore
  /** Shared by every function the server makes: a publish must not reset anyone's count. */
  rateLimiter: RateLimiter
  delivery: DeliverySupervisor
  links: ReplyLinks
  clientAddress: ClientAddressOf
  webhook: boolean
  suppressionKeyOf: (email: string) => Promise<AddressKey>
  visits: VisitImageCounter
  /** The inventory and worksheets beside the leads: the realtors' worksheet page. */
  release: ReleaseStore
}

type Served = LiveLaunch & { version: LaunchVersion }

/** The assignee's link: the leads page's own address, never a launch's (it may be a static host). */
function leadsUrlOf(settings: NodeServerConfig): string {
  if (settings.studioHost)
    return `${settings.publicUrl ? new URL(settings.publicUrl).protocol : 'https:'}//${settings.studioHost}`
  return settings.publicUrl ?? `http://localhost:${settings.port}`
}

function launchSitesOf(deps: FunctionDeps, launchesServed: readonly Served[]) {
  return launchesServed.map(({ version }) =>
    launchSiteOf(version.contract, {
      notifyEmail: deps.settings.notifyEmail,
      links: version.contract.reply ? deps.links.signerOf(version.contract) : undefined,
      pageCss: version.pageCss,
      leadsUrl: leadsUrlOf(deps.settings),
      // A plain form post (no JavaScript) with fields to correct is answered with the launch's home page, filled in.
      formPageHtml: version.home,
      phasePages: version.phaseHomes,
      worksheets: true,
    }),
  )
}

function functionAppOf(deps: FunctionDeps, ...[launchesServed, defaultSlug, launchOfHost]: Parameters<FunctionMaker>) {
  const slugs = new Set(launchesServed.map((launch) => launch.slug))
  return createApp({
    launches: launchSitesOf(deps, launchesServed),
    defaultLaunch: defaultSlug,
    launchOfHost: (host) => {
      const slug = launchOfHost(host)
      return slugs.has(slug) ? slug : undefined
    },
    ...requestHandlingOf(deps.settings),
    rateLimiter: deps.rateLimiter,
    store: deps.store,
    clock: deps.clock,
    clientAddress: deps.clientAddress,
    onLeadStored: () => deps.delivery.leadStored(),
    composeAtDelivery: true,
    webhook: deps.webhook,
    suppressionKeyOf: deps.suppressionKeyOf,
    visits: deps.visits,
    release: deps.release,
    documentFiles: createDocumentFiles((slug) => launchesServed.find((launch) => launch.slug === slug)?.configFile),
  })
}

/** The function for the launches served now: made anew with each snapshot, so a published form is the one checked. */
export function createFunctionMaker(deps: FunctionDeps): FunctionMaker {
  return (launchesServed, defaultSlug, launchOfHost) => {
    const fn = new Hono()
    deps.delivery.setLaunches(
      launchesServed.map(({ version }) => ({
        contract: version.contract,
        linkBase: deps.links.baseOf(version.contract),
      })),
    )
    if (launchesServed.length > 0) fn.route('/', functionAppOf(deps, launchesServed, defaultSlug, launchOfHost))
    // Any other path under the function's is the site's (its 404 page), as when the function was mounted beside it.
    fn.notFound(() => new Response(null, { status: 404, headers: { [notFunction]: '1' } }))
    return fn
  }
}

/** The visitor's address from the Node request, as the forwarded-address reader trusts it. */
export function clientAddressFrom(visitorAddress: (incoming: HttpBindings['incoming']) => string | undefined) {
  return (c: Context) => visitorAddress((c.env as HttpBindings).incoming)
}

/** Routes the function's paths to the snapshot's function; a launch not published yet answers 503. */
export function mountFunction(site: Hono, pick: LaunchPicker): void {
  const toFunction: MiddlewareHandler = async (c, next) => {
    const { snapshot, launch } = await pick(c)
    if (!launch.version) {
      return c.json({ error: `${launch.siteName} is not published yet: registrations open once it is.` }, 503, {
        'retry-after': '60',
      })
    }
    const response = await snapshot.fn.fetch(c.req.raw, c.env)
    if (response.headers.get(notFunction)) return next()
    return response
  }
  for (const functionPath of contactFunctionPaths)
    site.all(functionPath, toFunction).all(`${functionPath}/*`, toFunction)
}
