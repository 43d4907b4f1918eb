import { createHash } from 'node:crypto'
import { existsSync } from 'node:fs'
import { copyFile, link, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { promisify } from 'node:util'
import { brotliCompress, constants as zlibConstants, gzip } from 'node:zlib'

// Text files a host can send compressed; the Node server serves these .br/.gz siblings as they are.
export const compressible = /\.(html|js|css|svg|json|xml|txt|webmanifest)$/

/**
 * Brotli's quality for a file: its best (11) for what is made once and kept by content (the code, pictures, a form's
 * validator) and for a launch's home pages, whose bytes decide whether the HTML arrives in a new connection's first
 * round trip (about 14.6 KB with the headers: docs/performance.md, issue 46); less for the other pages, which every
 * config change and publish makes anew, for each phase. Measured on the sample's home page (84 KB) on this 2-core
 * machine under load: 13.7 KB at 11 against 14.0 at 10, about 280 against 150 ms (at 10 the page as sent was 14.98 KB,
 * a round trip more); the other pages (not found, registered, check details, privacy) at 5, 7–8 % larger than at 10
 * for a tenth of the time (2–5 against 22–30 ms).
 */
export function brotliQualityOf(file: string): number {
  if (!file.endsWith('.html')) return 11
  return path.basename(file) === 'index.html' ? 11 : 5
}

const compressors = {
  gz: (content: Buffer) => promisify(gzip)(content, { level: 9 }),
  br: (content: Buffer, quality: number) =>
    promisify(brotliCompress)(content, { params: { [zlibConstants.BROTLI_PARAM_QUALITY]: quality } }),
} as const

let partialCount = 0

/**
 * `to` as a hard link to `from` (the cached or first-made copy is never written again), or a copy where links cannot be
 * made.
 */
async function linkOrCopy(from: string, to: string): Promise<void> {
  await rm(to, { force: true })
  try {
    await link(from, to)
  } catch {
    await copyFile(from, to)
  }
}

/**
 * Writes .gz and .br copies of each compressible file of `files` (brotli's quality: brotliQualityOf), on libuv's
 * threads: a build's other work (the next launch's prerender) goes on meanwhile. The same bytes twice among `files`
 * (a page that no phase changes) are compressed once and linked. With `cacheDir`, each copy made at brotli's best is
 * kept there by the content's hash and linked from there the next time the same bytes are compressed (the same
 * picture or validator in twenty launches, a launch built again); the pages are not kept.
 */
export async function precompressFiles(files: readonly string[], cacheDir?: string): Promise<void> {
  if (cacheDir) await mkdir(cacheDir, { recursive: true })
  // Each compressed content's first file in this call, once written.
  const made = new Map<string, Promise<string>>()
  const compressOne = async (file: string) => {
    const content = await readFile(file)
    const quality = brotliQualityOf(file)
    const hash = createHash('sha256').update(`${quality}\0`).update(content).digest('hex')
    for (const extension of ['gz', 'br'] as const) {
      const target = `${file}.${extension}`
      const key = `${hash}.${extension}`
      const first = made.get(key)
      if (first) {
        await linkOrCopy(await first, target)
        continue
      }
      const written = (async () => {
        // Pages are not kept: every config change and publish makes them anew.
        if (!cacheDir || file.endsWith('.html')) {
          await writeFile(target, await compressors[extension](content, quality))
          return target
        }
        const cached = path.join(cacheDir, key)
        if (!existsSync(cached)) {
          // Written aside, then renamed: a build stopped half-way never leaves a truncated copy under the final name.
          // Named for this write alone: two launches built side by side may compress the same picture at once.
          const partial = `${cached}.${process.pid}.${++partialCount}.part`
          await writeFile(partial, await compressors[extension](content, quality))
          await rename(partial, cached)
        }
        await linkOrCopy(cached, target)
        return cached
      })()
      made.set(key, written)
      await written
    }
  }
  await Promise.all(files.filter((file) => compressible.test(file)).map(compressOne))
}
