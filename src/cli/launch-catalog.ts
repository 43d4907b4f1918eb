import type { PageConfig } from '../../schema/page-config.ts'
import { declaredSlug, findLaunches, type LaunchSource } from '../config/launches.ts'
import { loadPageConfig, PageConfigError } from '../config/load-page-config.ts'

/**
 * The launches as the lead tools (export, leads page, erasure, retries) see them: every launch's slug, and its config
 * when that can be used. A broken config does not stop them: its leads are still there and are still shown, with
 * the columns the data holds.
 */

/** One launch as the lead tools know it. */
export type CatalogLaunch = {
  slug: string
  /** Its checked config, or undefined when it cannot be used (see `problem`). */
  config?: PageConfig
  /** What is wrong with its config, in one sentence (npm run validate tells the whole). */
  problem?: string
}

/** Every launch that can be named, default first, and the default launch's slug. */
export type LaunchCatalog = {
  /** What leads stored before launches were kept belong to; undefined when page.config.json names no launch. */
  defaultSlug: string | undefined
  launches: CatalogLaunch[]
  /** Configs that could not be read at all, with what is wrong (for a note to the operator). */
  problems: string[]
}

/** The slug of a launch's source without checking its config: its folder in launches/, or what its config states. */
export function slugOfSource(source: LaunchSource): string | undefined {
  return source.folder ?? declaredSlug(source.configFile)
}

/**
 * The default launch's slug, read from its config without checking the rest of it (findLaunches: root or PAGE_CONFIG).
 */
export function defaultLaunchSlug(
  root = process.cwd(),
  env: Record<string, string | undefined> = process.env,
): string | undefined {
  const source = findLaunches(root, env)[0]
  return source && slugOfSource(source)
}

/** The first problem of a config as one line: where, and what is wrong (its excerpt and advice left out). */
function oneLine(error: PageConfigError): string {
  const lines = (error.problems[0] ?? '').split('\n').map((line) => line.trim())
  const what = lines.slice(1).find((line) => line !== '' && !/^[>|\d]/.test(line) && !line.startsWith('What to do'))
  const sentence = what ? `${lines[0]}: ${what}` : `${error.file}: this config cannot be used`
  return /[.!?]$/.test(sentence) ? sentence : `${sentence}.`
}

/** Loads one launch's config, keeping what is wrong with it instead of throwing. */
export function readCatalogLaunch(source: LaunchSource): CatalogLaunch | { problem: string } {
  try {
    const config = loadPageConfig(source.configFile)
    return { slug: config.launch.slug, config }
  } catch (error) {
    if (!(error instanceof PageConfigError)) throw error
    const more = error.problems.length - 1
    const problem = `${oneLine(error)}${more > 0 ? ` (${more} more problem${more === 1 ? '' : 's'} in that file.)` : ''}`
    const slug = slugOfSource(source)
    return slug === undefined ? { problem } : { slug, problem }
  }
}

/** Reads every launch under `root` (findLaunches), each on its own. */
export function readLaunchCatalog(
  root = process.cwd(),
  env: Record<string, string | undefined> = process.env,
): LaunchCatalog {
  const sources = findLaunches(root, env)
  const launches: CatalogLaunch[] = []
  const problems: string[] = []
  let defaultSlug: string | undefined
  for (const source of sources) {
    const read = readCatalogLaunch(source)
    if ('slug' in read) {
      launches.push(read)
      if (source.isDefault) defaultSlug = read.slug
    }
    if (read.problem !== undefined) problems.push(read.problem)
  }
  return { defaultSlug, launches, problems }
}

/** The sentence an operator reads when page.config.json names no launch, so old leads cannot be attributed. */
export const noDefaultLaunch =
  'page.config.json names no launch ("launch": { "slug": "…" }), so the registrations stored before launches existed cannot be attributed to it. Run npm run migrate (or npm run validate to see what is wrong), then try again.'
