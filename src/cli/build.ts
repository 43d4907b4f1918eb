import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { parseArgs } from 'node:util'
import { brotliCompressSync, constants as zlibConstants, gzipSync } from 'node:zlib'
import { build } from 'vite'
import { toClientConfig } from '../build/client-config.ts'
import { bootAfterLoad } from '../build/boot.ts'
import { fillTemplate } from '../build/head.ts'
import { buildImageVariants } from '../build/image-variants.ts'
import { functionBundleFile, readBundleEntries, writeFunctionBundleEntries } from '../build/function-bundle.ts'
import { createViteConfig } from '../build/vite-config.ts'
import { functionLaunchOf, type FunctionBundle, type FunctionLaunch } from '../../schema/function-launch.ts'
import { checkDetailsPagePath, registeredPagePath } from '../../schema/registration-contract.ts'
import { cspHashesOf, staticHostHeaders, styleHashesOf } from '../server/site/security-headers.ts'
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
import { loadPageConfig, PageConfigError, publicDirFor } from '../config/load-page-config.ts'
import type { PageConfig } from '../../schema/page-config.ts'
import { buildStudioClient, studioDistName } from '../build/studio-client.ts'

const stampFile = '.build-stamp'

function listFiles(dir: string): string[] {
  if (!existsSync(dir)) return []
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.join(entry.parentPath, entry.name))
}

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
  const hash = createHash('sha256').update(`${settings.supabaseUrl ?? ''}\n${settings.anonKey}\n`)
  for (const file of inputs) {
    const info = existsSync(file) ? statSync(file) : undefined
    hash.update(`${path.resolve(file)}\0${info?.size ?? -1}\0${info?.mtimeMs ?? -1}\n`)
  }
  return hash.digest('hex')
}

/** True when distDir holds a build of exactly these inputs. */
export function isBuildCurrent(configFile: string, distDir: string, settings: BuildSettings = readBuildSettings(process.env)): boolean {
  const stamp = path.join(distDir, stampFile)
  return (
    existsSync(path.join(distDir, 'index.html')) &&
    existsSync(path.join(distDir, versionManifestFile)) &&
    existsSync(stamp) &&
    readFileSync(stamp, 'utf8') === buildFingerprint(configFile, settings)
  )
}

/** A fingerprint of what the studio's browser part is built from: the code, the schema and the lock file. */
function studioFingerprint(): string {
  const hash = createHash('sha256')
  for (const file of [...listFiles('src'), ...listFiles('schema'), 'package-lock.json'].sort()) {
    const info = existsSync(file) ? statSync(file) : undefined
    hash.update(`${path.resolve(file)}\0${info?.size ?? -1}\0${info?.mtimeMs ?? -1}\n`)
  }
  return hash.digest('hex')
}

/** True when studioDir holds a build of the studio from the current code. */
function isStudioBuildCurrent(studioDir: string): boolean {
  const stamp = path.join(studioDir, stampFile)
  return existsSync(path.join(studioDir, 'index.html')) && existsSync(stamp) && readFileSync(stamp, 'utf8') === studioFingerprint()
}

type PrerenderModule = typeof import('../build/prerender.tsx')

// Text files a host can send compressed; the Node server serves these .br/.gz siblings as they are.
const compressible = /\.(html|js|css|svg|json|xml|txt|webmanifest)$/

function sitemapXml(canonicalUrl: string): string {
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">',
    `  <url><loc>${canonicalUrl}</loc><changefreq>weekly</changefreq></url>`,
    '</urlset>',
    '',
  ].join('\n')
}

function robotsTxt(canonicalUrl: string): string {
  return `User-agent: *\nAllow: /\n\nSitemap: ${new URL('sitemap.xml', canonicalUrl).href}\n`
}

/**
 * Puts the page's stylesheet into the HTML: a render-blocking request less before the first paint (the CSS is
 * ~6 KiB compressed). The CSP allows this one <style> by hash.
 */
function inlineStylesheets(html: string, distDir: string): string {
  return html.replace(/<link rel="stylesheet"[^>]*href="(\/assets\/[^"]+\.css)"[^>]*>/g, (_tag, href: string) => {
    const file = path.join(distDir, href)
    const css = readFileSync(file, 'utf8').replace(/<\/style/gi, '<\\/style')
    rmSync(file)
    return `<style>${css}</style>`
  })
}

function precompress(distDir: string): void {
  for (const file of listFiles(distDir)) {
    if (!compressible.test(file)) continue
    const content = readFileSync(file)
    writeFileSync(`${file}.gz`, gzipSync(content, { level: 9 }))
    writeFileSync(`${file}.br`, brotliCompressSync(content, { params: { [zlibConstants.BROTLI_PARAM_QUALITY]: 11 } }))
  }
}

