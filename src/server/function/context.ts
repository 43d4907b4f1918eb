import type { Context } from 'hono'
import { createRegistrationValidator } from '../../../schema/registration-ajv.ts'
import { composingLaunchOf } from '../compose-later.ts'
import type { NotificationSettings } from '../delivery/notification.ts'
import { deliverySettings } from '../delivery/settings.ts'
import { createOriginPolicy, requestHost, type OriginPolicy } from '../registration/caller.ts'
import { formPostOrigin } from '../registration/form-post.ts'
import { createLaunchChooser } from '../registration/launch-choice.ts'
import type { LaunchPhases } from '../registration/launch-phase.ts'
import { createRateLimiter, type RateLimiter } from '../registration/rate-limit.ts'
import { refusal } from '../registration/refusal.ts'
import { registrationSettings } from '../registration/settings.ts'
import type { LaunchSite } from '../site/launch-site.ts'
import type { AppDeps, AppLog } from './deps.ts'

/** One launch as the function answers for it: its site, and what is made of it once at creation. */
export type ServedLaunch = {
  site: LaunchSite
  validate: ReturnType<typeof createRegistrationValidator>
  notification: NotificationSettings
  /** Whether a page address is this launch's (pageUrl is kept only then). */
  ownPages: OriginPolicy
  /** Its phases, when it has them: each registration is stored, answered and shown again in the phase in force. */
  phases: LaunchPhases | undefined
}

/** What every handler of the function shares: its deps with their defaults, its launches, and the caller's checks. */
export type FunctionContext = {
  deps: AppDeps
  clock: () => Date
  log: AppLog
  newId: () => string
  timeZone: string
  limiter: RateLimiter
  launches: ReadonlyMap<string, ServedLaunch>
  /** Every launch's pages may call, as may the operator's ALLOWED_ORIGINS. */
  originPolicy: OriginPolicy
  /** The visitor's address as the entry trusts it; 'unknown' when it cannot tell. */
  clientAddressOf: (c: Context) => string
  /** The site a plain form post comes from (its Origin, or without one its Referer's), when it is one of ours. */
  formPostSite: (c: Context) => string | undefined
  /** The launch a registration is for (launch-choice.ts), or the refusal saying why there is none; remembered. */
  launchOf: (c: Context, named: unknown, origin: string | undefined) => ServedLaunch
  /** The launch the request was found to be for, once launchOf has found it (a refused plain post shows its form). */
  chosenFor: (c: Context) => ServedLaunch | undefined
}

function servedLaunchesOf(deps: AppDeps, timeZone: string): Map<string, ServedLaunch> {
  const allowedOrigins = deps.allowedOrigins ?? []
  const launches = new Map<string, ServedLaunch>()
  for (const site of deps.launches) {
    if (launches.has(site.slug)) throw new Error(`createApp was given two launches named "${site.slug}".`)
    launches.set(site.slug, {
      ...composingLaunchOf(site, timeZone),
      validate: createRegistrationValidator(site.form),
      // A page is the launch's when it is on this host, one of its origins or an origin named outright: '*' lets any
      // page call, but makes none its own.
      ownPages: createOriginPolicy(
        [...allowedOrigins.filter((origin) => origin !== '*'), ...site.origins],
        deps.trustProxy ?? 0,
      ),
    })
  }
  return launches
}

function safeClientAddress(deps: AppDeps): (c: Context) => string {
  return (c) => {
    try {
      return deps.clientAddress?.(c) ?? 'unknown'
    } catch {
      return 'unknown'
    }
  }
}

/** Who may call, and for which launch: the origin policy, the plain post's site and the choice of launch. */
function callerChecks(deps: AppDeps, launches: ReadonlyMap<string, ServedLaunch>) {
  const trustProxy = deps.trustProxy ?? 0
  const allowedOrigins = deps.allowedOrigins ?? []
  const chooseLaunch = createLaunchChooser({
    launches: deps.launches,
    defaultLaunch: deps.defaultLaunch,
    allowedOrigins,
    launchOfHost: deps.launchOfHost,
  })
  // Which launch a page may file into is decided once the body names it.
  const originPolicy = createOriginPolicy(
    [...allowedOrigins, ...deps.launches.flatMap((site) => site.origins)],
    trustProxy,
  )
  const chosen = new WeakMap<Request, ServedLaunch>()
  return {
    originPolicy,
    formPostSite: (c: Context) => {
      const origin = formPostOrigin(c.req.header('origin'), c.req.header('referer'))
      return origin !== undefined && originPolicy(origin, c) !== null ? origin : undefined
    },
    launchOf: (c: Context, named: unknown, origin: string | undefined) => {
      const choice = chooseLaunch({ origin, host: requestHost(c, trustProxy), named })
      if (!choice.ok) throw refusal(choice.status, choice.error)
      const launch = launches.get(choice.slug)!
      chosen.set(c.req.raw, launch)
      return launch
    },
    chosenFor: (c: Context) => chosen.get(c.req.raw),
  }
}

/** The function's shared context, with the defaults of what the deps leave out. */
export function createFunctionContext(deps: AppDeps): FunctionContext {
  if (deps.anonKeys.length === 0) throw new Error('createApp needs at least one anon key.')
  const timeZone = deps.timeZone ?? deliverySettings.NOTIFY_TIME_ZONE.default
  const launches = servedLaunchesOf(deps, timeZone)
  return {
    deps,
    clock: deps.clock ?? (() => new Date()),
    log: deps.log ?? { info: (m) => console.log(m), error: (m, e) => console.error(m, e ?? '') },
    newId: deps.newId ?? (() => crypto.randomUUID()),
    timeZone,
    limiter:
      deps.rateLimiter ??
      createRateLimiter(deps.rateLimitPerMinute ?? registrationSettings.RATE_LIMIT_PER_MINUTE.default),
    launches,
    clientAddressOf: safeClientAddress(deps),
    ...callerChecks(deps, launches),
  }
}
