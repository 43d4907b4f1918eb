// The leads-page room (src/server/leads-page/): the sales team's pages at /leads (sign-in, list, search, CSV); it
// reads leads only through the store's contract (store/store.ts), never a driver.
import { Hono, type Context } from 'hono'
import { bodyLimit } from 'hono/body-limit'
import { deleteCookie, getCookie, setCookie } from 'hono/cookie'
import type { AppLog } from '../app.ts'
import type { PageConfig } from '../../../schema/page-config.ts'
import { fieldsOfForms, writeLeadsCsv } from './leads-csv.ts'
import { createSignInLimiter } from '../registration/sign-in-limits.ts'
import type { SignInCounts } from '../store/sign-in-counts.ts'
import type { LeadPosition, LeadSearch, LeadStore, StoredLead } from '../store/store.ts'
import { leadsCss } from './leads-css.ts'
import type { LeadsFilter, SessionStore } from './sessions.ts'
import { launchOf, listView, signInView, type LaunchChoice, type LeadsPageLaunch, type ViewContext } from './views.ts'

/**
 * The leads page for the sales team, at /leads on the Node server: a password sign-in, then every registration
 * newest first, searchable, a page at a time, downloadable as CSV. Mounted only when LEADS_PASSWORD is set.
 *
 * No personal data in URLs: the search is a POST whose text is kept in the server-side session (then a redirect
 * to GET /leads), and paging links carry only a lead's time and id. With several launches, a launch filter (kept in
 * the session too) narrows the list and the download to one. Every answer is `Cache-Control: no-store`
 * and `X-Robots-Tag: noindex`. CSRF: the session cookie is SameSite=Strict and every POST must come from this
 * origin (Origin header).
 */

/** What the leads page needs; the entry builds it. */
export type LeadsPageDeps = {
  /** Compares a typed password with LEADS_PASSWORD, in constant time (createPasswordCheck). */
  checkPassword: (attempt: string) => boolean
  store: Pick<LeadStore, 'searchLeads' | 'countLeadsByLaunch'>
  sessions: SessionStore
  /** The launches, default first: each one's name and form (field order, labels, option names). leadsPageLaunchOf. */
  launches: LeadsPageLaunch[]
  /** IANA time zone the team reads times in. */
  timeZone: string
  /** The caller's address as the entry trusts it (never a header the client wrote), for the sign-in limits. */
  clientIp: (c: Context) => string
  /** Where the sign-in limiter counts failures and remembers devices: the lead store, shared by every server on it. */
  signInCounts: SignInCounts
  /** How many proxies in front: then X-Forwarded-Proto/-Host say whether the visitor's connection is HTTPS. */
  trustProxy: number
  clock?: () => Date
  log?: AppLog
  /** Leads a page. Default 50. */
  pageSize?: number
  /** How long a session lasts. Default 12 hours. */
  sessionMs?: number
}

const cookieName = 'leads_session'
/** The device cookie: a client that signed in here in the last 30 days is exempt from the account and network budgets. */
const deviceCookieName = 'leads_device'
/** The one account the leads page has: the team's shared password. */
const account = 'leads-page'
const cookiePath = '/leads'

/** What the leads page needs of a launch's config. */
export function leadsPageLaunchOf(config: Pick<PageConfig, 'launch' | 'site' | 'form'>): LeadsPageLaunch {
  return { slug: config.launch.slug, siteName: config.site.name, form: config.form }
}

/** A page position as it travels in a link: base-36 milliseconds and id, nothing about the person. */
export function encodePosition(position: LeadPosition): string {
  return `${Date.parse(position.createdAt).toString(36)}-${position.id.toString(36)}`
}

/** The position of a paging link, or undefined when it is not one. */
export function decodePosition(text: string | undefined): LeadPosition | undefined {
  const match = /^([0-9a-z]{1,11})-([0-9a-z]{1,11})$/.exec(text ?? '')
  if (!match) return undefined
  const ms = parseInt(match[1]!, 36)
  const id = parseInt(match[2]!, 36)
  if (!Number.isSafeInteger(ms) || !Number.isSafeInteger(id) || ms > 8.64e15) return undefined
  return { createdAt: new Date(ms).toISOString(), id }
}

