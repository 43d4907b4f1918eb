import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { build } from 'vite'
import { fillTemplate } from '../page/head.ts'
import { loadPageConfig, PageConfigError, publicDirFor, resolvePageConfigPath } from '../page/load-page-config.ts'

/** Where a build writes the site: DIST_DIR or ./dist. */
export function resolveDistDir(env: Record<string, string | undefined> = process.env): string {
  return path.resolve(env.DIST_DIR || 'dist')
}

type ServerEntry = { renderPath: (pathname: string) => Promise<string> }

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
 * Builds the site into distDir: checks the config, bundles the client, prerenders "/" and the not-found
 * page into static HTML (head tags and JSON-LD included), and writes robots.txt and sitemap.xml.
 */
export async function buildSite(configFile = resolvePageConfigPath(), distDir = resolveDistDir()): Promise<void> {
  const config = loadPageConfig(configFile)
  const env = { PAGE_CONFIG: configFile, DIST_DIR: distDir }
  Object.assign(process.env, env)
  // Inside the project, so the prerender bundle resolves its dependencies from node_modules.
  const ssrDir = path.resolve('node_modules/.cache/prerender')
  await build({ logLevel: 'warn', build: { outDir: distDir, emptyOutDir: true } })
  await build({
    logLevel: 'warn',
    publicDir: false,
    build: { ssr: 'src/entry-server.tsx', outDir: ssrDir, emptyOutDir: true, copyPublicDir: false },
  })
  const entry = (await import(pathToFileURL(path.join(ssrDir, 'entry-server.js')).href)) as ServerEntry
  const template = readFileSync(path.join(distDir, 'index.html'), 'utf8')
  writeFileSync(path.join(distDir, 'index.html'), fillTemplate(template, config, 'home', await entry.renderPath('/')))
  writeFileSync(path.join(distDir, '404.html'), fillTemplate(template, config, 'not-found', await entry.renderPath('/404')))
  rmSync(ssrDir, { recursive: true, force: true })
  const publicDir = publicDirFor(configFile)
  if (!existsSync(path.join(publicDir, 'robots.txt'))) writeFileSync(path.join(distDir, 'robots.txt'), robotsTxt(config.seo.canonicalUrl))
  writeFileSync(path.join(distDir, 'sitemap.xml'), sitemapXml(config.seo.canonicalUrl))
  mkdirSync(distDir, { recursive: true })
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const started = Date.now()
  try {
    await buildSite()
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
