import type { Hono } from 'hono'
import { createLaunchHosts, hostNameOf, type LaunchAddresses, type LaunchOfHost } from './launch-hosts.ts'
import type { LaunchVersion } from './launch-version.ts'
import type { Site } from '../../../schema/site.ts'

/**
 * The launches a running Node server serves, each with the version it serves now. Everything a request needs (which
 * launch a host is, each launch's pages, the function with every launch's contract) is one immutable snapshot; a
 * change (a publish, a launch found broken, a new launch folder) makes a new snapshot and puts it in place with one
 * assignment. A request reads the snapshot once, when it arrives, so it is answered wholly by the old version or
 * wholly by the new one.
 */

/** Where a launch's config has problems: "file:line", and the whole message (file, line, what to do) for the log. */
export type LaunchProblem = { place: string; message: string }

/** One launch as the server knows it. */
export type LiveLaunch = {
  slug: string
  isDefault: boolean
  configFile: string
  siteName: string
  /** The words of its "not published yet" page, from a config that could be read (else the defaults). */
  unpublished?: Site['unpublished']
  /** Set while its config file has problems: the version (if any) is its last good one. */
  problem?: LaunchProblem | undefined
  /** What it serves; none: never built or published (503, its own "not published yet" page). */
  version?: LaunchVersion | undefined
  /** Addresses (scheme://host) it is known by without a version, from a config that could be read. */
  addresses?: string[] | undefined
  /**
   * The version it served before the last swap, while it is on disk: a page loaded just before may still ask for its
   * assets.
   */
  previous?: LaunchVersion | undefined
}

/** Everything a request needs, fixed for the request's life. */
export type LaunchesSnapshot = {
  /** Every launch, the default first. */
  launches: readonly LiveLaunch[]
  get(slug: string): LiveLaunch | undefined
  /** The slug serving a Host header (any host no launch claims: the default launch). */
  launchOfHost: LaunchOfHost
  /** The send-contact-email function for every launch that has a version, with each one's contract. */
  fn: Hono
  defaultSlug: string
}

/** Makes the function for the launches that have a version (each with its version), the default one named. */
export type FunctionMaker = (
  served: ReadonlyArray<LiveLaunch & { version: LaunchVersion }>,
  defaultSlug: string,
  launchOfHost: LaunchOfHost,
) => Hono

/** The live set of launches: read the snapshot, or change one launch (each change is one swap of the snapshot). */
export type LiveLaunches = {
  current(): LaunchesSnapshot
  /** Serves `version` for the launch from now on and clears its problem; returns the version it replaces. */
  swap(
    slug: string,
    version: LaunchVersion,
    launch?: Omit<LiveLaunch, 'version' | 'problem'>,
  ): LaunchVersion | undefined
  /** Records that the launch's config has problems; its version keeps serving. */
  markBroken(slug: string, problem: LaunchProblem): void
  /** Adds a launch found while running (a new folder in launches/); false when one of that slug exists. */
  add(launch: LiveLaunch): boolean
}

function addressesOf(launch: LiveLaunch): LaunchAddresses {
  const origins = launch.version?.contract.origins ?? launch.addresses ?? []
  return { slug: launch.slug, canonicalUrl: origins[0] ?? '', origins: origins.slice(1) }
}

/** A live set starting with `initial` (the default launch among them). */
export function createLiveLaunches(initial: LiveLaunch[], makeFunction: FunctionMaker): LiveLaunches {
  function snapshotOf(launches: LiveLaunch[]): LaunchesSnapshot {
    const ordered = [...launches].sort((a, b) => Number(b.isDefault) - Number(a.isDefault))
    const defaultSlug = ordered[0]!.slug
    const bySlug = new Map(ordered.map((launch) => [launch.slug, launch]))
    const served = ordered.filter(
      (launch): launch is LiveLaunch & { version: LaunchVersion } => launch.version !== undefined,
    )
    const launchOfHost = createLaunchHosts(ordered.map(addressesOf), defaultSlug)
    return {
      launches: ordered,
      get: (slug) => bySlug.get(slug),
      launchOfHost,
      fn: makeFunction(
        served,
        served.some((launch) => launch.slug === defaultSlug) ? defaultSlug : (served[0]?.slug ?? defaultSlug),
        launchOfHost,
      ),
      defaultSlug,
    }
  }
  let snapshot = snapshotOf(initial)
  const replace = (slug: string, change: (launch: LiveLaunch) => LiveLaunch) => {
    snapshot = snapshotOf(snapshot.launches.map((launch) => (launch.slug === slug ? change(launch) : launch)))
  }
  return {
    current: () => snapshot,
    swap(slug, version, launch) {
      const previous = snapshot.get(slug)
      if (!previous) {
        if (!launch) throw new Error(`There is no launch "${slug}" to swap.`)
        snapshot = snapshotOf([...snapshot.launches, { ...launch, version }])
        return undefined
      }
      replace(slug, (old) => ({
        ...old,
        ...launch,
        version,
        previous: old.version,
        problem: undefined,
        siteName: version.contract.site.name,
      }))
      return previous.version
    },
    markBroken(slug, problem) {
      replace(slug, (old) => ({ ...old, problem }))
    },
    add(launch) {
      if (snapshot.get(launch.slug)) return false
      snapshot = snapshotOf([...snapshot.launches, launch])
      return true
    },
  }
}

/** The `<name>` of a `<name>.localhost` Host header, or undefined for any other host. */
export function localSlugOf(hostHeader: string | undefined): string | undefined {
  if (!hostHeader) return undefined
  const match = /^([a-z0-9][a-z0-9-]{0,62})\.localhost$/.exec(hostNameOf(hostHeader))
  return match?.[1]
}
