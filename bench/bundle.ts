import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { brotliCompressSync, constants, gzipSync } from 'node:zlib'
import { bootFilePrefix } from '../src/build/boot.ts'

/** One built file: its path under dist, and its size raw, gzip -9 and brotli (quality 11). */
export type AssetSize = { file: string; name: string; raw: number; gzip: number; brotli: number }

/** What the page loads before any interaction, and the chunks it loads later (after hydration, on demand). */
export type BundleFigures = {
  initialJs: AssetSize[]
  initialCss: AssetSize[]
  lazy: AssetSize[]
  html: AssetSize
  totals: { initialJsGzip: number; initialCssGzip: number; initialGzip: number; lazyGzip: number }
}

/** The chunk's name without Vite's content hash: `assets/RegistrationForm-B1x2Y3z4.js` → `RegistrationForm.js`. */
export function chunkName(file: string): string {
  return path.basename(file).replace(/-[\w-]{8}(?=\.[a-z]+$)/, '')
}

function sizeOf(distDir: string, file: string): AssetSize {
  return sizeOfBytes(file, readFileSync(path.join(distDir, file)))
}

function sizeOfBytes(file: string, bytes: Buffer): AssetSize {
  return {
    file,
    name: chunkName(file),
    raw: bytes.length,
    gzip: gzipSync(bytes, { level: 9 }).length,
    brotli: brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length,
  }
}

/** An attribute of a start tag, unquoted or quoted. */
function attribute(tag: string, name: string): string | undefined {
  const match = new RegExp(`\\s${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)'|([^\\s>]+))`, 'i').exec(tag)
  return match ? (match[1] ?? match[2] ?? match[3]) : undefined
}

/**
 * The files a prerendered page fetches up front, in document order: its module scripts and modulepreloads
 * (JS), its stylesheets (CSS). Only same-origin paths ("/assets/…"), as dist/ serves them.
 */
export function initialAssetsOf(html: string): { js: string[]; css: string[] } {
  const js: string[] = []
  const css: string[] = []
  const add = (list: string[], url: string | undefined) => {
    if (!url || /^[a-z]+:|^\/\//i.test(url)) return
    const file = url.replace(/^\//, '').replace(/[?#].*$/, '')
    if (!list.includes(file)) list.push(file)
  }
  for (const [tag] of html.matchAll(/<script\b[^>]*>/gi)) {
    if (attribute(tag, 'type') === 'module') add(js, attribute(tag, 'src'))
  }
  for (const [tag] of html.matchAll(/<link\b[^>]*>/gi)) {
    const rel = (attribute(tag, 'rel') ?? '').toLowerCase().split(/\s+/)
    if (rel.includes('modulepreload')) add(js, attribute(tag, 'href'))
    if (rel.includes('stylesheet')) add(css, attribute(tag, 'href'))
  }
  return { js, css }
}

/**
 * The app's entry and its preloads as the page starts them: the build's inline starter module imports the boot file,
 * which preloads and imports them after the load event (src/build/boot.ts), so they count as initial JS although no
 * tag names them; the boot file counts too.
 */
function bootedFiles(html: string, distDir: string): string[] {
  const files: string[] = []
  const add = (code: string) => {
    for (const [url] of code.matchAll(/\/assets\/[\w.-]+\.js/g))
      if (!files.includes(url.slice(1))) files.push(url.slice(1))
  }
  for (const [, attributes, code] of html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/gi)) {
    if (attribute(`<script ${attributes}>`, 'type') !== 'module' || attribute(`<script ${attributes}>`, 'src')) continue
    add(code ?? '')
  }
  for (const file of files.filter((name) => name.startsWith(`assets/${bootFilePrefix}`)))
    add(readFileSync(path.join(distDir, file), 'utf8'))
  return files
}

/** The page's inline <style> (the build inlines the stylesheet), as one pseudo-file. */
function inlineCssOf(html: string): AssetSize[] {
  const css = [...html.matchAll(/<style\b[^>]*>([\s\S]*?)<\/style>/gi)].map((m) => m[1] ?? '').join('')
  return css ? [sizeOfBytes('index.html <style>', Buffer.from(css))] : []
}

function assetsIn(distDir: string): string[] {
  return readdirSync(path.join(distDir, 'assets'))
    .filter((name) => /\.(js|css)$/.test(name))
    .map((name) => `assets/${name}`)
    .sort()
}

/** Sizes of the built page's initial JS and CSS (from dist/index.html) and of every other JS/CSS chunk. */
export function measureBundle(distDir: string): BundleFigures {
  const html = readFileSync(path.join(distDir, 'index.html'), 'utf8')
  const initial = initialAssetsOf(html)
  initial.js.push(...bootedFiles(html, distDir).filter((file) => !initial.js.includes(file)))
  const initialJs = initial.js.map((file) => sizeOf(distDir, file))
  const initialCss = [...inlineCssOf(html), ...initial.css.map((file) => sizeOf(distDir, file))]
  const loaded = new Set([...initial.js, ...initial.css])
  const lazy = assetsIn(distDir)
    .filter((file) => !loaded.has(file))
    .map((file) => sizeOf(distDir, file))
    .sort((a, b) => b.gzip - a.gzip)
  const sum = (list: AssetSize[]) => list.reduce((total, asset) => total + asset.gzip, 0)
  return {
    initialJs,
    initialCss,
    lazy,
    html: sizeOf(distDir, 'index.html'),
    totals: {
      initialJsGzip: sum(initialJs),
      initialCssGzip: sum(initialCss),
      initialGzip: sum(initialJs) + sum(initialCss),
      lazyGzip: sum(lazy),
    },
  }
}
