import type { Context } from 'hono'
import { deleteCookie, getCookie, setCookie } from 'hono/cookie'
import type { LaunchPublisher } from '../../server/site/launch-publisher.ts'
import type { ScryptCost } from './passwords.ts'
import type { SignInLimiter } from '../../server/registration/sign-in-limits.ts'
import type { SignInCounts } from '../../server/store/sign-in-counts.ts'
import type { ReleaseStore } from '../../server/store/release.ts'
import type { Account, StudioStore } from './store.ts'
import { linkBaseOf, type StudioAddress } from './gates/host-gate.ts'
import { tokenHash } from './tokens.ts'

/** A message the studio sends (an invitation, a reset link): plain text, to one address. */
export type StudioMail = { to: string; subject: string; text: string }

/** What local mode (local.ts) needs: the token written into the studio's page and asked of each API request. */
export type LocalMode = { token: string }

/** What createStudio needs; the Node entry builds it. */
export type StudioDeps = {
  store: StudioStore
  publisher: LaunchPublisher
  /** The key of preview links (DATA_DIR/studio.key): changing it voids them. */
  secret: string
  /** The built browser part: index.html, preview.html, assets/ (dist/_studio). */
  clientDir: string
  /** Cookies marked Secure: the server is behind an HTTPS proxy (TRUST_PROXY), or PUBLIC_URL is https. */
  secureCookies: boolean
  /** The client's address (a trusted proxy's view, else the socket's), for the sign-in limits. */
  clientAddress: (c: Context) => string
  clock?: () => Date
  /**
   * NOTIFY_TIME_ZONE: the time zone of a launch's phase start times when its config names none. Default
   * America/Toronto.
   */
  timeZone?: string | undefined
  /** Sends a message; absent when no mail is configured (links are then only shown to copy). */
  sendMail?: ((mail: StudioMail) => Promise<void>) | undefined
  /** The origin the browser sees (for the Origin check). Default: the request's, https when secureCookies. */
  requestOrigin?: (c: Context) => string
  /** Where links point (PUBLIC_URL's origin); default http://localhost:PORT, never the request's Host. */
  publicUrl?: string | undefined
  /** STUDIO_HOST: the one host the studio (and the leads page) answer on, and where its links point. */
  studioHost?: string | undefined
  /** The host names the launches declare, as they are now; default `<slug>.localhost` of each launch. */
  launchHosts?: () => Iterable<string>
  /** Where the sign-in limits keep their counts (the server's store, shared with the leads page and other servers). */
  signInCounts: SignInCounts
  /** The sign-in limiter; default the shared one (src/server/registration/sign-in-limits.ts) over `signInCounts`. */
  limiter?: SignInLimiter
  /** The project's folder: New launch makes launches/<slug>/ in it. Absent: New launch is refused. */
  root?: string | undefined
  log?: { info(message: string): void; error(message: string, error?: unknown): void }
  /** How long a session lasts. Default 12 hours. */
  sessionMs?: number
  /** How long a preview link works. Default 7 days. */
  previewMs?: number
  /** scrypt's cost for new password hashes (passwords.ts; default OWASP's). */
  passwordCost?: ScryptCost
  /** The launches' inventory and worksheets (the allocation board, api/allocation-routes.ts); absent: no board. */
  release?: ReleaseStore | undefined
  /**
   * Local mode (`npm run edit`, local.ts): one person on this computer, no accounts, the API bound to the page's token.
   */
  local?: LocalMode | undefined
}

/** The Hono environment of the studio's routes: the signed-in account and its session's hash. */
export type StudioEnv = { Variables: { account: Account; sessionHash: string } }

/** What the studio's parts share. */
export type StudioContext = Required<Pick<StudioDeps, 'clock' | 'log' | 'sessionMs' | 'previewMs' | 'timeZone'>> &
  StudioDeps & {
    limiter: SignInLimiter
    /** The configured addresses the studio answers on and links to (gates/host-gate.ts). */
    address: StudioAddress
    originOf(c: Context): string
    /** The base of links the studio hands out (invitations, resets, previews), without a trailing slash. */
    linkBase(c: Context): string
    /** The account of the request's session cookie, if it is live. */
    sessionOf(c: Context): Promise<{ account: Account; sessionHash: string } | undefined>
    audit(who: string, action: string, launch?: string, detail?: string): Promise<void>
  }

/** The session cookie: HttpOnly, SameSite=Strict, path / (the leads page at /leads reads it too). */
export const sessionCookie = 'studio_session'

/** Sets the session cookie for `id`: path /, so the leads page at /leads gets it too. */
export function setSessionCookie(
  c: Context,
  ctx: Pick<StudioContext, 'secureCookies' | 'sessionMs'>,
  id: string,
): void {
  setCookie(c, sessionCookie, id, {
    path: '/',
    httpOnly: true,
    sameSite: 'Strict',
    secure: ctx.secureCookies,
    maxAge: Math.floor(ctx.sessionMs / 1000),
  })
}

/** Clears the session cookie (sign-out), also one set on /studio alone (before the leads page shared it). */
export function clearSessionCookie(c: Context, ctx: Pick<StudioContext, 'secureCookies'>): void {
  deleteCookie(c, sessionCookie, { path: '/studio', httpOnly: true, sameSite: 'Strict', secure: ctx.secureCookies })
  deleteCookie(c, sessionCookie, { path: '/', httpOnly: true, sameSite: 'Strict', secure: ctx.secureCookies })
}

/** Where a person lands once signed in: a sales account has the leads page only. */
export function homeOf(account: Pick<Account, 'role'>): string {
  return account.role === 'sales' ? '/leads' : '/studio/'
}
/** The device cookie: this browser signed in to an account in the last 30 days (the sign-in limiter's token). */
export const deviceCookie = 'studio_device'

/** Builds the shared context from the deps, with defaults. */
export function studioContextOf(deps: StudioDeps, limiter: SignInLimiter): StudioContext {
  const clock = deps.clock ?? (() => new Date())
  const log = deps.log ?? {
    info: (m: string) => console.log(m),
    error: (m: string, e?: unknown) => console.error(m, e ?? ''),
  }
  const originOf =
    deps.requestOrigin ??
    ((c: Context) => {
      const url = new URL(c.req.url)
      return `${deps.secureCookies ? 'https:' : url.protocol}//${url.host}`
    })
  const address: StudioAddress = {
    publicUrl: deps.publicUrl,
    studioHost: deps.studioHost,
    launchHosts: deps.launchHosts ?? (() => deps.publisher.list().map((launch) => `${launch.slug}.localhost`)),
  }
  return {
    ...deps,
    address,
    clock,
    log,
    limiter,
    timeZone: deps.timeZone ?? 'America/Toronto',
    sessionMs: deps.sessionMs ?? 12 * 60 * 60 * 1000,
    previewMs: deps.previewMs ?? 7 * 24 * 60 * 60 * 1000,
    originOf,
    linkBase: (c) => linkBaseOf(address, c),
    async sessionOf(c) {
      const id = getCookie(c, sessionCookie)
      if (!id) return undefined
      const sessionHash = tokenHash(id)
      const account = await deps.store.findSession(sessionHash, clock())
      return account ? { account, sessionHash } : undefined
    },
    async audit(who, action, launch, detail) {
      await deps.store.addAudit({ at: clock().toISOString(), who, action, launch, detail })
    },
  }
}
