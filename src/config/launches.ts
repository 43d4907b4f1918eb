import { existsSync, readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import type { PageConfig } from '../../schema/page-config.ts'
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
export function findLaunches(root = process.cwd(), env: Record<string, string | undefined> = process.env): LaunchSource[] {
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
  return relative.length === 2 && relative[1] === 'page.config.json' && !relative[0]!.startsWith('..') ? { folder: relative[0]! } : {}
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
 * to do), or one naming two configs that claim the same slug.
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
  const seen = new Map<string, Launch>()
  for (const launch of launches) {
    const other = seen.get(launch.slug)
    if (other) {
      errors.push(
        new PageConfigError(launch.configFile, [
          `Two launches are named "${launch.slug}": this one and ${other.configFile}. Each launch needs its own name ("launch": { "slug": … }): a launch in launches/ uses its folder name, so give the default launch (page.config.json) another one.`,
        ]),
      )
    }
    seen.set(launch.slug, launch)
  }
  if (errors.length > 0) throw new LaunchesError(errors)
  return launches
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
    const slug = (JSON.parse(readFileSync(configFile, 'utf8').replace(/^\uFEFF/, '')) as { launch?: { slug?: unknown } }).launch?.slug
    return typeof slug === 'string' ? slug : undefined
  } catch {
    return undefined
  }
}
