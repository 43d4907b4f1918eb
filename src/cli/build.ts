import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { parseArgs } from 'node:util'
import { brotliCompressSync, constants as zlibConstants, gzipSync } from 'node:zlib'
import { build } from 'vite'
import { toClientConfig } from '../build/client-config.ts'
import { bootAfterLoad } from '../build/boot.ts'
import { fillTemplate } from '../build/head.ts'
import { buildImageVariants } from '../build/image-variants.ts'
import { functionBundleFile, writeFunctionBundle, writeFunctionBundleEntries } from '../build/function-bundle.ts'
import { createViteConfig } from '../build/vite-config.ts'
import { functionLaunchOf, type FunctionBundle, type FunctionLaunch } from '../../schema/function-launch.ts'
import { checkDetailsPagePath, registeredPagePath } from '../../schema/registration-contract.ts'
import { cspHashesOf, staticHostHeaders, styleHashesOf } from '../server/security-headers.ts'
import { readBuildSettings, SettingsError, type BuildSettings, type Env } from '../server/env.ts'
import { declaredSlug, findLaunches, LaunchesError, loadLaunches, pickLaunchSource, type Launch, type LaunchSource } from '../config/launches.ts'
import { loadPageConfig, PageConfigError, publicDirFor } from '../config/load-page-config.ts'
import type { PageConfig } from '../../schema/page-config.ts'
import { buildStudioClient, studioDistName } from '../studio/build-client.ts'

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
  return existsSync(path.join(distDir, 'index.html')) && existsSync(stamp) && readFileSync(stamp, 'utf8') === buildFingerprint(configFile, settings)
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
): Promise<void> {
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
  writeFileSync(path.join(distDir, stampFile), fingerprint)
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

/** The launches a build went through, each with where its site is. */
export type BuiltLaunches = { launches: Launch[]; distDirs: Map<string, string>; bundleFile: string }

/** Where a launch's site is built and served from: <DIST_DIR>/<slug>/. */
export function launchDistDir(distRoot: string, slug: string): string {
  return path.join(distRoot, slug)
}

/**
 * Builds every launch (or the one named) into <DIST_DIR>/<slug>/, one after the other, then writes the function's
 * bundle (supabase/functions/_shared/launches.json) from them. Every config is checked before anything is built:
 * throws LaunchesError naming each broken file and line, or SettingsError for a bad setting.
 */
export async function buildLaunches(options: BuildLaunchesOptions = {}): Promise<BuiltLaunches> {
  const root = path.resolve(options.root ?? process.cwd())
  const env = options.env ?? process.env
  const settings = options.settings ?? readBuildSettings(env)
  const log = options.log ?? ((line: string) => console.log(line))
  const sources = findLaunches(root, env)
  const chosen = options.launch === undefined ? sources : [pickLaunchSource(sources, options.launch)]
  const launches = loadLaunches(chosen)
  const distRoot = path.resolve(root, settings.distDir)
  const distDirs = new Map<string, string>()
  for (const launch of launches) {
    const distDir = launchDistDir(distRoot, launch.slug)
    distDirs.set(launch.slug, distDir)
    const shown = path.relative(process.cwd(), distDir) || '.'
    if (options.onlyStale && isBuildCurrent(launch.configFile, distDir, settings)) {
      log(`${launch.slug}: ${shown} is up to date`)
      continue
    }
    const started = Date.now()
    await buildSite(launch.configFile, distDir, settings, launch.config)
    log(`${launch.slug}: built ${shown} in ${((Date.now() - started) / 1000).toFixed(1)} s`)
  }
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
      ? writeFunctionBundle(launches, launches.find((launch) => launch.isDefault)?.slug ?? launches[0]!.slug, root)
      : updateFunctionBundle(root, sources, launches[0]!)
  return { launches, distDirs, bundleFile }
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

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const started = Date.now()
  try {
    const { values } = parseArgs({ options: { launch: { type: 'string' } }, strict: true })
    const { launches, bundleFile } = await buildLaunches({ launch: values.launch })
    console.log(
      `Built ${launches.length} launch${launches.length === 1 ? '' : 'es'} in ${((Date.now() - started) / 1000).toFixed(1)} s; the function's launches are in ${path.relative(process.cwd(), bundleFile)}`,
    )
  } catch (error) {
    console.error((error as { code?: string }).code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' ? `${(error as Error).message}. Use: npm run build [-- --launch <slug>]` : buildFailureMessage(error))
    process.exit(1)
  }
}
