import path from 'node:path'
import type { Context } from 'hono'
import { requestHost } from '../registration/caller.ts'
import type { LaunchHealth } from '../site/health.ts'
import { readLaunchVersion, type VersionSettings } from '../site/launch-version.ts'
import { localSlugOf, type LaunchesSnapshot, type LiveLaunch, type LiveLaunches } from '../site/live-launches.ts'
import type { LaunchBuilder } from '../site/publisher.ts'

/** The snapshot and launch a request is answered from. */
export type PickedLaunch = { snapshot: LaunchesSnapshot; launch: LiveLaunch }

/** Finds the snapshot and launch of a request, read once when it arrives (the same for all of its handlers). */
export type LaunchPicker = (c: Context) => Promise<PickedLaunch>

/** A launch's address on this machine: http://localhost:PORT/, or http://<slug>.localhost:PORT/. */
export type LocalUrlOf = (launch: Pick<LiveLaunch, 'slug' | 'isDefault'>) => string

/** What createLaunchPicker needs. */
export type PickerDeps = {
  live: LiveLaunches
  trustProxy: number
  /** Finds a launch folder made while running; absent: none is looked for. */
  builder: LaunchBuilder | undefined
  distRoot: string
  versionSettings: VersionSettings
  localUrlOf: LocalUrlOf
}

/** A launch folder made while the server runs is found the first time its <slug>.localhost is asked for. */
async function addFoundLaunch(deps: PickerDeps, builder: LaunchBuilder, slug: string): Promise<void> {
  const found = builder.find(slug)
  if (!found) return
  const version = await readLaunchVersion(path.join(deps.distRoot, found.slug), deps.versionSettings)
  if (deps.live.add({ ...found, version: version?.contract.slug === found.slug ? version : undefined })) {
    console.log(`Launch ${found.slug} found: ${deps.localUrlOf(found)}${version ? '' : ' (not published yet: 503)'}`)
  }
}

/** Picks each request's launch by its host, from the snapshot in force when it arrived. */
export function createLaunchPicker(deps: PickerDeps): LaunchPicker {
  const picked = new WeakMap<Request, PickedLaunch>()
  return async (c) => {
    const known = picked.get(c.req.raw)
    if (known) return known
    const host = requestHost(c, deps.trustProxy)
    let snapshot = deps.live.current()
    const local = localSlugOf(host)
    if (local !== undefined && snapshot.get(local) === undefined && deps.builder) {
      await addFoundLaunch(deps, deps.builder, local)
      snapshot = deps.live.current()
    }
    const chosen = { snapshot, launch: snapshot.get(snapshot.launchOfHost(host))! }
    picked.set(c.req.raw, chosen)
    return chosen
  }
}

/** What /healthz says of the launches: how many, which are broken, which are not published yet. */
export function launchHealthOf(live: LiveLaunches): () => LaunchHealth {
  return () => {
    const now = live.current().launches
    return {
      count: now.length,
      broken: now.filter((launch) => launch.problem).map((launch) => launch.slug),
      unpublished: now.filter((launch) => !launch.problem && !launch.version).map((launch) => launch.slug),
    }
  }
}