/** Builds the leads page's Hono app; mount it on the site with `site.route('/', app)`. */
export function createLeadsPage(deps: LeadsPageDeps): Hono {
  const clock = deps.clock ?? (() => new Date())
  const log: AppLog = deps.log ?? { info: (m) => console.log(m), error: (m, e) => console.error(m, e ?? '') }
  const pageSize = deps.pageSize ?? 50
  const sessionMs = deps.sessionMs ?? 12 * 60 * 60 * 1000
  const limiter = createSignInLimiter({ counts: deps.signInCounts, clock, log: { info: (m) => log.info(`leads page: ${m}`) } })
  const view: ViewContext = { launches: deps.launches, timeZone: deps.timeZone }

  /**
   * The launches to choose from (the configured ones, then any only the stored leads still name) and the session's
   * choice, dropped when no such launch is left.
   */
  async function launchChoice(filter: LeadsFilter): Promise<LaunchChoice> {
    const present = [...deps.launches]
    for (const { launch } of await deps.store.countLeadsByLaunch()) {
      if (!present.some((known) => known.slug === launch)) present.push(launchOf(deps.launches, launch))
    }
    return { present, selected: present.some((launch) => launch.slug === filter.launch) ? filter.launch : '' }
  }

  /** Whether the visitor's connection is HTTPS: the request itself, or the trusted proxy's X-Forwarded-Proto. */
  function isHttps(c: Context): boolean {
    if (new URL(c.req.url).protocol === 'https:') return true
    return deps.trustProxy > 0 && c.req.header('x-forwarded-proto')?.split(',')[0]?.trim().toLowerCase() === 'https'
  }

  /** A POST from a page of this origin: browsers send Origin on every form POST, so none means not ours. */
  function fromThisOrigin(c: Context): boolean {
    const origin = c.req.header('origin')
    const host = deps.trustProxy > 0 ? (c.req.header('x-forwarded-host') ?? c.req.header('host')) : c.req.header('host')
    if (!origin || !host || !URL.canParse(origin)) return false
    const url = new URL(origin)
    return url.host === host && url.protocol === (isHttps(c) ? 'https:' : 'http:')
  }

  function sessionOf(c: Context): { token: string; filter: LeadsFilter } | undefined {
    const token = getCookie(c, cookieName)
    if (!token) return undefined
    const session = deps.sessions.find(token, clock())
    return session ? { token, filter: session.filter } : undefined
  }

  const app = new Hono()

  // '/leads/*' matches /leads itself too.
  app.use(`${cookiePath}/*`, async (c, next) => {
    await next()
    c.res.headers.set('cache-control', 'no-store')
    c.res.headers.set('x-robots-tag', 'noindex, nofollow')
  })

  // Refuse cross-site POSTs before anything else reads the body or the session; a form here is a few hundred bytes.
  app.post(`${cookiePath}/*`, async (c, next) => {
    if (!fromThisOrigin(c)) return c.text('This form can only be sent from the leads page itself. Open /leads and try again.', 403)
    await next()
  })
  app.post(`${cookiePath}/*`, bodyLimit({ maxSize: 4096, onError: (c) => c.text('That form is too large.', 413) }))

  app.get(cookiePath, async (c) => {
    const session = sessionOf(c)
    if (!session) return c.html(signInView(view))
    const older = decodePosition(c.req.query('older'))
    const newer = older ? undefined : decodePosition(c.req.query('newer'))
    const choice = await launchChoice(session.filter)
    const search: LeadSearch = {
      text: session.filter.text,
      ...(choice.selected ? { launch: choice.selected } : {}),
      limit: pageSize,
      ...(older ? { from: { older } } : newer ? { from: { newer } } : {}),
    }
    const page = await deps.store.searchLeads(search)
    const first = page.leads[0]
    const last = page.leads.at(-1)
    return c.html(
      listView(view, page, session.filter.text, choice, {
        newest: !page.hasNewer,
        newer: page.hasNewer && first ? encodePosition(first) : undefined,
        older: page.hasOlder && last ? encodePosition(last) : undefined,
      }),
    )
  })
  app.get(`${cookiePath}/`, (c) => c.redirect(cookiePath, 301))

  app.post(`${cookiePath}/sign-in`, async (c) => {
    const attempt = { address: deps.clientIp(c), account, device: getCookie(c, deviceCookieName) }
    const verdict = await limiter.check(attempt)
    if (!verdict.allowed) {
      return c.text('Too many sign-in attempts. Please wait a minute and try again.', 429, { 'retry-after': String(verdict.retryAfterSeconds) })
    }
    const body = await c.req.parseBody()
    const typed = typeof body.password === 'string' ? body.password : ''
    if (!deps.checkPassword(typed)) {
      await limiter.recordFailure(attempt)
      log.info(`leads page: sign-in refused, wrong password (client ${attempt.address})`)
      return c.html(signInView(view, { kind: 'error', text: 'That password is not right. Please try again.' }), 401)
    }
    const device = await limiter.recordSuccess(attempt)
    setCookie(c, deviceCookieName, device.token, { path: cookiePath, httpOnly: true, sameSite: 'Strict', secure: isHttps(c), maxAge: device.maxAgeSeconds })
    const token = deps.sessions.create(clock(), sessionMs)
    setCookie(c, cookieName, token, {
      path: cookiePath,
      httpOnly: true,
      sameSite: 'Strict',
      secure: isHttps(c),
      maxAge: Math.floor(sessionMs / 1000),
    })
    log.info('leads page: signed in')
    return c.redirect(cookiePath, 303)
  })

  app.post(`${cookiePath}/sign-out`, (c) => {
    const token = getCookie(c, cookieName)
    if (token) deps.sessions.end(token)
    deleteCookie(c, cookieName, { path: cookiePath, httpOnly: true, sameSite: 'Strict', secure: isHttps(c) })
    return c.html(signInView(view, { kind: 'info', text: 'You are signed out.' }))
  })

  app.post(`${cookiePath}/search`, async (c) => {
    const session = sessionOf(c)
    if (!session) return c.redirect(cookiePath, 303)
    const body = await c.req.parseBody()
    const text = body.clear ? '' : typeof body.text === 'string' ? body.text.trim().slice(0, 200) : ''
    // Only a launch there is: anything else (a stale or forged value) means every launch.
    const wanted = body.clear || typeof body.launch !== 'string' ? '' : body.launch
    const { selected: launch } = await launchChoice({ text, launch: wanted })
    deps.sessions.saveFilter(session.token, { text, launch })
    return c.redirect(cookiePath, 303)
  })

  app.get(`${cookiePath}/leads.csv`, async (c) => {
    const session = sessionOf(c)
    if (!session) return c.redirect(cookiePath, 303)
    const text = session.filter.text
    const choice = await launchChoice(session.filter)
    const launch = choice.selected ? { launch: choice.selected } : {}
    async function* matching(): AsyncGenerator<StoredLead> {
      let from: LeadSearch['from']
      for (;;) {
        const page = await deps.store.searchLeads({ text, ...launch, limit: 500, ...(from ? { from } : {}) })
        yield* page.leads
        const last = page.leads.at(-1)
        if (!page.hasOlder || !last) return
        from = { older: { createdAt: last.createdAt, id: last.id } }
      }
    }
    // A byte-order mark, so Excel reads accents correctly; the team opens this in a spreadsheet.
    const chunks: string[] = ['\uFEFF']
    // The chosen launch's form fields, or every launch's (the default launch's first).
    const forms = (choice.selected ? [launchOf(choice.present, choice.selected)] : choice.present).map((l) => l.form)
    await writeLeadsCsv(matching, fieldsOfForms(forms), (chunk) => {
      chunks.push(chunk)
    })
    const day = new Intl.DateTimeFormat('en-CA', { timeZone: deps.timeZone }).format(clock())
    return c.body(chunks.join(''), 200, {
      'content-type': 'text/csv; charset=utf-8',
      'content-disposition': `attachment; filename="leads-${day}.csv"`,
    })
  })

  app.get(`${cookiePath}/leads.css`, (c) => c.body(leadsCss, 200, { 'content-type': 'text/css; charset=utf-8' }))

  return app
}
