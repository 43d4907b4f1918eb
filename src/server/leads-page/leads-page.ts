// The leads-page room (src/server/leads-page/): the sales team's pages at /leads (sign-in, list, search, CSV); it
// reads leads only through the store's contract (store/store.ts), never a driver.
import { Hono, type Context } from 'hono'
import { bodyLimit } from 'hono/body-limit'
import { deleteCookie, getCookie, setCookie } from 'hono/cookie'
import type { AppLog } from '../app.ts'
import { fieldsOfForms, writeLeadsCsv } from './leads-csv.ts'
import { createSignInLimiter } from '../registration/sign-in-limits.ts'
import type { SignInCounts } from '../store/sign-in-counts.ts'
import type { LeadPosition, LeadSearch, LeadStore, ListedLead } from '../store/store.ts'
import { leadsCss, leadsScript } from './leads-css.ts'
import { emptyFilter, type LeadsFilter, type SessionStore } from './sessions.ts'
import type { LeadsAudit, StudioSignIn, Viewer } from './viewers.ts'
import {
  assigneeLabel,
  launchOf,
  listView,
  signInView,
  type LaunchChoice,
  type LeadsPageLaunch,
  type SignInWays,
  type ViewContext,
} from './views.ts'
import { addLeadRoutes } from './lead-routes.ts'
import { statusesOf, unassignedFilter, type AssigneeChoice } from './filter-view.ts'
import { createPhoneReader, searchedPhone } from './phone-numbers.ts'
import { dayStart, nextDay } from '../store/days.ts'
import { addDashboardRoutes } from './dashboard.ts'
import { addAnnouncementRoutes, type AnnouncementDeps } from './announcements.ts'
import { peopleCsvHeader, peopleCsvRecord } from './people-csv.ts'

/**
 * The leads page for the sales team, at /leads on the Node server: every registration newest first, searchable, a
 * page at a time, each on a page of its own, downloadable as CSV. Who may look: a person signed in to the studio (any
 * role; an account limited to some launches sees only their leads), or, when LEADS_PASSWORD is set, whoever signs in
 * here with that shared password. Every look at the list, at a lead and every download goes into the audit log
 * (`audit`), with who and what but never a registrant's data or a search's text.
 *
 * No personal data in URLs: the search is a POST whose text is kept in the server-side session (then a redirect
 * to GET /leads), and paging links carry only a lead's time and id. With several launches, a launch filter (kept in
 * the session too) narrows the list and the download to one. Every answer is `Cache-Control: no-store`
 * and `X-Robots-Tag: noindex`. CSRF: the session cookie is SameSite=Strict and every POST must come from this
 * origin (Origin header).
 */

/** What the leads page needs; the entry builds it. */
export type LeadsPageDeps = {
  /** Compares a typed password with LEADS_PASSWORD, in constant time (createPasswordCheck); absent: no shared password. */
  checkPassword?: ((attempt: string) => boolean) | undefined
  /** The studio's sign-in: its accounts see the page without the shared password. Absent: the password alone. */
  studio?: StudioSignIn | undefined
  /** Where every look at the leads is written (the studio's audit log). */
  audit: LeadsAudit
  store: LeadsPageStore
  sessions: SessionStore
  /**
   * The launches, default first: each one's name and form (field order, labels, option names). leadsPageLaunchOf.
   * A function is read at every request: a server whose launches are published while it runs (leadsPageLaunchesOfLive).
   */
  launches: LeadsPageLaunch[] | (() => LeadsPageLaunch[])
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
  /** Queue a signed lead.updated webhook call with each change of a lead's follow-up (WEBHOOK_URL is set). */
  webhook?: boolean
  /** Called after a webhook call or an announcement was queued (the outbox worker's kick). */
  onQueued?: () => void
  /** What announcements need (announcements.ts); absent: the page says no launch can send one. */
  announcements?: AnnouncementDeps | undefined
}

/** What the leads page reads and writes of the lead store. */
export type LeadsPageStore = Pick<
  LeadStore,
  | 'searchLeads'
  | 'countLeadsByLaunch'
  | 'listLeads'
  | 'listMessages'
  | 'recordFollowUp'
  | 'followUpOf'
  | 'otherRegistrationsOf'
  | 'agentRegistrationOf'
  | 'countOtherRegistrations'
  | 'listAssignees'
  | 'fillPhoneNumbers'
  | 'countPulse'
  | 'listLeadAnnouncements'
  | 'documentOpeningsOf'
  | 'listAnnouncements'
  | 'listMarketableLeads'
  | 'saveAnnouncement'
  | 'queueTestAnnouncement'
  | 'isSuppressed'
