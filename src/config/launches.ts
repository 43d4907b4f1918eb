import { existsSync, readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import type { PageConfig } from '../../schema/page-config.ts'
import { describePath } from './describe.ts'
import { locate, parseJsonSource, type Segment } from './json-source.ts'
import { loadPageConfig, PageConfigError, publicDirFor } from './load-page-config.ts'

/**
 * Launches: the developments served from one checkout. The root page.config.json (with public/) is the default
 * launch; each launches/<slug>/page.config.json (with its public/) is another, its slug being its folder name. The
 * default launch names its slug in its config (`launch.slug`); every config states it, and one in launches/ must
 * state its folder name (the checker says so at the line).
 */

/** Where a launch's files are, before its config is read. */
export type LaunchSource = {
  configFile: string
  publicDir: string
  /** The root config (or the one PAGE_CONFIG names): served for any host no other launch claims. */
  isDefault: boolean
  /** The folder name for a launch in launches/; undefined for the default launch (its config says). */
  folder?: string
}

/** A launch whose config has been checked. */
export type Launch = LaunchSource & { slug: string; config: PageConfig }

/** The folder of further launches under a project root. */
export function launchesDirOf(root: string): string {
  return path.join(root, 'launches')
}

/**
 * The launches under `root`, default first, then launches/ by folder name. With PAGE_CONFIG set, only that config,
 * as the default launch (one development, as before launches existed). A folder in launches/ without a
 * page.config.json is not a launch and is skipped.
 */
export function findLaunches(
  root = process.cwd(),
  env: Record<string, string | undefined> = process.env,
): LaunchSource[] {
  if (env.PAGE_CONFIG) {
    const configFile = path.resolve(root, env.PAGE_CONFIG)
    return [{ configFile, publicDir: publicDirFor(configFile), isDefault: true, ...folderOf(root, configFile) }]
  }
  const configFile = path.join(root, 'page.config.json')
  const sources: LaunchSource[] = [{ configFile, publicDir: publicDirFor(configFile), isDefault: true }]
  const dir = launchesDirOf(root)
  if (!existsSync(dir)) return sources
  const folders = readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(path.join(dir, entry.name, 'page.config.json')))
    .map((entry) => entry.name)
    .sort()
  for (const folder of folders) {
    const file = path.join(dir, folder, 'page.config.json')
    sources.push({ configFile: file, publicDir: publicDirFor(file), isDefault: false, folder })
  }
  return sources
}

/** `{ folder }` when configFile is launches/<folder>/page.config.json under root. */
function folderOf(root: string, configFile: string): { folder?: string } {
  const relative = path.relative(launchesDirOf(root), configFile).split(path.sep)
  return relative.length === 2 && relative[1] === 'page.config.json' && !relative[0]!.startsWith('..')
    ? { folder: relative[0]! }
    : {}
}

/** Several launches that cannot be used: every broken config's problems, each under its file. */
export class LaunchesError extends Error {
  constructor(readonly errors: PageConfigError[]) {
    super(errors.map((error) => error.message).join('\n\n'))
    this.name = 'LaunchesError'
    this.stack = ''
  }
}

/**
 * Reads and checks every launch; throws LaunchesError listing every broken config (each with file, line and what
 * to do), and every pair of configs that claim the same slug or the same web address (checkLaunchSet).
 */
export function loadLaunches(sources: LaunchSource[]): Launch[] {
  const errors: PageConfigError[] = []
  const launches: Launch[] = []
  for (const source of sources) {
    try {
      const config = loadPageConfig(source.configFile)
      launches.push({ ...source, slug: config.launch.slug, config })
    } catch (error) {
      if (!(error instanceof PageConfigError)) throw error
      errors.push(error)
    }
  }
  errors.push(...checkLaunchSet(launches))
  if (errors.length > 0) throw new LaunchesError(errors)
  return launches
}

/**
 * A launch that cannot be used now: its files, the slug it is served as, where its first problem is, and every problem.
 */
export type BrokenLaunchSource = LaunchSource & {
  /** The folder name, else the slug the file states, else undefined (a file that cannot be read as JSON). */
  slug: string | undefined
  /** site.name when the file states one, for its "not published yet" page. */
  siteName: string | undefined
  /** "file:line" of the first problem. */
  place: string
  error: PageConfigError
}

/** "file:line" of a config error's first problem. */
function placeOfError(error: PageConfigError): string {
  const first = error.details[0]
  if (first) return `${shown(first.file)}:${first.line}`
  const stated = /^(\S+?:\d+)/.exec(error.problems[0] ?? '')?.[1]
  return stated ?? shown(error.file)
}

/** A launch source as broken by `error`. */
export function brokenSourceOf(source: LaunchSource, error: PageConfigError): BrokenLaunchSource {
  let siteName: string | undefined
  try {
    const name = (
      JSON.parse(readFileSync(source.configFile, 'utf8').replace(/^\uFEFF/, '')) as { site?: { name?: unknown } }
    ).site?.name
    if (typeof name === 'string') siteName = name
  } catch {
    // A file that is not JSON names nothing.
  }
  return {
    ...source,
    slug: source.folder ?? declaredSlug(source.configFile),
    siteName,
    place: placeOfError(error),
    error,
  }
}

/**
 * Reads and checks each launch on its own: one broken config (or one that claims another's slug or address) is
 * set aside with its problems and never stops the others. The launches that can be used, and those that cannot.
 */
