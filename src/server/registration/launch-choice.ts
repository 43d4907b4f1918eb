/**
 * Which launch a registration belongs to. A page of launch A must not file a lead into launch B's form, so the caller
 * narrows the launches first and the body's `launch` then picks among them:
 *
 * - same origin (the page's Origin has the host the request came to): only the launch that host serves;
 * - another origin: the launches whose pages are there (canonical address and launch.origins), or every launch when
 *   the operator allowed that origin for all (ALLOWED_ORIGINS, or '*');
 * - no Origin (curl, a server): the launch of the Host, else every launch.
 *
 * `launch` in the body must name one of those (a slug no launch has: 400; another launch's: 403). Without it, the
 * one candidate, or the default launch when it is among several. Web-standard only: the Deno entry runs it too.
 */

/** What the choice knows of each launch. */
export type LaunchPlace = { slug: string; origins: readonly string[] }

/** What the app tells the chooser about one request. */
export type LaunchCaller = {
  /** The page's origin (Origin, or for a plain form post without one, its Referer's); undefined: not a browser. */
  origin: string | undefined
  /** The host the request came to (X-Forwarded-Host behind a trusted proxy). */
  host: string | undefined
  /** The launch the body names (`launch`), when it names one. */
  named: unknown
}

/** The launch chosen, or why none is: a plain message for a 400 or 403. */
export type LaunchChoice = { ok: true; slug: string } | { ok: false; status: 400 | 403; error: string }

/** What the chooser is built from (the app's deps). */
export type LaunchChoiceSettings = {
  launches: readonly LaunchPlace[]
  defaultLaunch: string
  /** ALLOWED_ORIGINS: origins the operator lets call for every launch; '*' lets any. */
  allowedOrigins: readonly string[]
  /** The slug of the launch a host serves (the Node server's host routing); absent on Supabase. */
  launchOfHost?: ((host: string) => string | undefined) | undefined
}

function hostOf(origin: string): string | undefined {
  return URL.canParse(origin) ? new URL(origin).host : undefined
}

/** A chooser for these launches; throws when the default launch is not one of them (a mistake in the entry). */
export function createLaunchChooser(settings: LaunchChoiceSettings): (caller: LaunchCaller) => LaunchChoice {
  const all = settings.launches.map((launch) => launch.slug)
  if (!all.includes(settings.defaultLaunch))
    throw new Error(`The default launch "${settings.defaultLaunch}" is not among the launches (${all.join(', ')}).`)
  const allowed = new Set(settings.allowedOrigins)
  // Any other host is the default launch's on the Node server, as its pages are.
  const launchOfHost =
    settings.launchOfHost && ((host: string) => settings.launchOfHost!(host) ?? settings.defaultLaunch)

  function candidates({ origin, host }: LaunchCaller): string[] {
    if (origin === undefined) return launchOfHost && host ? [launchOfHost(host)] : all
    if (host !== undefined && hostOf(origin) === host) return launchOfHost ? [launchOfHost(host)] : all
    if (allowed.has('*') || allowed.has(origin)) return all
    return settings.launches.filter((launch) => launch.origins.includes(origin)).map((launch) => launch.slug)
  }

  return (caller) => {
    const from = candidates(caller)
    const named = typeof caller.named === 'string' ? caller.named.trim() : caller.named
    if (named === undefined || named === null || named === '') {
      if (from.length === 1) return { ok: true, slug: from[0]! }
      if (from.includes(settings.defaultLaunch)) return { ok: true, slug: settings.defaultLaunch }
      if (from.length === 0)
        return {
          ok: false,
          status: 403,
          error: `Registrations from ${caller.origin ?? 'this page'} are not allowed here.`,
        }
      return {
        ok: false,
        status: 400,
        error: 'Say which launch this registration is for: send "launch" with its page\'s launch.slug.',
      }
    }
    if (typeof named !== 'string' || !all.includes(named)) {
      return {
        ok: false,
        status: 400,
        error: `There is no launch "${(typeof named === 'string' ? named : (JSON.stringify(named) ?? 'undefined')).slice(0, 64)}" here.`,
      }
    }
    if (!from.includes(named)) {
      const who =
        caller.origin !== undefined
          ? `A page at ${caller.origin}`
          : caller.host
            ? `A request to ${caller.host}`
            : 'This request'
      return {
        ok: false,
        status: 403,
        error: `${who} cannot register for launch "${named}": it is not one of that launch's addresses.`,
      }
    }
    return { ok: true, slug: named }
  }
}
