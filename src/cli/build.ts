import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { brotliCompressSync, constants as zlibConstants, gzipSync } from 'node:zlib'
import { build } from 'vite'
import { toClientConfig } from '../build/client-config.ts'
import { bootAfterLoad } from '../build/boot.ts'
import { fillTemplate } from '../build/head.ts'
import { buildImageVariants } from '../build/image-variants.ts'
import { writeFunctionBundle } from '../build/function-bundle.ts'
import { createViteConfig } from '../build/vite-config.ts'
import { checkDetailsPagePath, registeredPagePath } from '../../schema/registration-contract.ts'
import { cspHashesOf, staticHostHeaders, styleHashesOf } from '../server/security-headers.ts'
import { loadPageConfig, PageConfigError, publicDirFor, resolvePageConfigPath } from '../config/load-page-config.ts'

/** Where a build writes the site: DIST_DIR or ./dist. */
export function resolveDistDir(env: Record<string, string | undefined> = process.env): string {
  return path.resolve(env.DIST_DIR || 'dist')
}

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
export function buildFingerprint(configFile: string): string {
  const inputs = [
    configFile,
    ...listFiles(publicDirFor(configFile)),
    ...listFiles('src'),
    ...listFiles('schema'),
    'index.html',
    'vite.config.ts',
    'package-lock.json',
  ].sort()
  const hash = createHash('sha256').update(`${process.env.VITE_SUPABASE_URL ?? ''}\n${process.env.VITE_SUPABASE_ANON_KEY ?? ''}\n`)
  for (const file of inputs) {
    const info = existsSync(file) ? statSync(file) : undefined
    hash.update(`${path.resolve(file)}\0${info?.size ?? -1}\0${info?.mtimeMs ?? -1}\n`)
  }
  return hash.digest('hex')
}

/** True when distDir holds a build of exactly these inputs. */
export function isBuildCurrent(configFile: string, distDir: string): boolean {
  const stamp = path.join(distDir, stampFile)
  return existsSync(path.join(distDir, 'index.html')) && existsSync(stamp) && readFileSync(stamp, 'utf8') === buildFingerprint(configFile)
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
 * robots.txt, sitemap.xml and _headers (for static hosts), and .br/.gz copies of the text files.
 */
export async function buildSite(configFile = resolvePageConfigPath(), distDir = resolveDistDir()): Promise<void> {
  const config = loadPageConfig(configFile)
  const fingerprint = buildFingerprint(configFile)
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
  const supabaseUrl = process.env.VITE_SUPABASE_URL
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

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const started = Date.now()
  try {
    await buildSite()
    // The function's launches (supabase/functions/_shared/launches.json), from the launch just built.
    const built = loadPageConfig(resolvePageConfigPath())
    writeFunctionBundle([{ slug: built.launch.slug, config: built }], built.launch.slug)
    console.log(`Built ${path.relative(process.cwd(), resolveDistDir()) || '.'} in ${((Date.now() - started) / 1000).toFixed(1)} s`)
  } catch (error) {
    if (error instanceof PageConfigError) {
      console.error(error.message)
    } else {
      console.error(`The build failed: ${(error as Error).message}`)
    }
    process.exit(1)
  }
}