export function loadLaunchesAlone(sources: LaunchSource[]): { launches: Launch[]; broken: BrokenLaunchSource[] } {
  const broken: BrokenLaunchSource[] = []
  let launches: Launch[] = []
  for (const source of sources) {
    try {
      const config = loadPageConfig(source.configFile)
      launches.push({ ...source, slug: config.launch.slug, config })
    } catch (error) {
      if (!(error instanceof PageConfigError)) throw error
      broken.push(brokenSourceOf(source, error))
    }
  }
  for (const error of checkLaunchSet(launches)) {
    const launch = launches.find((candidate) => candidate.configFile === error.file)
    if (!launch) continue
    launches = launches.filter((candidate) => candidate !== launch)
    broken.push({ ...launch, slug: launch.slug, siteName: launch.config.site.name, place: placeOfError(error), error })
  }
  return { launches, broken }
}

/** A web address a launch is served on: its host name, and where its config says so. */
type HostClaim = { host: string; at: Segment[] }

/** The host names a launch's config claims: its canonical address's and each of launch.origins'. */
function hostClaims(config: PageConfig): HostClaim[] {
  const claims: HostClaim[] = []
  const add = (address: string, at: Segment[]): void => {
    try {
      const host = new URL(address).hostname.toLowerCase()
      if (!claims.some((claim) => claim.host === host)) claims.push({ host, at })
    } catch {
      // The checker has already refused an address that is not one.
    }
  }
  add(config.seo.canonicalUrl, ['seo', 'canonicalUrl'])
  config.launch.origins?.forEach((origin, i) => add(origin, ['launch', 'origins', i]))
  return claims
}

/** "file:line" of a path in a config file (line 1 when it cannot be found). */
function placeOf(configFile: string, at: Segment[]): string {
  let line = 1
  try {
    const parsed = parseJsonSource(readFileSync(configFile, 'utf8').replace(/^\uFEFF/, ''))
    if ('source' in parsed) line = locate(parsed.source, at).span.start.line
  } catch {
    // Read a moment ago; if it is gone now, the file alone still says where.
  }
  return `${shown(configFile)}:${line}`
}

/** A file as a person reads it: relative to the current folder when inside it. */
function shown(file: string): string {
  const relative = path.relative(process.cwd(), file)
  return relative && !relative.startsWith('..') && !path.isAbsolute(relative) ? relative : file
}

/**
 * What is wrong between launches that are each fine alone: two that claim the same slug, or the same host name
 * (seo.canonicalUrl or launch.origins), which would leave the server unable to tell them apart. One error each,
 * naming both files.
 */
export function checkLaunchSet(launches: Launch[]): PageConfigError[] {
  const errors: PageConfigError[] = []
  const bySlug = new Map<string, Launch>()
  const byHost = new Map<string, { launch: Launch; at: Segment[] }>()
  for (const launch of launches) {
    const other = bySlug.get(launch.slug)
    if (other) {
      errors.push(
        new PageConfigError(launch.configFile, [
          `Two launches are named "${launch.slug}": ${shown(launch.configFile)} and ${shown(other.configFile)}. Each launch needs its own name ("launch": { "slug": … }): a launch in launches/ uses its folder name, so give the default launch (page.config.json) another one.`,
        ]),
      )
    }
    bySlug.set(launch.slug, launch)
    for (const claim of hostClaims(launch.config)) {
      const first = byHost.get(claim.host)
      if (!first) {
        byHost.set(claim.host, { launch, at: claim.at })
        continue
      }
      errors.push(
        new PageConfigError(launch.configFile, [
          `${placeOf(launch.configFile, claim.at)}\n  ${describePath(claim.at)} is an address on ${claim.host}, and so is ${describePath(first.at)} of another launch (${placeOf(first.launch.configFile, first.at)}). Two launches cannot share a web address: the server could not tell which page to show there.\n  What to do: Give each launch its own address. A new launch that is not online yet can use https://${launch.slug}.example.com/ until its real address is known.`,
        ]),
      )
    }
  }
  return errors
}

/**
 * The source of the launch named `slug` (a folder in launches/, or the default launch when its config says so),
 * without checking any other launch: one broken launch never blocks working on another. Throws LaunchesError
 * naming the launches there are.
 */
export function pickLaunchSource(sources: LaunchSource[], slug: string): LaunchSource {
  const byFolder = sources.find((source) => source.folder === slug)
  if (byFolder) return byFolder
  const slugs = sources.map((source) => source.folder ?? declaredSlug(source.configFile))
  const index = slugs.indexOf(slug)
  if (index !== -1) return sources[index]!
  const known = slugs.filter((s): s is string => s !== undefined)
  throw new LaunchesError([
    new PageConfigError('launches', [
      `There is no launch named "${slug}". ${known.length ? `The launches are: ${known.join(', ')}.` : 'There are no launches yet.'} npm run new-launch -- ${slug} starts one.`,
    ]),
  ])
}

/** The slug a config file states, when it can be read at all (the checker explains what is wrong otherwise). */
export function declaredSlug(configFile: string): string | undefined {
  try {
    const slug = (
      JSON.parse(readFileSync(configFile, 'utf8').replace(/^\uFEFF/, '')) as { launch?: { slug?: unknown } }
    ).launch?.slug
    return typeof slug === 'string' ? slug : undefined
  } catch {
    return undefined
  }
}
