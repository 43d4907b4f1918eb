// What the worksheet pages (worksheet-routes.ts, worksheet-link-request.ts) are given: the launch as they show it, and
// the store, secrets, checks and clock they work with.
import type { Context } from 'hono'
import type { WorksheetPhases, WorksheetTexts } from '../../../schema/worksheets.ts'
import type { ReleaseStore } from '../store/release.ts'
import type { LeadStore } from '../store/store.ts'

/** A launch as its worksheet page needs it. */
export type WorksheetLaunch = {
  slug: string
  siteName: string
  lang: string
  pageCss?: string | undefined
  texts: WorksheetTexts
  phases: WorksheetPhases | undefined
  /** launch.timeZone, else the server's. */
  timeZone: string
  /** The co-op desk: launch.realtorEmail, else the notification address. */
  desk: string
  /** The confirmation's sender name. */
  fromName: string
}

/** What the worksheet routes need. */
export type WorksheetRouteDeps = {
  store: Pick<LeadStore, 'findLead' | 'queueWorksheetLinkReply'>
  release: ReleaseStore
  /** The secrets a link may be signed with (every launch's links secret). */
  secrets: string[]
  /** The launch of this slug when it takes worksheets. */
  launchOf(slug: string): WorksheetLaunch | undefined
  /** The launch a request page is for when its address names none (its host's), when it takes worksheets. */
  launchOfRequest(c: Context): WorksheetLaunch | undefined
  /** The default launch's slug: leads stored before leads had a launch are its. */
  defaultLaunch: string
  /** A realtor's signed worksheet link, for a registration of this launch. */
  linkOf(slug: string, submissionId: string): Promise<string>
  /** At most one e-mail asked for a lead this often (default 10 minutes). */
  resendGapMs?: number | undefined
  /** Whose words a link naming no realtor gets. */
  fallback: WorksheetLaunch
  /**
   * Whether a post comes from this site: its Origin (else Referer) is this host, the links' own origin or one of the
   * launch's origins.
   */
  sameSite(c: Context, launch: WorksheetLaunch): boolean
  /** Whether this caller is over the rate limit (counted here too). */
  overLimit(c: Context): Promise<boolean>
  webhook: boolean
  /** Called once a worksheet's messages are queued: wake the outbox. */
  onQueued?: (() => void) | undefined
  clock: () => Date
  newId: () => string
  log: { info(message: string): void; error(message: string, error?: unknown): void }
}
