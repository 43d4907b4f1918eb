import { existsSync, readFileSync } from 'node:fs'
import path from 'node:path'
import type { Context, MiddlewareHandler } from 'hono'
import type { FunctionLaunch } from '../../../schema/function-launch.ts'
import { phaseAt, phaseScheduleOf } from '../../../schema/phase-schedule.ts'
import { deliverySettings } from '../delivery/settings.ts'
import { cspHashesOf, secureHeadersMiddleware, styleHashesOf } from './security-headers.ts'
import { createStaticSite } from './static-site.ts'

/**
 * One built version of a launch, as the Node server serves it: a folder of pages (dist/<slug>/ from `npm run build`,
 * or dist/.versions/<slug>/<n>/ from a publish) and the function's contract it was built with, read once. A version
 * never changes once served: a publish makes a new one and the server swaps to it.
 */

/** The file a build writes beside the pages: the function's contract of that build (a dotfile: never served). */
export const versionManifestFile = '.launch.json'

/**
 * The folder of a build where each phase's pages are (`.phases/<name>/index.html`, …): a dotfolder, so never served
 * as it is; the version serves the pages of the phase in force from it.
 */
export const phasePagesDir = '.phases'

/**
 * What a build records of its launch for the server: the function's contract and whether the page loads Tag Manager.
 */
export type VersionManifest = { contract: FunctionLaunch; tagManager: boolean }

/** A version ready to serve: its folder, contract, home page and the handlers made from them. */
export type LaunchVersion = {
  distDir: string
  contract: FunctionLaunch
  /** index.html: a plain form post with fields to correct is answered with it, filled in. */
  home: string
  /**
   * Each phase's index.html, by phase name (a launch with phases): the function answers such a post with the one in
   * force.
   */
  phaseHomes?: Record<string, string> | undefined
  /** The pages' inline stylesheet (the server's own pages reuse it; its CSP hash is allowed). */
  pageCss: string | undefined
  /** Security headers with this version's inline scripts and styles allowed by hash. */
  headers: MiddlewareHandler
  files: (c: Context) => Promise<Response>
}

/**
 * What serving a version needs besides its pages: HTTPS behind a proxy and where a hosted form posts (the headers),
 * the clock and NOTIFY_TIME_ZONE (which phase's pages are in force: launch.timeZone, else this zone).
 */
export type VersionSettings = {
  https: boolean
  supabaseUrl: string | undefined
  clock?: (() => Date) | undefined
  timeZone?: string | undefined
}

/**
 * The manifest of a built folder, or undefined when there is none (built before manifests existed) or it is unreadable.
 */
export function readVersionManifest(distDir: string): VersionManifest | undefined {
  try {
    const manifest = JSON.parse(readFileSync(path.join(distDir, versionManifestFile), 'utf8')) as VersionManifest
    return typeof manifest?.contract?.slug === 'string' ? manifest : undefined
  } catch {
    return undefined
  }
}

/**
 * Reads a built folder into a version: undefined when it has no index.html or no contract (its own manifest, else
 * `fallback`: the contract of the config the entry has just checked).
 */
export async function readLaunchVersion(
  distDir: string,
  settings: VersionSettings,
  fallback?: VersionManifest,
): Promise<LaunchVersion | undefined> {
  const homeFile = path.join(distDir, 'index.html')
  if (!existsSync(homeFile)) return undefined
  const manifest = readVersionManifest(distDir) ?? fallback
  if (!manifest) return undefined
  // Each phase's pages, when the build made them all: the one in force is chosen for each request, by the clock.
  const phases = manifest.contract.phases
  const phaseDir = (name: string) => path.join(distDir, phasePagesDir, name)
  const phased =
    phases !== undefined && phases.list.every((phase) => existsSync(path.join(phaseDir(phase.name), 'index.html')))
  const dirs = [distDir, ...(phased ? phases.list.map((phase) => phaseDir(phase.name)) : [])]
  const pagesIn = (dir: string) =>
    ['index.html', '404.html']
      .map((f) => path.join(dir, f))
      .filter((f) => existsSync(f))
      .map((f) => readFileSync(f, 'utf8'))
  const pages = dirs.flatMap(pagesIn)
  const home = pages[0]!
  const clock = settings.clock ?? (() => new Date())
  const schedule = phased
    ? phaseScheduleOf(phases, phases.timeZone ?? settings.timeZone ?? deliverySettings.NOTIFY_TIME_ZONE.default)
    : undefined
  // Each request is answered wholly in one phase: its pages and its policy (the hashes of that phase's own inline
  // scripts and styles) come from one reading of the clock, taken when the headers are set.
  const phaseOf = new WeakMap<Request, string>()
  const phaseFor = (c: Context): string => {
    let phase = phaseOf.get(c.req.raw)
    if (phase === undefined) phaseOf.set(c.req.raw, (phase = phaseAt(schedule!, clock().getTime())))
    return phase
  }
  const headersFor = async (dirPages: string[]) =>
    secureHeadersMiddleware({
      jsonLdHashes: [...new Set((await Promise.all(dirPages.map(cspHashesOf))).flat())],
      styleHashes: [...new Set((await Promise.all(dirPages.map(styleHashesOf))).flat())],
      https: settings.https,
      ...(settings.supabaseUrl ? { supabaseUrl: settings.supabaseUrl } : {}),
      tagManager: manifest.tagManager,
    })
  const ownHeaders = await headersFor(pagesIn(distDir))
  const phaseHeaders = phased
    ? new Map(
        await Promise.all(
          phases.list.map(async (phase) => [phase.name, await headersFor(pagesIn(phaseDir(phase.name)))] as const),
        ),
      )
    : undefined
  const headers: MiddlewareHandler = phaseHeaders
    ? (c, next) => (phaseHeaders.get(phaseFor(c)) ?? ownHeaders)(c, next)
    : ownHeaders
  return {
    distDir,
    contract: manifest.contract,
    home,
    ...(phased
      ? {
          phaseHomes: Object.fromEntries(
            phases.list.map((phase) => [
              phase.name,
              readFileSync(path.join(phaseDir(phase.name), 'index.html'), 'utf8'),
            ]),
          ),
        }
      : {}),
    pageCss: pages.map((html) => /<style>([\s\S]*?)<\/style>/.exec(html)?.[1]).find((css) => css !== undefined),
    headers,
    files: createStaticSite({ distDir, ...(schedule ? { pagesDir: (c) => phaseDir(phaseFor(c)) } : {}) }),
  }
}
