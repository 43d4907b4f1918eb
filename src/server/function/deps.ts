import type { Context } from 'hono'
import type { RateLimiter } from '../registration/rate-limit.ts'
import type { LaunchSite } from '../site/launch-site.ts'
import type { VisitImageCounter } from '../site/visit-requests.ts'
import type { ReleaseStore } from '../store/release.ts'
import type { AddressKey, LeadStore } from '../store/store.ts'

/** Where the app reports what happened; console by default. Never given visitors' personal data. */
export type AppLog = {
  info(message: string): void
  error(message: string, error?: unknown): void
}

/** The scheduled-retry endpoint: its secret, and the delivery run it triggers. */
export type OutboxTrigger = {
  secret: string
  run(): Promise<{ sent: number; failed: number }>
}

/** What createApp needs: everything from outside is passed in. */
export type AppDeps = {
  /** Every launch served (launch-site.ts: launchSiteOf); each registration is for exactly one of them. */
  launches: LaunchSite[]
  /** The slug of the launch a caller gets when it names none and could mean several (the root page.config.json's). */
  defaultLaunch: string
  /**
   * The slug of the launch a host name serves (the Node server's host routing; any other host: the default launch).
   * Absent (Supabase): same-origin and Origin-less callers may register for any launch they name.
   */
  launchOfHost?: ((host: string) => string | undefined) | undefined
  /** IANA time zone for times in the notification. Default: NOTIFY_TIME_ZONE's (env.ts). */
  timeZone?: string
  store: LeadStore
  /** Now. Injected so tests control time. */
  clock?: () => Date
  /** Keys accepted in `apikey` / `authorization: Bearer`. At least one. */
  anonKeys: string[]
  /** Origins (scheme://host[:port]) allowed to call from a browser besides the same origin; ['*'] allows any. */
  allowedOrigins?: string[]
  /** Largest accepted body in bytes. Default: MAX_BODY_BYTES's (env.ts). */
  bodyLimitBytes?: number
  /** Requests a minute per client IP; 0 turns the limit off. Default: RATE_LIMIT_PER_MINUTE's (env.ts). */
  rateLimitPerMinute?: number
  /** The limiter to count with, when it must outlive this app (the Node server makes a new app at each publish). */
  rateLimiter?: RateLimiter
  /**
   * How many proxies in front set X-Forwarded-Host (the page's host, for same-origin checks); 0 (default) ignores it.
   */
  trustProxy?: number
  /**
   * The visitor's address, as the entry trusts it (forwarded-address.ts on Node, the platform's header on
   * Supabase): never a value the client wrote. IPv6 visitors are counted by their /64.
   */
  clientAddress?: (c: Context) => string | undefined
  /** Called after a lead and its notification are committed: wake the outbox worker. Must not throw. */
  onLeadStored?: () => void
  /** Queue a new lead's notification and reply to be composed when sent (compose-later.ts): the Node server's. */
  composeAtDelivery?: boolean
  /** Enables POST …/deliver-pending. */
  outboxTrigger?: OutboxTrigger
  log?: AppLog
  /** Makes a submission id when the browser sent none. Default crypto.randomUUID. */
  newId?: () => string
  /** Queue a CRM webhook call with every new lead (WEBHOOK_URL is set). Never for an address that has withdrawn. */
  webhook?: boolean
  /**
   * The suppression-list key of an address (suppression.ts, with the server's secret): an address that withdrew and
   * was then erased is found there, no longer among the leads. Absent: only the leads' withdrawn_at is checked.
   */
  suppressionKeyOf?: (email: string) => Promise<AddressKey>
  /**
   * Counts the pages' visit images, GET …/visit/<launch> (site/visit-counter.ts); absent: answered, nothing counted.
   */
  visits?: VisitImageCounter | undefined
  /** Writes each visit image's count before answering: the Edge Function's instance may end once it has answered. */
  flushVisits?: boolean
  /**
   * The bytes of a launch's document (page.config.json `documents`, its path from the launch's folder): the Node
   * server reads the launch's folder, the Deno function its own copy. Absent: every document link answers 404.
   */
  documentFiles?: (launch: string, file: string) => Promise<Uint8Array | undefined>
  /**
   * The release store beside the leads (inventory and worksheets): with it, a launch whose phases have a worksheet
   * window serves its realtors' worksheet page (release/worksheet-routes.ts) and their reply links it, and
   * …/left.json?launch=<slug> answers what is left. Absent: no worksheet page, no link to one, no counts.
   */
  release?: ReleaseStore | undefined
}
