import type { Context } from 'hono'
import type { AppLog } from '../app.ts'
import { createSignInLimiter, type SignInLimiter } from '../registration/sign-in-limits.ts'
import type { SignInCounts } from '../store/sign-in-counts.ts'
import type { LeadStore } from '../store/store.ts'
import type { AnnouncementDeps } from './announcements.ts'
import { startReadingPhones } from './phone-numbers.ts'
import type { SessionStore } from './sessions.ts'
import { viewerOf, type LeadsAudit, type StudioSignIn, type Viewer } from './viewers.ts'
import { launchOf, type LeadsPageLaunch, type ViewContext } from './views.ts'
import type { LeadsWorksheets } from './leads-csv.ts'

/** What the leads page needs; the entry builds it. */
export type LeadsPageDeps = {
  /**
   * Compares a typed password with LEADS_PASSWORD, in constant time (createPasswordCheck); absent: no shared password.
   */
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
  /** The realtors' worksheets (leads-csv.ts); absent: the page shows none. */
  worksheets?: LeadsWorksheets | undefined
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
  | 'countBacklog'
  | 'countMessages'
  | 'listLeadAnnouncements'
  | 'documentOpeningsOf'
  | 'listAnnouncements'
  | 'listMarketableLeads'
  | 'saveAnnouncement'
  | 'queueTestAnnouncement'
  | 'isSuppressed'
>

/**
 * What every route of the leads page is given (routes/*.ts): the entry's deps with their defaults filled in, the view's
 * context, the sign-in limiter, and the few questions every page asks (who is looking, the phones read).
 */
export type LeadsContext = Omit<
  Required<LeadsPageDeps>,
  | 'clock'
  | 'log'
  | 'pageSize'
  | 'sessionMs'
  | 'webhook'
  | 'launches'
  | 'checkPassword'
  | 'studio'
  | 'announcements'
  | 'onQueued'
  | 'worksheets'
> & {
  worksheets: LeadsWorksheets | undefined
  checkPassword: ((attempt: string) => boolean) | undefined
  studio: StudioSignIn | undefined
  announcements: AnnouncementDeps | undefined
  onQueued: (() => void) | undefined
  clock: () => Date
  log: AppLog
  pageSize: number
  sessionMs: number
  webhook: boolean
  view: ViewContext
  limiter: SignInLimiter
  /** Reads the phones of leads stored since the last look (E.164), before a search or a lead's repeats. */
  readPhones(): Promise<void>
  /** Who is looking (viewers.ts), or undefined for someone not signed in. */
  viewerOf(c: Context): Promise<Viewer | undefined>
}

const consoleLog: AppLog = { info: (m) => console.log(m), error: (m, e) => console.error(m, e ?? '') }

/** The leads page's context, built once: defaults, the live launches, the limiter; starts reading the stored phones. */
export function createLeadsContext(deps: LeadsPageDeps): LeadsContext {
  const clock = deps.clock ?? (() => new Date())
  const log = deps.log ?? consoleLog
  const { launches } = deps
  const launchesNow = typeof launches === 'function' ? launches : () => launches
  const view: ViewContext = {
    get launches() {
      return launchesNow()
    },
    timeZone: deps.timeZone,
  }
  const ctx: LeadsContext = {
    ...deps,
    checkPassword: deps.checkPassword,
    studio: deps.studio,
    announcements: deps.announcements,
    onQueued: deps.onQueued,
    worksheets: deps.worksheets,
    clock,
    log,
    pageSize: deps.pageSize ?? 50,
    sessionMs: deps.sessionMs ?? 12 * 60 * 60 * 1000,
    webhook: deps.webhook ?? false,
    view,
    limiter: createSignInLimiter({
      counts: deps.signInCounts,
      clock,
      log: { info: (m) => log.info(`leads page: ${m}`) },
    }),
    readPhones: startReadingPhones(deps.store, (slug) => launchOf(launchesNow(), slug).form, log),
    viewerOf: (c) => viewerOf(c, ctx),
  }
  return ctx
}
