import { Hono } from 'hono'
import type { ReplyConfig } from '../../../schema/reply.ts'
import { createDocumentRoutes, type DocumentLaunch } from '../delivery/document-routes.ts'
import { composeDocumentsReply } from '../delivery/follow-ups.ts'
import { worksheetUrl } from '../delivery/document-links.ts'
import { createUnsubscribeRoutes, type UnsubscribePageTexts } from '../delivery/unsubscribe.ts'
import { requestHost } from '../registration/caller.ts'
import { rateLimitKey } from '../registration/client-address.ts'
import { formPostOrigin } from '../registration/form-post.ts'
import type { WorksheetLaunch } from '../release/worksheet-deps.ts'
import { createWorksheetRoutes } from '../release/worksheet-routes.ts'
import type { LaunchSite } from '../site/launch-site.ts'
import type { FunctionContext } from './context.ts'

type Replying = LaunchSite & { reply: NonNullable<LaunchSite['reply']> }

function unsubscribeWordsOf(site: Replying): UnsubscribePageTexts {
  return {
    texts: site.reply.config.unsubscribe,
    siteName: site.site.name,
    lang: site.site.lang,
    pageCss: site.reply.pageCss,
  }
}

/** The unsubscribe links' pages, each in the words of the lead's launch. */
function unsubscribeRoutes(fn: FunctionContext, paths: readonly string[], replying: Replying[], secrets: string[]) {
  const { deps, log } = fn
  // A link that is not well signed names no lead: the default launch's words, or the first launch that replies.
  const fallback = replying.find((site) => site.slug === deps.defaultLaunch) ?? replying[0]!
  const textsFor = async (submissionId: string | undefined): Promise<UnsubscribePageTexts> => {
    if (submissionId === undefined) return unsubscribeWordsOf(fallback)
    try {
      const lead = await deps.store.findLead(submissionId)
      const site = fn.launches.get(lead?.launch ?? deps.defaultLaunch)?.site
      return unsubscribeWordsOf(site?.reply ? (site as Replying) : fallback)
    } catch (error) {
      log.error('unsubscribe: could not read the lead of a link', error)
      return unsubscribeWordsOf(fallback)
    }
  }
  return createUnsubscribeRoutes([...paths], { store: deps.store, secrets, textsFor, clock: fn.clock, log })
}

function documentLaunchOf(site: Replying): DocumentLaunch {
  return {
    slug: site.slug,
    siteName: site.site.name,
    lang: site.site.lang,
    pageCss: site.reply.pageCss,
    documents: site.documents!,
  }
}

/**
 * Each reply links the launch's documents; their links are signed with the same secrets (delivery/document-links.ts).
 */
function documentRoutes(
  fn: FunctionContext,
  paths: readonly string[],
  documented: Map<string, Replying>,
  secrets: string[],
) {
  const { deps } = fn
  const first = documented.get(deps.defaultLaunch) ?? [...documented.values()][0]!
  return createDocumentRoutes([...paths], {
    store: deps.store,
    secrets,
    launchOf: (slug) => {
      const site = documented.get(slug)
      return site && documentLaunchOf(site)
    },
    fallback: documentLaunchOf(first),
    readFile: deps.documentFiles ?? (() => Promise.resolve(undefined)),
    freshReply: async (lead, now) => {
      const site = documented.get(lead.launch)
      const phaseReply = (config: ReplyConfig) =>
        fn.launches.get(lead.launch)?.phases?.reply(config, lead.phase) ?? config
      return site && composeDocumentsReply(lead, site, phaseReply, now)
    },
    webhook: deps.webhook === true,
    overLimit: async (c) => !(await fn.limiter.hit(rateLimitKey(fn.clientAddressOf(c)), fn.clock().getTime())).allowed,
    onQueued: deps.onLeadStored,
    clock: fn.clock,
    newId: fn.newId,
    log: fn.log,
  })
}

function worksheetLaunchOf(fn: FunctionContext, site: Replying): WorksheetLaunch {
  return {
    slug: site.slug,
    siteName: site.site.name,
    lang: site.site.lang,
    pageCss: site.reply.pageCss,
    texts: site.worksheets!.texts,
    phases: site.phases,
    timeZone: site.phases?.timeZone ?? fn.timeZone,
    desk: site.realtorEmail ?? site.notifyEmail,
    fromName: site.reply.config.sender.name,
  }
}

/** A realtor's reply links their worksheet page (delivery/document-links.ts), signed with the same secrets. */
function worksheetRoutes(fn: FunctionContext, paths: readonly string[], taking: Replying[], secrets: string[]) {
  const { deps } = fn
  const launches = new Map(taking.map((site) => [site.slug, { site, launch: worksheetLaunchOf(fn, site) }]))
  const first = launches.get(deps.defaultLaunch) ?? [...launches.values()][0]!
  return createWorksheetRoutes(paths, {
    store: deps.store,
    release: deps.release!,
    secrets,
    launchOf: (slug) => launches.get(slug)?.launch,
    launchOfRequest: (c) => {
      const slug = deps.launchOfHost?.(requestHost(c, deps.trustProxy ?? 0) ?? '')
      return slug === undefined ? undefined : launches.get(slug)?.launch
    },
    defaultLaunch: deps.defaultLaunch,
    linkOf: (slug, submissionId) => worksheetUrl(launches.get(slug)!.site.reply.links, submissionId),
    fallback: first.launch,
    sameSite: (c, launch) => {
      const origin = formPostOrigin(c.req.header('origin'), c.req.header('referer'))
      if (origin === undefined || !URL.canParse(origin)) return false
      const host = requestHost(c, deps.trustProxy ?? 0)
      const site = launches.get(launch.slug)?.site
      const base = site?.reply.links.baseUrl ?? ''
      // The links' origin is where the page is (PUBLIC_FUNCTION_URL): behind Supabase's gateway the Host the function
      // sees need not be it.
      return (
        new URL(origin).host === host ||
        (site !== undefined &&
          (site.origins.includes(origin) || (URL.canParse(base) && new URL(base).origin === origin)))
      )
    },
    overLimit: async (c) => !(await fn.limiter.hit(rateLimitKey(fn.clientAddressOf(c)), fn.clock().getTime())).allowed,
    webhook: deps.webhook === true,
    onQueued: deps.onLeadStored,
    clock: fn.clock,
    newId: fn.newId,
    log: fn.log,
  })
}

/** The pages a reply's links open (unsubscribe, documents), for the launches that reply; none without one. */
export function replyRoutes(fn: FunctionContext, paths: readonly string[]): Hono {
  const routes = new Hono()
  const replying = fn.deps.launches.filter((site): site is Replying => site.reply !== undefined)
  if (replying.length === 0) return routes
  const secrets = [...new Set(replying.map((site) => site.reply.links.secret))]
  routes.route('/', unsubscribeRoutes(fn, paths, replying, secrets))
  const documented = new Map(replying.filter((site) => site.documents !== undefined).map((site) => [site.slug, site]))
  if (documented.size > 0) routes.route('/', documentRoutes(fn, paths, documented, secrets))
  const taking = replying.filter((site) => site.worksheets !== undefined)
  if (fn.deps.release && taking.length > 0) routes.route('/', worksheetRoutes(fn, paths, taking, secrets))
  return routes
}