/**
 * Builds the site into distDir: checks the config, bundles the client, makes AVIF/WebP variants of raster
 * images, prerenders "/" and the not-found page into static HTML (head tags and JSON-LD included), writes
 * robots.txt, sitemap.xml and _headers (for static hosts), and .br/.gz copies of the text files. `config` is the
 * file's checked config when the caller has already loaded it (buildLaunches checks every launch first).
 */
export async function buildSite(
  configFile: string,
  distDir: string,
  settings: BuildSettings = readBuildSettings(process.env),
  config: PageConfig = loadPageConfig(configFile),
): Promise<VersionManifest> {
  const fingerprint = buildFingerprint(configFile, settings)
  // Inside the project, so the prerender bundle resolves its dependencies from node_modules; one folder per build,
  // so builds of several launches or test runs side by side do not overwrite each other's.
  mkdirSync(path.resolve('node_modules/.cache'), { recursive: true })
  const ssrDir = mkdtempSync(path.resolve('node_modules/.cache/prerender-'))
  const publicDir = publicDirFor(configFile)
  let home: string
  try {
    // Each build gets its own plugin instances: they keep state from the build they are configured for.
    await build({ ...createViteConfig({ configFile, config, outDir: distDir }), logLevel: 'warn' })
    await build({
      ...createViteConfig({ configFile, config }),
      logLevel: 'warn',
      publicDir: false,
      build: { ssr: 'src/build/prerender.tsx', outDir: ssrDir, emptyOutDir: true, copyPublicDir: false },
    })
    const imageVariants = await buildImageVariants(config, publicDir, distDir)
    const { renderPath } = (await import(pathToFileURL(path.join(ssrDir, 'prerender.js')).href)) as PrerenderModule
    const clientConfig = toClientConfig(config, imageVariants)
    const template = bootAfterLoad(inlineStylesheets(readFileSync(path.join(distDir, 'index.html'), 'utf8'), distDir))
    home = fillTemplate(template, config, 'home', await renderPath(clientConfig, '/'), imageVariants)
    writeFileSync(path.join(distDir, 'index.html'), home)
    writeFileSync(path.join(distDir, '404.html'), fillTemplate(template, config, 'not-found', await renderPath(clientConfig, '/404'), imageVariants))
    // Where a registration sent without JavaScript lands (the function redirects there).
    for (const [kind, pagePath] of [['registered', registeredPagePath], ['check-details', checkDetailsPagePath]] as const) {
      writeFileSync(path.join(distDir, pagePath), fillTemplate(template, config, kind, await renderPath(clientConfig, pagePath), imageVariants))
    }
  } finally {
    rmSync(ssrDir, { recursive: true, force: true })
  }
  const supabaseUrl = settings.supabaseUrl
  const headerOptions = {
    jsonLdHashes: await cspHashesOf(home),
    styleHashes: await styleHashesOf(home),
    https: true,
    tagManager: config.site.analytics !== undefined,
    ...(supabaseUrl ? { supabaseUrl } : {}),
  }
  writeFileSync(path.join(distDir, '_headers'), staticHostHeaders(headerOptions))
  if (!existsSync(path.join(publicDir, 'robots.txt'))) writeFileSync(path.join(distDir, 'robots.txt'), robotsTxt(config.seo.canonicalUrl))
  writeFileSync(path.join(distDir, 'sitemap.xml'), sitemapXml(config.seo.canonicalUrl))
  precompress(distDir)
  // What the Node server serves this folder with: the function's contract of this very build.
  const manifest: VersionManifest = { contract: functionLaunchOf(config), tagManager: config.site.analytics !== undefined }
  writeFileSync(path.join(distDir, versionManifestFile), `${JSON.stringify(manifest)}\n`)
  writeFileSync(path.join(distDir, stampFile), fingerprint)
  return manifest
}

/**
 * buildSite into a fresh folder beside distDir, then put it in distDir's place: a build that fails half-way leaves
 * the last good build as it was (the server keeps serving it).
 */
async function buildSiteInPlace(configFile: string, distDir: string, settings: BuildSettings, config: PageConfig): Promise<void> {
  const fresh = `${distDir}.building-${process.pid}`
  const old = `${distDir}.replaced-${process.pid}`
  rmSync(fresh, { recursive: true, force: true })
  try {
    await buildSite(configFile, fresh, settings, config)
  } catch (error) {
    rmSync(fresh, { recursive: true, force: true })
    throw error
  }
  rmSync(old, { recursive: true, force: true })
  if (existsSync(distDir)) renameSync(distDir, old)
  renameSync(fresh, distDir)
  rmSync(old, { recursive: true, force: true })
}