>

const cookieName = 'leads_session'
/** The device cookie: a client that signed in here in the last 30 days is exempt from the account and network budgets. */
const deviceCookieName = 'leads_device'
/** The one account the leads page has: the team's shared password. */
const account = 'leads-page'
const cookiePath = '/leads'

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
  const limiter = createSignInLimiter({
    counts: deps.signInCounts,
    clock,
    log: { info: (m) => log.info(`leads page: ${m}`) },
  })
  const { launches } = deps
  const launchesNow = typeof launches === 'function' ? launches : () => launches
  const view: ViewContext = {
    get launches() {
      return launchesNow()
    },
    timeZone: deps.timeZone,
  }
  const readPhone = createPhoneReader((slug) => launchOf(launchesNow(), slug).form)
  let reading: Promise<void> | undefined
  /** Reads the phones of leads stored since the last look (E.164), once at a time: searches and repeats need them. */
  function readPhones(): Promise<void> {
    reading ??= deps.store
      .fillPhoneNumbers(readPhone)
      .then(() => undefined)
      .finally(() => {
        reading = undefined
      })
    return reading
  }
  // The leads stored before this version (or by the function since the last start) are read now, not on the first look.
  readPhones().catch((error: unknown) =>
    log.error('leads page: could not read the phone numbers of the stored leads', error),
  )

  /**
   * The launches to choose from (the configured ones, then any only the stored leads still name) and the session's
   * choice, dropped when no such launch is left.
   */
  async function launchChoice(viewer: Viewer, filter: LeadsFilter): Promise<LaunchChoice> {
    const present = [...launchesNow()]
    for (const { launch } of await deps.store.countLeadsByLaunch()) {
      if (!present.some((known) => known.slug === launch)) present.push(launchOf(present, launch))
    }
    const allowed = present.filter((launch) => mayView(viewer, launch.slug))
    return { present: allowed, selected: allowed.some((launch) => launch.slug === filter.launch) ? filter.launch : '' }
  }

  /** A search within what the viewer may see: the chosen launch, else their account's launches (if limited). */
  function scopeOf(viewer: Viewer, choice: LaunchChoice): Pick<LeadSearch, 'launch' | 'launches'> {
    if (choice.selected) return { launch: choice.selected }
    return viewer.launches ? { launches: viewer.launches } : {}
  }

  /** The search a filter asks for (the launch aside): text (and the phone it reads as), status, assignee, realtor, days. */
  function searchOf(
    filter: LeadsFilter,
    choice: LaunchChoice,
  ): Omit<LeadSearch, 'limit' | 'launch' | 'launches' | 'from'> {
    const phone = searchedPhone(filter.text)
    const inView = choice.selected ? choice.present.filter((launch) => launch.slug === choice.selected) : choice.present
    const from = filter.from ? dayStart(filter.from, deps.timeZone) : undefined
    const to = filter.to ? dayStart(nextDay(filter.to), deps.timeZone) : undefined
    return {
      text: filter.text,
      ...(phone ? { phone } : {}),
      // A lead never given a status is in its launch's first one.
      ...(filter.status
        ? { status: { is: filter.status, orUnset: inView.some((launch) => launch.statuses[0] === filter.status) } }
        : {}),
      ...(filter.assignee ? { assignee: filter.assignee === unassignedFilter ? '' : filter.assignee } : {}),
      ...(filter.realtor ? { realtor: filter.realtor === 'yes' } : {}),
      ...(from ? { createdFrom: from } : {}),
      ...(to ? { createdBefore: to } : {}),
    }
  }

  /** The people the list may be filtered by: the studio's sales and editor accounts, and whoever some lead is assigned to. */
  async function assigneeChoices(): Promise<AssigneeChoice[]> {
    const accounts = deps.studio?.assignable ? (await deps.studio.assignable()).map((account) => account.email) : []
    const all = [...new Set([...accounts, ...(await deps.store.listAssignees())])].sort((a, b) => a.localeCompare(b))
    return all.map((value) => ({ value, label: assigneeLabel(view, value) }))
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

  async function sessionOf(c: Context): Promise<{ token: string; filter: LeadsFilter } | undefined> {
    const token = getCookie(c, cookieName)
    if (!token || !deps.checkPassword) return undefined
    const session = await deps.sessions.find(token, clock())
    return session ? { token, filter: session.filter } : undefined
  }

  /**
   * Who is looking, and at what: a studio account (its launches, its search kept under its session) or the shared
   * password's session. A studio session that ended, expired or was voided is nobody.
   */
  async function viewerOf(c: Context): Promise<Viewer | undefined> {
    const account = deps.studio ? await deps.studio.viewerOf(c) : undefined
    if (account) {
      return {
        who: account.email,
        launches: account.launches,
        account,
        filter: await deps.sessions.accountFilter(account.sessionKey, clock()),
        saveFilter: (filter) => deps.sessions.saveAccountFilter(account.sessionKey, filter, clock(), sessionMs),
      }
    }
    const session = await sessionOf(c)
    if (!session) return undefined
    return {
      who: `shared leads password from ${deps.clientIp(c)}`,
      filter: session.filter,
      saveFilter: (filter) => deps.sessions.saveFilter(session.token, filter),
    }
  }

  async function signInWays(): Promise<SignInWays> {
    const studio = deps.studio && (await deps.studio.hasAccounts()) ? deps.studio.signInPath : undefined
    return { password: deps.checkPassword !== undefined, studio }
  }

  /** The answer to someone not signed in: the sign-in form, or (no shared password) the studio's sign-in. */
  async function signInAnswer(c: Context): Promise<Response> {
    const ways = await signInWays()
    if (!ways.password && ways.studio) return c.redirect(ways.studio, 303)
    return c.html(signInView(view, ways))
  }

  /** The launches a viewer may see: every one, or their account's. */
  const mayView = (viewer: Viewer, launch: string) => viewer.launches === undefined || viewer.launches.includes(launch)
  const studioLink = (viewer: Viewer) => viewer.account !== undefined && viewer.account.role !== 'sales'

  /** What a list or a download was narrowed to, for the audit log: the launch, the filters, whether a search (never its text). */
  function filterWords(viewer: Viewer, choice: LaunchChoice, filter: LeadsFilter): string {
    const launches = choice.selected
      ? `launch ${choice.selected}`
      : viewer.launches
        ? `the account's launches (${viewer.launches.join(', ') || 'none'})`
        : 'all launches'
    const filters = [
      filter.status && `status ${filter.status}`,
      filter.assignee && 'an assignee',
      filter.realtor && (filter.realtor === 'yes' ? 'realtors' : 'buyers'),
      filter.from && `from ${filter.from}`,
      filter.to && `to ${filter.to}`,
    ].filter(Boolean)
    return `${launches}, ${filters.length ? `${filters.join(', ')}, ` : ''}${filter.text ? 'with a search (its text is not recorded)' : 'no search'}`
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
    if (!fromThisOrigin(c))
      return c.text('This form can only be sent from the leads page itself. Open /leads and try again.', 403)
    await next()
  })
  // A note may be 1,000 characters of any script: up to 12 bytes each once form-encoded.
  const smallForm = bodyLimit({ maxSize: 4096, onError: (c) => c.text('That form is too large.', 413) })
  const noteForm = bodyLimit({
    maxSize: 16_384,
    onError: (c) => c.text('That note is too long: keep it under 1,000 characters.', 413),
  })
  const announcementForm = bodyLimit({
    maxSize: 65_536,
    onError: (c) => c.text('That announcement is too long: keep it under 2,000 characters.', 413),
  })
  app.post(`${cookiePath}/*`, (c, next) =>
    (c.req.path.endsWith('/note') ? noteForm : c.req.path === '/leads/announcements' ? announcementForm : smallForm)(
      c,
      next,
    ),
  )

  app.get(cookiePath, async (c) => {
    const viewer = await viewerOf(c)
    if (!viewer) return signInAnswer(c)
    const older = decodePosition(c.req.query('older'))
    const newer = older ? undefined : decodePosition(c.req.query('newer'))
    const choice = await launchChoice(viewer, viewer.filter)
    await readPhones()
    const search: LeadSearch = {
      ...searchOf(viewer.filter, choice),
      ...scopeOf(viewer, choice),
      limit: pageSize,
      ...(older ? { from: { older } } : newer ? { from: { newer } } : {}),
    }
    const page = await deps.store.searchLeads(search)
    const first = page.leads[0]
    const last = page.leads.at(-1)
    const which = older ? 'an older page' : newer ? 'a newer page' : 'the newest page'
    await deps.audit({
      who: viewer.who,
      action: 'viewed the leads list',
      launch: choice.selected || undefined,
      detail: `${which}; ${filterWords(viewer, choice, viewer.filter)}; ${page.leads.length} of ${page.total} shown`,
    })
    const repeats = new Map(
      (await deps.store.countOtherRegistrations(page.leads.map((lead) => lead.id))).map((r) => [r.leadId, r.others]),
    )
    return c.html(
      listView(
        view,
        page,
        viewer.filter,
        choice,
        {
          newest: !page.hasNewer,
          newer: page.hasNewer && first ? encodePosition(first) : undefined,
          older: page.hasOlder && last ? encodePosition(last) : undefined,
        },
        studioLink(viewer),
        { assignees: await assigneeChoices(), repeats },
      ),
    )
  })

  addLeadRoutes(app, {
    store: deps.store,
    audit: deps.audit,
    studio: deps.studio,
    view,
    clock,
    webhook: deps.webhook ?? false,
    onQueued: deps.onQueued,
    viewerOf,
    mayView,
    studioLink,
    readPhones,
  })
  addAnnouncementRoutes(app, {
    store: deps.store,
    deps: deps.announcements,
    audit: deps.audit,
    view,
    clock,
    onQueued: deps.onQueued,
    viewerOf,
    mayView,
    studioLink,
  })
  addDashboardRoutes(app, {
    store: deps.store,
    audit: deps.audit,
    view,
    clock,
    viewerOf,
    launchChoice,
    scopeOf,
    studioLink,
  })
  app.get(`${cookiePath}/`, (c) => c.redirect(cookiePath, 301))

  app.post(`${cookiePath}/sign-in`, async (c) => {
    if (!deps.checkPassword) return c.redirect(cookiePath, 303)
    const attempt = { address: deps.clientIp(c), account, device: getCookie(c, deviceCookieName) }
    const verdict = await limiter.check(attempt)
    if (!verdict.allowed) {
      return c.text('Too many sign-in attempts. Please wait a minute and try again.', 429, {
        'retry-after': String(verdict.retryAfterSeconds),
      })
    }
    const body = await c.req.parseBody()
    const typed = typeof body.password === 'string' ? body.password : ''
    if (!deps.checkPassword(typed)) {
      await limiter.recordFailure(attempt)
      log.info(`leads page: sign-in refused, wrong password (client ${attempt.address})`)
      return c.html(
        signInView(view, await signInWays(), { kind: 'error', text: 'That password is not right. Please try again.' }),
        401,
      )
    }
    const device = await limiter.recordSuccess(attempt)
    setCookie(c, deviceCookieName, device.token, {
      path: cookiePath,
      httpOnly: true,
      sameSite: 'Strict',
      secure: isHttps(c),
      maxAge: device.maxAgeSeconds,
    })
    const token = await deps.sessions.create(clock(), sessionMs)
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

  // Ends whichever sessions the browser holds here: the shared password's and the studio account's.
  app.post(`${cookiePath}/sign-out`, async (c) => {
    const token = getCookie(c, cookieName)
    if (token) await deps.sessions.end(token)
    deleteCookie(c, cookieName, { path: cookiePath, httpOnly: true, sameSite: 'Strict', secure: isHttps(c) })
    const viewer = deps.studio ? await viewerOf(c) : undefined
    if (viewer?.account) {
      // The search typed (perhaps a name) goes with the session.
      await viewer.saveFilter({ ...emptyFilter })
      await deps.studio!.signOut(c)
    }
    return c.html(signInView(view, await signInWays(), { kind: 'info', text: 'You are signed out.' }))
  })

  app.post(`${cookiePath}/search`, async (c) => {
    const viewer = await viewerOf(c)
    if (!viewer) return c.redirect(cookiePath, 303)
    const body = await c.req.parseBody()
    const field = (name: string, max = 200) =>
      body.clear || typeof body[name] !== 'string' ? '' : (body[name] as string).trim().slice(0, max)
    const text = field('text')
    // Only a launch there is and the viewer may see: anything else (a stale or forged value) means all of theirs.
    const choice = await launchChoice(viewer, { ...emptyFilter, launch: field('launch') })
    // A status none of the launches in view has, or a day that is not one, narrows nothing.
    const status = statusesOf(choice).includes(field('status')) ? field('status') : ''
    const realtor = field('realtor') === 'yes' || field('realtor') === 'no' ? (field('realtor') as 'yes' | 'no') : ''
    const day = (name: string) => (dayStart(field(name), deps.timeZone) ? field(name) : '')
    await viewer.saveFilter({
      text,
      launch: choice.selected,
      status,
      assignee: field('assignee'),
      realtor,
      from: day('from'),
      to: day('to'),
    })
    return c.redirect(cookiePath, 303)
  })

  /** The leads a download gives: the viewer's list as filtered, newest first, 500 a query (memory stays flat). */
  function matchingLeads(viewer: Viewer, choice: LaunchChoice): () => AsyncGenerator<ListedLead> {
    const narrowed = { ...searchOf(viewer.filter, choice), ...scopeOf(viewer, choice) }
    return async function* () {
      let from: LeadSearch['from']
      for (;;) {
        const page = await deps.store.searchLeads({ ...narrowed, limit: 500, ...(from ? { from } : {}) })
        yield* page.leads
        const last = page.leads.at(-1)
        if (!page.hasOlder || !last) return
        from = { older: { createdAt: last.createdAt, id: last.id } }
      }
    }
  }

  /** A CSV download's answer: a byte-order mark first, so Excel reads accents correctly. */
  async function csvAnswer(
    c: Context,
    viewer: Viewer,
    choice: LaunchChoice,
    what: string,
    name: string,
    chunks: string[],
    written: number,
  ) {
    await deps.audit({
      who: viewer.who,
      action: `downloaded leads as CSV${what}`,
      launch: choice.selected || undefined,
      detail: `${filterWords(viewer, choice, viewer.filter)}; ${written} leads`,
    })
    const day = new Intl.DateTimeFormat('en-CA', { timeZone: deps.timeZone }).format(clock())
    return c.body(['\uFEFF', ...chunks].join(''), 200, {
      'content-type': 'text/csv; charset=utf-8',
      'content-disposition': `attachment; filename="${name}-${day}.csv"`,
    })
  }

  // Every column, for integrations (the same writer as npm run leads:export).
  app.get(`${cookiePath}/leads.csv`, async (c) => {
    const viewer = await viewerOf(c)
    if (!viewer) return c.redirect(cookiePath, 303)
    const choice = await launchChoice(viewer, viewer.filter)
    await readPhones()
    const chunks: string[] = []
    // The chosen launch's form fields, or every launch's (the default launch's first).
    const forms = (choice.selected ? [launchOf(choice.present, choice.selected)] : choice.present).map((l) => l.form)
    const written = await writeLeadsCsv(
      matchingLeads(viewer, choice),
      fieldsOfForms(forms),
      (chunk) => void chunks.push(chunk),
      (ids) => deps.store.documentOpeningsOf(ids),
    )
    return csvAnswer(c, viewer, choice, '', 'leads', chunks, written)
  })

  // The columns a salesperson reads (people-csv.ts).
  app.get(`${cookiePath}/people.csv`, async (c) => {
    const viewer = await viewerOf(c)
    if (!viewer) return c.redirect(cookiePath, 303)
    const choice = await launchChoice(viewer, viewer.filter)
    const withLaunch = !choice.selected && choice.present.length > 1
    const chunks = [peopleCsvHeader(deps.timeZone, withLaunch)]
    for await (const lead of matchingLeads(viewer, choice)())
      chunks.push(peopleCsvRecord(lead, choice.present, deps.timeZone, withLaunch))
    return csvAnswer(
      c,
      viewer,
      choice,
      ' (for people)',
      `${choice.selected || 'all-launches'}-leads`,
      chunks,
      chunks.length - 1,
    )
  })

  app.get(`${cookiePath}/leads.css`, (c) => c.body(leadsCss, 200, { 'content-type': 'text/css; charset=utf-8' }))
  app.get(`${cookiePath}/leads.js`, (c) =>
    c.body(leadsScript, 200, { 'content-type': 'text/javascript; charset=utf-8' }),
  )

  return app
}
