import './production-env.ts'
import { createHash } from 'node:crypto'
import { cpSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { parseArgs } from 'node:util'
import { buildImageVariants, type VariantCounts } from '../build/image-variants.ts'
import {
  copyFunctionDocuments,
  functionBundleFile,
  readBundleEntries,
  writeFunctionBundleEntries,
} from '../build/function-bundle.ts'
import { buildCacheDir, listFiles, loadPageCode } from '../build/page-code.ts'
import { linkTree, liveIndex, renderPhasePages, writePhasePages, writeStaticHostFiles } from '../build/site-pages.ts'
import { precompressFiles } from '../build/precompress.ts'
import { functionLaunchOf, type FunctionBundle, type FunctionLaunch } from '../../schema/function-launch.ts'
import { readBuildSettings, SettingsError, type BuildSettings } from '../server/env.ts'
import type { Env } from '../server/settings/read-settings.ts'
import {
  declaredSlug,
  findLaunches,
  LaunchesError,
  loadLaunches,
  loadLaunchesAlone,
  pickLaunchSource,
  type BrokenLaunchSource,
  type Launch,
  type LaunchSource,
} from '../config/launches.ts'
import { versionManifestFile, type VersionManifest } from '../server/site/launch-version.ts'
import { phasesToBuild, writePhaseValidators } from '../build/phase-pages.ts'
import { loadPageConfig, PageConfigError, publicDirFor } from '../config/load-page-config.ts'
import type { PageConfig } from '../../schema/page-config.ts'
import { studioDistName } from '../build/studio-client.ts'

const stampFile = '.build-stamp'

/**
 * A fingerprint of everything a build reads (config, its images, the code, the lock file): when it matches the
 * one stored in distDir, the build there is current.
 */
export function buildFingerprint(configFile: string, settings: BuildSettings = readBuildSettings(process.env)): string {
  const inputs = [
    configFile,
    ...listFiles(publicDirFor(configFile)),
    ...listFiles('src'),
    ...listFiles('schema'),
    'index.html',
    'vite.config.ts',
    'package-lock.json',
  ].sort()
  const hash = createHash('sha256').update(`${settings.supabaseUrl ?? ''}\n${settings.anonKey}\n${settings.timeZone}\n`)
  for (const file of inputs) {
    const info = existsSync(file) ? statSync(file) : undefined
    hash.update(`${path.resolve(file)}\0${info?.size ?? -1}\0${info?.mtimeMs ?? -1}\n`)
  }
  return hash.digest('hex')
}

/** True when distDir holds a build of exactly these inputs. */
export function isBuildCurrent(
  configFile: string,
  distDir: string,
  settings: BuildSettings = readBuildSettings(process.env),
): boolean {
  const stamp = path.join(distDir, stampFile)
  return (
    existsSync(path.join(distDir, 'index.html')) &&
    existsSync(path.join(distDir, versionManifestFile)) &&
    existsSync(stamp) &&
    readFileSync(stamp, 'utf8') === buildFingerprint(configFile, settings)
  )
}

/** What one launch's build reused and made, for the log and the tests: the page code, its pictures' variants. */
export type SiteBuild = VersionManifest & {
  reusedCode: boolean
  codeFingerprint: string
  pictureVariants: VariantCounts
}

/**
 * Builds one launch's site into distDir from the page code every launch shares (src/build/page-code.ts: built once
 * per code version, reused here when current): the code's files, the launch's public/ folder, its form validator as
 * a file of its own (assets/form-validator-<hash>.js), AVIF/WebP variants of its images (cached by content across
 * launches and builds), "/" and the not-found, registered, check-details and privacy pages prerendered for every
 * phase (the phase in force now at the top, each phase in .phases/<name>/; head tags and JSON-LD included),
 * robots.txt, sitemap.xml and _headers (for static hosts), and .br/.gz copies of its text files. `config` is the file's
 * checked config when the caller has already loaded it (buildLaunches checks every launch first).
 */
export async function buildSite(
  configFile: string,
  distDir: string,
  settings: BuildSettings = readBuildSettings(process.env),
  config: PageConfig = loadPageConfig(configFile),
): Promise<SiteBuild> {
  // React picks its development or production build when first loaded (the validator's compiler loads it too): the
  // pages are the production build's.
  process.env.NODE_ENV ??= 'production'
  const fingerprint = buildFingerprint(configFile, settings)
  const publicDir = publicDirFor(configFile)
  const code = await loadPageCode(settings)
  mkdirSync(distDir, { recursive: true })
  linkTree(code.clientDir, distDir)
  const own: string[] = []
  if (existsSync(publicDir)) {
    cpSync(publicDir, distDir, { recursive: true, dereference: true })
    own.push(...listFiles(publicDir).map((file) => path.join(distDir, path.relative(publicDir, file))))
  }
  // Loaded here, after NODE_ENV: the compiler loads React (RJSF's utilities).
  const { bundleFormValidatorModule } = await import('../build/compile-form-validator.ts')
  const pictureVariants: VariantCounts = { reused: 0, made: 0 }
  const imageVariants = await buildImageVariants(
    config,
    publicDir,
    distDir,
    path.join(buildCacheDir, 'image-variants'),
    pictureVariants,
  )
  // Every phase's pages; a phase whose form texts differ gets its own validator file (the submit label travels in it).
  const phases = phasesToBuild(config, settings.timeZone, Date.now())
  const phaseValidators = await writePhaseValidators(phases, distDir, bundleFormValidatorModule)
  own.push(...new Set(phaseValidators.map((validator) => path.join(distDir, validator.file))))
  const byPhase = await renderPhasePages(code, phases, phaseValidators, imageVariants)
  own.push(...writePhasePages(distDir, phases, byPhase))
  own.push(
    ...(await writeStaticHostFiles(distDir, { config, publicDir, home: byPhase[liveIndex(phases)]![0]!, settings })),
  )
  await precompressFiles(own, path.join(buildCacheDir, 'compressed'))
  // What the Node server serves this folder with: the function's contract of this very build.
  const manifest: VersionManifest = {
    contract: functionLaunchOf(config),
    tagManager: config.site.analytics !== undefined,
  }
  writeFileSync(path.join(distDir, versionManifestFile), `${JSON.stringify(manifest)}\n`)
  writeFileSync(path.join(distDir, stampFile), fingerprint)
  return { ...manifest, reusedCode: code.reused, codeFingerprint: code.fingerprint, pictureVariants }
}

/**
 * buildSite into a fresh folder beside distDir, then put it in distDir's place: a build that fails half-way leaves
 * the last good build as it was (the server keeps serving it).
 */
async function buildSiteInPlace(
  configFile: string,
  distDir: string,
  settings: BuildSettings,
  config: PageConfig,
): Promise<SiteBuild> {
  const fresh = `${distDir}.building-${process.pid}`
  const old = `${distDir}.replaced-${process.pid}`
  rmSync(fresh, { recursive: true, force: true })
  let built: SiteBuild
  try {
    built = await buildSite(configFile, fresh, settings, config)
  } catch (error) {
    rmSync(fresh, { recursive: true, force: true })
    throw error
  }
  rmSync(old, { recursive: true, force: true })
  if (existsSync(distDir)) renameSync(distDir, old)
  renameSync(fresh, distDir)
  rmSync(old, { recursive: true, force: true })
  return built
}

/** What a build of several launches was asked to do. */
export type BuildLaunchesOptions = {
  /**
   * The project: page.config.json, launches/, and where the function's bundle is written. Default: the working folder.
   */
  root?: string
  /** The environment (PAGE_CONFIG picks one config, as the default launch). */
  env?: Env
  settings?: BuildSettings
  /** Build only this launch (`--launch <slug>`); the function's bundle keeps the other launches' entries. */
  launch?: string
  /** Skip each launch whose dist/<slug>/ is a build of its current inputs (npm start). */
  onlyStale?: boolean
  /** Where the one line per launch goes. */
  log?: (line: string) => void
}

/** A launch that was not built: its config's problems, or what failed while building it (an image, the prerender). */
export type BrokenBuild = BrokenLaunchSource & { message: string }

/** The launches a build went through, each with where its site is, and those it could not build. */
export type BuiltLaunches = {
  launches: Launch[]
  broken: BrokenBuild[]
  distDirs: Map<string, string>
  bundleFile: string
}

/** Where a launch's site is built and served from: <DIST_DIR>/<slug>/. */
export function launchDistDir(distRoot: string, slug: string): string {
  return path.join(distRoot, slug)
}

/** "file:line" where a config names the image (or other quoted text) a build error is about, else the file. */
function placeOfBuildError(configFile: string, message: string): string {
  const shown = path.relative(process.cwd(), configFile) || configFile
  const quoted = /The image (\S+) /.exec(message)?.[1]
  if (!quoted) return shown
  const lines = readFileSync(configFile, 'utf8').split('\n')
  const index = lines.findIndex((line) => line.includes(`"${quoted}"`))
  return index === -1 ? shown : `${shown}:${index + 1}`
}

/**
 * Builds every launch (or the one named) into <DIST_DIR>/<slug>/, one after the other, then writes the function's
 * bundle (supabase/functions/_shared/launches.json) from them. Each launch stands alone: one whose config has
 * problems, or whose build fails (an image, the prerender), is returned in `broken` with its file and line, its
 * last good build and its last good entry in the function's bundle kept, and the others are built. Throws
 * SettingsError for a bad setting, LaunchesError for a --launch that names no launch.
 */
export async function buildLaunches(options: BuildLaunchesOptions = {}): Promise<BuiltLaunches> {
  const root = path.resolve(options.root ?? process.cwd())
  const env = options.env ?? process.env
  const settings = options.settings ?? readBuildSettings(env)
  const log = options.log ?? ((line: string) => console.log(line))
  const sources = findLaunches(root, env)
  const chosen = options.launch === undefined ? sources : [pickLaunchSource(sources, options.launch)]
  const checked = loadLaunchesAlone(chosen)
  const broken: BrokenBuild[] = checked.broken.map((launch) => ({ ...launch, message: launch.error.message }))
  const launches: Launch[] = []
  const distRoot = path.resolve(root, settings.distDir)
  const distDirs = new Map<string, string>()
  // Two launches at a time: one's prerender and compression (this thread) overlap the other's picture encoding and
  // validator bundling (sharp's and esbuild's own threads). Results keep the launches' order.
  const outcomes: Array<{ built: true } | { broken: BrokenBuild }> = []
  let nextIndex = 0
  const buildNext = async (): Promise<void> => {
    while (nextIndex < checked.launches.length) {
      const index = nextIndex++
      const launch = checked.launches[index]!
      const distDir = launchDistDir(distRoot, launch.slug)
      distDirs.set(launch.slug, distDir)
      const shown = path.relative(process.cwd(), distDir) || '.'
      if (options.onlyStale && isBuildCurrent(launch.configFile, distDir, settings)) {
        log(`${launch.slug}: ${shown} is up to date`)
        outcomes[index] = { built: true }
        continue
      }
      outcomes[index] = await buildOneLaunch(launch, distDir, settings, log)
    }
  }
  await Promise.all([buildNext(), buildNext()])
  checked.launches.forEach((launch, index) => {
    const outcome = outcomes[index]!
    if ('broken' in outcome) broken.push(outcome.broken)
    else launches.push(launch)
  })
  for (const launch of broken) distDirs.set(launch.slug ?? '', launchDistDir(distRoot, launch.slug ?? ''))
  distDirs.delete('')
  await putStudioClient(distRoot, settings, log)
  const bundleFile =
    options.launch === undefined
      ? writeWholeBundle(root, launches, broken)
      : launches[0]
        ? updateFunctionBundle(root, sources, launches[0])
        : path.resolve(root, functionBundleFile)
  return { launches, broken, distDirs, bundleFile }
}

/** Builds one checked launch in place and logs it; what failed (an image, the prerender) as a broken build. */
async function buildOneLaunch(
  launch: Launch,
  distDir: string,
  settings: BuildSettings,
  log: (line: string) => void,
): Promise<{ built: true } | { broken: BrokenBuild }> {
  const shown = path.relative(process.cwd(), distDir) || '.'
  const started = Date.now()
  try {
    const built = await buildSiteInPlace(launch.configFile, distDir, settings, launch.config)
    const { reused, made } = built.pictureVariants
    log(
      `${launch.slug}: built ${shown} in ${((Date.now() - started) / 1000).toFixed(1)} s (page code ${built.codeFingerprint} ${built.reusedCode ? 'reused' : 'built'}; picture variants: ${reused} reused, ${made} made)`,
    )
  } catch (error) {
    const message = `The build of launch "${launch.slug}" failed: ${(error as Error).message}`
    const place = placeOfBuildError(launch.configFile, (error as Error).message)
    return {
      broken: {
        ...launch,
        siteName: launch.config.site.name,
        place,
        error: new PageConfigError(launch.configFile, [`${place}: ${message}`]),
        message: `${place}\n  ${message}`,
      },
    }
  }
  return { built: true }
}

/**
 * The studio's browser part: built with the page code (none of its code can reach a launch's bundle), and put in
 * <DIST_DIR>/_studio/ when that holds another version of it.
 */
async function putStudioClient(distRoot: string, settings: BuildSettings, log: (line: string) => void): Promise<void> {
  const studioDir = path.join(distRoot, studioDistName)
  const code = await loadPageCode(settings)
  const studioStamp = path.join(studioDir, stampFile)
  if (existsSync(studioStamp) && readFileSync(studioStamp, 'utf8') === code.fingerprint) {
    log(`studio: ${path.relative(process.cwd(), studioDir) || '.'} is up to date`)
  } else {
    const fresh = `${studioDir}.building-${process.pid}`
    const old = `${studioDir}.replaced-${process.pid}`
    rmSync(fresh, { recursive: true, force: true })
    linkTree(code.studioDir, fresh)
    writeFileSync(path.join(fresh, stampFile), code.fingerprint)
    rmSync(old, { recursive: true, force: true })
    if (existsSync(studioDir)) renameSync(studioDir, old)
    renameSync(fresh, studioDir)
    rmSync(old, { recursive: true, force: true })
    log(`studio: put in ${path.relative(process.cwd(), studioDir) || '.'} (page code ${code.fingerprint})`)
  }
}

/** The bundle of a whole build: every launch built, and each broken one's last good entry where there is one. */
function writeWholeBundle(root: string, launches: Launch[], broken: BrokenBuild[]): string {
  // Nothing built (one launch, broken): the bundle stays as the last build wrote it.
  if (launches.length === 0) return path.resolve(root, functionBundleFile)
  const kept = readBundleEntries(root)
  for (const launch of launches) copyFunctionDocuments(launch, root)
  const entries = launches.map((launch) => functionLaunchOf(launch.config))
  for (const launch of broken) {
    const last = launch.slug === undefined ? undefined : kept.entries.get(launch.slug)
    if (last && !entries.some((entry) => entry.slug === last.slug)) entries.push(last)
  }
  const defaultSlug =
    launches.find((launch) => launch.isDefault)?.slug ?? broken.find((launch) => launch.isDefault)?.slug
  return writeFunctionBundleEntries(
    entries,
    entries.some((entry) => entry.slug === defaultSlug) ? defaultSlug! : entries[0]!.slug,
    root,
  )
}

/**
 * The function's bundle with one launch's entry replaced (or added), every other launch's entry kept as the last
 * full build wrote it: building one launch never drops another from the function, nor fails on another's config.
 * Without a bundle yet, the other launches whose configs are usable are put in.
 */
function updateFunctionBundle(root: string, sources: LaunchSource[], built: Launch): string {
  const file = path.resolve(root, functionBundleFile)
  let existing: FunctionBundle | undefined
  try {
    existing = JSON.parse(readFileSync(file, 'utf8')) as FunctionBundle
    if (!Array.isArray(existing.launches)) existing = undefined
  } catch {
    existing = undefined
  }
  const entries = new Map<string, FunctionLaunch>()
  const slugOf = (source: LaunchSource) =>
    source.configFile === built.configFile ? built.slug : (source.folder ?? declaredSlug(source.configFile))
  for (const source of sources) {
    const slug = slugOf(source)
    if (slug === undefined) continue
    if (source.configFile === built.configFile) {
      entries.set(slug, functionLaunchOf(built.config))
      copyFunctionDocuments(built, root)
      continue
    }
    const kept = existing?.launches.find((entry) => entry.slug === slug)
    if (kept) {
      entries.set(slug, kept)
    } else if (!existing) {
      try {
        const [other] = loadLaunches([source])
        entries.set(other!.slug, functionLaunchOf(other!.config))
      } catch {
        // Its own build will say what is wrong with it; the function gets it then.
      }
    }
  }
  const defaultSource = sources.find((source) => source.isDefault)
  const defaultLaunch = (defaultSource && slugOf(defaultSource)) ?? existing?.defaultLaunch ?? built.slug
  const launches = [...entries.values()]
  return writeFunctionBundleEntries(
    launches,
    launches.some((entry) => entry.slug === defaultLaunch) ? defaultLaunch : built.slug,
    root,
  )
}

/** The message for a build that could not start or finish: the config's problems, a setting, or what failed. */
export function buildFailureMessage(error: unknown): string {
  if (error instanceof PageConfigError || error instanceof LaunchesError || error instanceof SettingsError)
    return error.message
  return `The build failed: ${(error as Error).message}`
}

/** What to print about launches that were not built: one line each with file and line, then each one's problems. */
export function brokenBuildsMessage(broken: readonly BrokenBuild[]): string {
  return broken
    .map(
      (launch) =>
        `${launch.slug ? `Launch ${launch.slug}` : 'The launch'} was not built: ${launch.place}. Its last good build (if any) is kept.\n${launch.message}`,
    )
    .join('\n\n')
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const started = Date.now()
  try {
    const { values } = parseArgs({ options: { launch: { type: 'string' } }, strict: true })
    const { launches, broken, bundleFile } = await buildLaunches({ launch: values.launch })
    if (launches.length > 0) {
      console.log(
        `Built ${launches.length} launch${launches.length === 1 ? '' : 'es'} in ${((Date.now() - started) / 1000).toFixed(1)} s; the function's launches are in ${path.relative(process.cwd(), bundleFile)}`,
      )
    }
    if (broken.length > 0) {
      // The others are written; the exit code still tells a script (CI, a deploy) that not everything was built.
      console.error(
        `\n${broken.length === 1 ? 'One launch was' : `${broken.length} launches were`} not built:\n\n${brokenBuildsMessage(broken)}`,
      )
      process.exit(1)
    }
  } catch (error) {
    console.error(
      (error as { code?: string }).code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION'
        ? `${(error as Error).message}. Use: npm run build [-- --launch <slug>]`
        : buildFailureMessage(error),
    )
    process.exit(1)
  }
}