/** What a build of several launches was asked to do. */
export type BuildLaunchesOptions = {
  /** The project: page.config.json, launches/, and where the function's bundle is written. Default: the working folder. */
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
export type BuiltLaunches = { launches: Launch[]; broken: BrokenBuild[]; distDirs: Map<string, string>; bundleFile: string }

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
  for (const launch of checked.launches) {
    const distDir = launchDistDir(distRoot, launch.slug)
    distDirs.set(launch.slug, distDir)
    const shown = path.relative(process.cwd(), distDir) || '.'
    if (options.onlyStale && isBuildCurrent(launch.configFile, distDir, settings)) {
      log(`${launch.slug}: ${shown} is up to date`)
      launches.push(launch)
      continue
    }
    const started = Date.now()
    try {
      await buildSiteInPlace(launch.configFile, distDir, settings, launch.config)
    } catch (error) {
      const message = `The build of launch "${launch.slug}" failed: ${(error as Error).message}`
      const place = placeOfBuildError(launch.configFile, (error as Error).message)
      broken.push({ ...launch, siteName: launch.config.site.name, place, error: new PageConfigError(launch.configFile, [`${place}: ${message}`]), message: `${place}\n  ${message}` })
      continue
    }
    launches.push(launch)
    log(`${launch.slug}: built ${shown} in ${((Date.now() - started) / 1000).toFixed(1)} s`)
  }
  for (const launch of broken) distDirs.set(launch.slug ?? '', launchDistDir(distRoot, launch.slug ?? ''))
  distDirs.delete('')
  // The studio's browser part: built on its own (none of its code can reach a launch's bundle), by a full build, or
  // by any build when it is missing or older than the code.
  const studioDir = path.join(distRoot, studioDistName)
  if (options.launch === undefined || !isStudioBuildCurrent(studioDir)) {
    if (options.onlyStale && isStudioBuildCurrent(studioDir)) {
      log(`studio: ${path.relative(process.cwd(), studioDir) || '.'} is up to date`)
    } else {
      const started = Date.now()
      await buildStudioClient(studioDir)
      writeFileSync(path.join(studioDir, stampFile), studioFingerprint())
      log(`studio: built ${path.relative(process.cwd(), studioDir) || '.'} in ${((Date.now() - started) / 1000).toFixed(1)} s`)
    }
  }
  const bundleFile =
    options.launch === undefined
      ? writeWholeBundle(root, launches, broken)
      : launches[0]
        ? updateFunctionBundle(root, sources, launches[0])
        : path.resolve(root, functionBundleFile)
  return { launches, broken, distDirs, bundleFile }
}

/** The bundle of a whole build: every launch built, and each broken one's last good entry where there is one. */
function writeWholeBundle(root: string, launches: Launch[], broken: BrokenBuild[]): string {
  // Nothing built (one launch, broken): the bundle stays as the last build wrote it.
  if (launches.length === 0) return path.resolve(root, functionBundleFile)
  const kept = readBundleEntries(root)
  const entries = launches.map((launch) => functionLaunchOf(launch.config))
  for (const launch of broken) {
    const last = launch.slug === undefined ? undefined : kept.entries.get(launch.slug)
    if (last && !entries.some((entry) => entry.slug === last.slug)) entries.push(last)
  }
  const defaultSlug = launches.find((launch) => launch.isDefault)?.slug ?? broken.find((launch) => launch.isDefault)?.slug
  return writeFunctionBundleEntries(entries, entries.some((entry) => entry.slug === defaultSlug) ? defaultSlug! : entries[0]!.slug, root)
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
  const slugOf = (source: LaunchSource) => (source.configFile === built.configFile ? built.slug : (source.folder ?? declaredSlug(source.configFile)))
  for (const source of sources) {
    const slug = slugOf(source)
    if (slug === undefined) continue
    if (source.configFile === built.configFile) {
      entries.set(slug, functionLaunchOf(built.config))
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
  return writeFunctionBundleEntries(launches, launches.some((entry) => entry.slug === defaultLaunch) ? defaultLaunch : built.slug, root)
}

/** The message for a build that could not start or finish: the config's problems, a setting, or what failed. */
export function buildFailureMessage(error: unknown): string {
  if (error instanceof PageConfigError || error instanceof LaunchesError || error instanceof SettingsError) return error.message
  return `The build failed: ${(error as Error).message}`
}

/** What to print about launches that were not built: one line each with file and line, then each one's problems. */
export function brokenBuildsMessage(broken: readonly BrokenBuild[]): string {
  return broken
    .map((launch) => `${launch.slug ? `Launch ${launch.slug}` : 'The launch'} was not built: ${launch.place}. Its last good build (if any) is kept.\n${launch.message}`)
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
      console.error(`\n${broken.length === 1 ? 'One launch was' : `${broken.length} launches were`} not built:\n\n${brokenBuildsMessage(broken)}`)
      process.exit(1)
    }
  } catch (error) {
    console.error((error as { code?: string }).code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' ? `${(error as Error).message}. Use: npm run build [-- --launch <slug>]` : buildFailureMessage(error))
    process.exit(1)
  }
}
