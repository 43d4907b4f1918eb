// The site room (src/server/site/): serving each launch's built site: static files, which launch a host is, the
// security headers, the health check.
import { createReadStream, type Stats } from 'node:fs'
import { realpath, stat } from 'node:fs/promises'
import path from 'node:path'
import { Readable } from 'node:stream'
import type { Context } from 'hono'

const contentTypes: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.webmanifest': 'application/manifest+json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.xml': 'application/xml; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.avif': 'image/avif',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.pdf': 'application/pdf',
  '.mp4': 'video/mp4',
  '.webm': 'video/webm',
}

/**
 * The policy an image is served with: an SVG opened on its own is a document that could run script or load anything;
 * this lets it draw with its own inline styles and nothing else.
 */
export const imageContentSecurityPolicy = "default-src 'none'; style-src 'unsafe-inline'"

// Only text compresses; images and fonts are compressed already.
const compressible = new Set(['.html', '.js', '.mjs', '.css', '.json', '.map', '.webmanifest', '.txt', '.xml', '.svg'])

/** The encodings the client accepts, by Accept-Encoding (q=0 refuses). */
function accepted(header: string | undefined): Set<string> {
  const out = new Set<string>()
  for (const part of (header ?? '').split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';')
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='))
    if (name && !(q && Number(q.slice(2)) === 0)) out.add(name)
  }
  return out
}

/** Options for serving the built site. */
export type StaticSiteOptions = {
  /** The built site (DIST_DIR): index.html, 404.html, assets/… */
  distDir: string
  /**
   * Where the pages (.html files) are read from for a request, asked once when it arrives: the folder of the launch's
   * phase in force (inside distDir). Absent: distDir's own pages.
   */
  pagesDir?: (c: Context) => string
}

type FileStat = (file: string) => Promise<Stats | undefined>

/** The file's stats when it is a regular file whose real path (symlinks resolved) lies inside `root`. */
function createFileStat(root: string): FileStat {
  // dist/ itself may be a symlink (a release folder); what it contains may not lead out of it.
  let realRoot: Promise<string> | undefined
  return async (file) => {
    try {
      realRoot ??= realpath(root)
      const [real, top] = await Promise.all([realpath(file), realRoot])
      if (!real.startsWith(top + path.sep)) return undefined
      const s = await stat(real)
      return s.isFile() ? s : undefined
    } catch {
      return undefined
    }
  }
}

function headersOf(ext: string, relative: string): Headers {
  return new Headers({
    'content-type': contentTypes[ext] ?? 'application/octet-stream',
    'x-content-type-options': 'nosniff',
    ...(contentTypes[ext]?.startsWith('image/') ? { 'content-security-policy': imageContentSecurityPolicy } : {}),
    'cache-control': relative.startsWith('assets/')
      ? 'public, max-age=31536000, immutable'
      : ext === '.html'
        ? 'no-cache'
        : 'public, max-age=3600',
  })
}

/** The precompressed sibling (.br, then .gz) the client accepts, if one exists. */
async function compressedOf(c: Context, file: string, fileStat: FileStat) {
  const encodings = accepted(c.req.header('accept-encoding'))
  for (const [encoding, suffix] of [
    ['br', '.br'],
    ['gzip', '.gz'],
  ] as const) {
    if (!encodings.has(encoding)) continue
    const compressed = await fileStat(file + suffix)
    if (compressed) return { encoding, body: file + suffix, size: compressed.size }
  }
  return undefined
}

/** Sends a file with its type, caching, ETag (304 when it matches) and, where accepted, its precompressed copy. */
async function sendFile(c: Context, fileStat: FileStat, file: string, info: Stats, status: number, relative: string) {
  const ext = path.extname(file).toLowerCase()
  const headers = headersOf(ext, relative)
  let body = file
  let size = info.size
  if (compressible.has(ext)) {
    headers.set('vary', 'Accept-Encoding')
    const compressed = await compressedOf(c, file, fileStat)
    if (compressed) {
      headers.set('content-encoding', compressed.encoding)
      body = compressed.body
      size = compressed.size
    }
  }
  const etag = `W/"${size.toString(16)}-${Math.floor(info.mtimeMs).toString(16)}${body === file ? '' : path.extname(body)}"`
  headers.set('etag', etag)
  headers.set('last-modified', info.mtime.toUTCString())
  if (status === 200 && c.req.header('if-none-match') === etag) return new Response(null, { status: 304, headers })
  headers.set('content-length', String(size))
  if (c.req.method === 'HEAD') return new Response(null, { status, headers })
  return new Response(Readable.toWeb(createReadStream(body)) as ReadableStream, { status, headers })
}

/** The file a request's path names, relative to the site ('index.html' for a folder); undefined for none allowed. */
function relativePathOf(c: Context, root: string): string | undefined {
  let pathname: string
  try {
    pathname = decodeURIComponent(new URL(c.req.url).pathname)
  } catch {
    return undefined
  }
  if (pathname.includes('\0')) return undefined
  let relative = path.posix.normalize(pathname).replace(/^\/+/, '')
  if (relative === '' || relative.endsWith('/')) relative += 'index.html'
  // Never outside distDir, never dotfiles.
  if (
    !path.join(root, relative).startsWith(root + path.sep) ||
    relative.split('/').some((part) => part.startsWith('.'))
  )
    return undefined
  return relative
}

/**
 * A Hono handler serving the built site: `/` → index.html, `/privacy` → privacy.html, files as they are, hashed files
 * under /assets/ cached
 * for a year, HTML revalidated every time, precompressed .br/.gz siblings when the client accepts them, and
 * 404.html with status 404 for anything else. Paths never leave distDir, not even through a symlink.
 */
export function createStaticSite(options: StaticSiteOptions) {
  const root = path.resolve(options.distDir)
  const fileStat = createFileStat(root)

  async function notFound(c: Context, pages: string): Promise<Response> {
    const file = path.join(pages, '404.html')
    const info = await fileStat(file)
    if (info) return sendFile(c, fileStat, file, info, 404, '404.html')
    return c.text('Not found', 404)
  }

  return async function serveSite(c: Context): Promise<Response> {
    if (c.req.method !== 'GET' && c.req.method !== 'HEAD') {
      return c.json({ error: 'Only GET and HEAD are supported here.' }, 405, { allow: 'GET, HEAD' })
    }
    // The phase's pages, chosen once: a request is answered wholly in one phase.
    const pages = options.pagesDir?.(c) ?? root
    let relative = relativePathOf(c, root)
    if (relative === undefined) return notFound(c, pages)
    // A page's address without ".html" (/privacy) is its file, as static hosts serve it.
    if (!path.posix.extname(relative) && !(await fileStat(path.join(root, relative)))) relative += '.html'
    const file = path.join(
      relative.endsWith('.html') && (await fileStat(path.join(pages, relative))) ? pages : root,
      relative,
    )
    const info = await fileStat(file)
    if (!info) return notFound(c, pages)
    return sendFile(c, fileStat, file, info, 200, relative)
  }
}
