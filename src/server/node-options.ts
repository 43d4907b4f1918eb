/**
 * What the Node server (node.ts) is given and what it gives back: its launches, its options (connection limits, the
 * studio, broken launches, the builder) and the running server. Types only, so the entry and the studio can name them.
 */
import type { Context, Hono, MiddlewareHandler } from 'hono'
import type { PageConfig } from '../../schema/page-config.ts'
import type { StudioLeadsAccess } from './leads-page/viewers.ts'
import type { LaunchPublisher } from './site/launch-publisher.ts'
import type { ReleaseStore } from './store/release.ts'
import type { SignInCounts } from './store/sign-in-counts.ts'
import type { SqlQueryable } from './store/sql-queryable.ts'
import type { VersionManifest } from './site/launch-version.ts'
import type { LaunchProblem } from './site/live-launches.ts'
import type { LaunchBuilder, statusOf } from './site/publisher.ts'

/** A running server. */
export type RunningServer = {
  /** http://HOST:PORT, with the real port when PORT=0. */
  url: string
  /**
   * How the leads page at /leads is reached at start: the shared LEADS_PASSWORD (and studio accounts), studio accounts
   * alone, or not at all.
   */
  leadsPage: 'password' | 'accounts' | 'off'
  /** Stops accepting, finishes requests in flight and the current delivery, closes the database, frees DATA_DIR. */
  close(): Promise<void>
  /** How mail goes out, and whether replies and the webhook are on: lines to print at start (no credentials). */
  summary: string[]
  /** http://localhost:PORT/: the default launch, at an address a browser on this machine opens. */
  browserUrl: string
  /** Each launch at start, default first, with where to see it; `broken` is what to print about a broken one. */
  launches: Array<{
    slug: string
    isDefault: boolean
    localUrl: string
    canonicalUrl: string | undefined
    status: ServedLaunchStatus
    broken?: string
  }>
  /** Puts a launch's config live without a restart (the studio publishes through it). */
  publisher: LaunchPublisher
}

/** How a launch is served: live, broken or unpublished. */
export type ServedLaunchStatus = ReturnType<typeof statusOf>

/**
 * Limits on each connection, so a client that trickles its headers or body one byte at a time (slow-loris) is cut
 * off with 408 instead of holding a socket for minutes. Node checks the two timeouts every `checkIntervalMs`, so a
 * client is cut between the limit and the limit plus that interval.
 */
export type ConnectionLimits = {
  /** The whole header block must arrive within this (Node's server.headersTimeout). */
  headersTimeoutMs: number
  /** The whole request, body included, must arrive within this (server.requestTimeout). */
  requestTimeoutMs: number
  /** An idle keep-alive connection is closed after this (server.keepAliveTimeout). */
  keepAliveTimeoutMs: number
  /** Requests on one keep-alive connection before it is closed (server.maxRequestsPerSocket). */
  maxRequestsPerSocket: number
  /** Open connections at once; further ones are closed on arrival (server.maxConnections). */
  maxConnections: number
  /** How often Node looks for connections past the two timeouts (connectionsCheckingInterval). */
  checkIntervalMs: number
}

/** The limits used unless the caller gives others: a registration (under 2 KB) needs well under a second. */
export const defaultConnectionLimits: ConnectionLimits = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
  maxRequestsPerSocket: 1_000,
  maxConnections: 1_024,
  checkIntervalMs: 1_000,
}

/** What the server gives the studio (src/studio/server), which the entry passes in: the server never imports it. */
export type StudioHost = {
  /** DATA_DIR, locked by this server. */
  dataDir: string
  /**
   * The PostgreSQL pool when DATABASE_URL is set: the studio keeps its data there instead of DATA_DIR/studio.sqlite.
   */
  pool?: SqlQueryable | undefined
  /** Behind an HTTPS proxy (TRUST_PROXY): cookies are Secure. */
  secureCookies: boolean
  /** The client's address as the rate limits count it. */
  clientAddress: (c: Context) => string
  /** Checks, builds and swaps a launch live: what the studio publishes through. */
  publisher: LaunchPublisher
  /** The sign-in limits' counts in the server's store (the leads page's too). */
  signInCounts: SignInCounts
  /** The server's release store (inventory, worksheets): the allocation board writes through the server's writer. */
  release: ReleaseStore
  /** Sends a plain-text message through the configured SMTP server; absent without SMTP_URL. */
  sendMail?: ((mail: { to: string; subject: string; text: string }) => Promise<void>) | undefined
  /** NOTIFY_TIME_ZONE: where a launch's phase start times are read when its config names no time zone. */
  timeZone: string
  /** The server's clock (the phase in force, links' and sessions' times). */
  clock: () => Date
  /**
   * The host names the launches declare now (canonical URL, origins, `<slug>.localhost`): the studio answers on them.
   */
  launchHosts?: () => string[]
}

/**
 * A studio to serve at /studio: its app (routes under /studio), what to close at stop, and its sign-in and audit log
 * for the leads page (its accounts see /leads; every look at the leads is audited there).
 */
export type StudioMount = {
  app: Hono
  close(): void
  leads?: StudioLeadsAccess
  /** Refuses a request for a host that is neither the studio's nor a launch's (the leads page is mounted behind it). */
  hostGate?: MiddlewareHandler
}

/** What a caller (the entry, a test) may set besides the environment. */
export type NodeServerOptions = {
  connections?: Partial<ConnectionLimits>
  /** Builds the studio (src/studio/server/node-studio.ts) once DATA_DIR is locked; absent: no /studio. */
  studio?: (host: StudioHost) => StudioMount | Promise<StudioMount>
  /** Launches whose config has problems now (each serves its last good build, or "not published yet"). */
  broken?: BrokenLaunch[]
  /** Checks and builds a launch for a publish, and finds launch folders made while running; without it, no publish. */
  builder?: LaunchBuilder
  /** How long a replaced version stays on disk after a publish. Default 60 s. */
  retireAfterMs?: number
  /** Now, for the function and for which phase's pages are served (tests move it). Default: the system clock. */
  clock?: () => Date
}

/** A launch to serve: its checked config (src/config/launches.ts loads them; the entry passes them in). */
export type ServedLaunch = { slug: string; config: PageConfig; isDefault: boolean; configFile?: string }

/** A launch whose config has problems now: it serves its last good build (DIST_DIR/<slug>/), or "not published yet". */
export type BrokenLaunch = {
  slug: string
  isDefault: boolean
  configFile: string
  siteName: string
  problem: LaunchProblem
  /** The function's last good contract (from its bundle), for a last good build that has no manifest of its own. */
  lastGood?: VersionManifest | undefined
}
