import { cpSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { brotliCompressSync, constants, gzipSync } from 'node:zlib'
import { brotliQualityOf } from '../src/build/precompress.ts'

/*
 * The floor: the same built pages with every script removed, so what remains is what the browser itself costs
 * (HTML, CSS, images, style, layout, paint). Measured beside the page in one run, it tells what the scripts add.
 */

// Scripts a browser runs: no type, a JavaScript MIME type, or a module. Data blocks (JSON-LD, the islands' JSON) do not
// run.
const runnable =
  /<script\b(?![^>]*\btype\s*=\s*["']?(?!module\b|text\/javascript\b|application\/javascript\b)[\w/+.-])[^>]*>[\s\S]*?<\/script\s*>/gi
const modulePreload = /<link\b[^>]*\brel\s*=\s*["']?modulepreload\b[^>]*>/gi

/** `html` without the scripts a browser would run and without module preloads; everything else as it was. */
export function stripScripts(html: string): string {
  return html.replace(runnable, '').replace(modulePreload, '')
}

function htmlFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const file = path.join(dir, name)
    if (statSync(file).isDirectory()) return name === 'assets' || name === 'images' ? [] : htmlFiles(file)
    return name.endsWith('.html') ? [file] : []
  })
}

/**
 * Copies the build `distDir` to `floorDir` with every HTML page's scripts stripped, and its precompressed
 * siblings (.br, .gz) written anew so the server sends the stripped page as it sends the real one.
 */
export function writeFloorDist(distDir: string, floorDir: string): void {
  rmSync(floorDir, { recursive: true, force: true })
  cpSync(distDir, floorDir, { recursive: true })
  for (const file of htmlFiles(floorDir)) {
    const html = stripScripts(readFileSync(file, 'utf8'))
    writeFileSync(file, html)
    // As the build compresses the page (src/build/precompress.ts), so both are as many bytes as sent as they would be.
    const quality = brotliQualityOf(file)
    writeFileSync(`${file}.br`, brotliCompressSync(html, { params: { [constants.BROTLI_PARAM_QUALITY]: quality } }))
    writeFileSync(`${file}.gz`, gzipSync(html, { level: 9 }))
  }
}
