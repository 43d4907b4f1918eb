import { existsSync } from 'node:fs'
import path from 'node:path'
import { functionLaunchOf, type FunctionLaunch } from '../../../schema/function-launch.ts'
import type { NodeServerConfig } from '../env.ts'
import type { BrokenLaunch, ServedLaunch } from '../node-options.ts'
import { StartupError } from '../node-store.ts'
import { readLaunchVersion, type VersionManifest, type VersionSettings } from '../site/launch-version.ts'
import type { LiveLaunch } from '../site/live-launches.ts'

/** The launches the Node server starts with, as read from DIST_DIR: what start-up builds the rest on. */
export type StartingLaunches = {
  /** Every launch, served and broken, each with the version it serves (if any). */
  initial: LiveLaunch[]
  /** The default launch (the root page.config.json's), or the first. */
  defaultLaunch: LiveLaunch
  /**
   * The contract of the default launch, or of the first launch that has a version: the server's own name and sender.
   */
  defaultContract: FunctionLaunch
}

/** How each launch's pages are answered (headers, the phase in force), from the server's settings. */
export function versionSettingsOf(settings: NodeServerConfig, clock: (() => Date) | undefined): VersionSettings {
  return {
    // Behind a proxy the visitor's connection is normally HTTPS; browsers ignore HSTS over plain HTTP anyway.
    https: settings.trustProxy > 0,
    supabaseUrl: settings.supabaseUrl,
    // Which phase's pages are in force: the same clock as the function's, so both switch at the same instant.
    clock,
    timeZone: settings.timeZone,
  }
}

async function servedLaunchOf(launch: ServedLaunch, distRoot: string, settings: VersionSettings): Promise<LiveLaunch> {
  const manifest: VersionManifest = {
    contract: functionLaunchOf(launch.config),
    tagManager: launch.config.site.analytics !== undefined,
  }
  return {
    slug: launch.slug,
    isDefault: launch.isDefault,
    configFile: launch.configFile ?? '',
    siteName: launch.config.site.name,
    ...(launch.config.site.unpublished ? { unpublished: launch.config.site.unpublished } : {}),
    version: await readLaunchVersion(path.join(distRoot, launch.slug), settings, manifest),
    addresses: manifest.contract.origins,
  }
}

async function brokenLaunchOf(launch: BrokenLaunch, distRoot: string, settings: VersionSettings): Promise<LiveLaunch> {
  const version = await readLaunchVersion(path.join(distRoot, launch.slug), settings, launch.lastGood)
  return {
    slug: launch.slug,
    isDefault: launch.isDefault,
    configFile: launch.configFile,
    siteName: version?.contract.site.name ?? launch.siteName,
    problem: launch.problem,
    version,
  }
}

/** Why no launch can be served: the first good launch's missing build, or every broken launch's problem. */
function nothingToServe(launches: ServedLaunch[], broken: BrokenLaunch[], distRoot: string): StartupError {
  const good = launches.find((launch) => !existsSync(path.join(distRoot, launch.slug, 'index.html')))
  return new StartupError(
    good
      ? `The built site of launch "${good.slug}" is missing: ${path.join(distRoot, good.slug, 'index.html')} does not exist. Run npm run build first (npm start builds what is missing; or set DIST_DIR).`
      : `The page config cannot be used.\n${broken.map((launch) => launch.problem.message).join('\n\n')}`,
  )
}

/**
 * Reads each launch's built site from DIST_DIR/<slug>/ (a broken one's last good build); throws StartupError with
 * readable text when there is no launch, or none has a build to serve.
 */
export async function readStartingLaunches(
  launches: ServedLaunch[],
  broken: BrokenLaunch[],
  distRoot: string,
  settings: VersionSettings,
): Promise<StartingLaunches> {
  if (launches.length + broken.length === 0)
    throw new StartupError('There is no launch to serve: page.config.json is missing.')
  const initial: LiveLaunch[] = []
  for (const launch of launches) initial.push(await servedLaunchOf(launch, distRoot, settings))
  for (const launch of broken) initial.push(await brokenLaunchOf(launch, distRoot, settings))
  const firstServed = initial.find((launch) => launch.version)
  if (!firstServed) throw nothingToServe(launches, broken, distRoot)
  const defaultLaunch = initial.find((launch) => launch.isDefault) ?? initial[0]!
  return { initial, defaultLaunch, defaultContract: (defaultLaunch.version ?? firstServed.version)!.contract }
}
