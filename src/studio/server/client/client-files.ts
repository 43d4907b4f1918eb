import { readFileSync } from 'node:fs'
import path from 'node:path'
import type { Context, Hono } from 'hono'
import { escapeHtml } from '../../../server/delivery/escape-html.ts'
import type { StudioContext, StudioEnv } from '../context.ts'
import { withLocalToken } from '../local.ts'
import { previewLinkOf } from '../preview/preview-links.ts'
import { messageView } from '../views.ts'

const assetTypes: Record<string, string> = {
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  svg: 'image/svg+xml',
  png: 'image/png',
  woff2: 'font/woff2',
  json: 'application/json',
  map: 'application/json',
}

/** The browser part's files (dist/_studio): the app, the preview frame's document and the hashed assets. */
export function addClient(app: Hono<StudioEnv>, ctx: StudioContext): void {
  const notBuilt = (c: Context) =>
    c.html(
      messageView(
        'The studio is not built',
        "The studio's page is missing from this server: run npm run build, then start the server again.",
      ),
      503,
    )
  function document(name: 'index.html' | 'preview.html'): string | undefined {
    try {
      return readFileSync(path.join(ctx.clientDir, name), 'utf8')
    } catch {
      return undefined
    }
  }
  const shell = (c: Context) => {
    if (new URL(c.req.url).pathname === '/studio') return c.redirect('/studio/', 301)
    const html = document('index.html')
    if (html === undefined) return notBuilt(c)
    return c.html(ctx.local ? withLocalToken(html, ctx.local) : html)
  }

  app.get('/', shell)
  app.get('/launches', shell)
  app.get('/launches/*', shell)
  app.get('/preview-frame', (c) => {
    const html = document('preview.html')
    return html === undefined ? notBuilt(c) : c.html(html)
  })
  app.get('/preview/:token', async (c) => {
    const token = c.req.param('token')
    if (!(await previewLinkOf(ctx, token))) {
      return c.html(
        messageView(
          'This preview link does not work',
          'It has expired or is not a real link. Ask whoever sent it for a new one.',
        ),
        404,
      )
    }
    const html = document('preview.html')
    if (html === undefined) return notBuilt(c)
    const meta = `<meta name="studio-preview-token" content="${escapeHtml(token)}">\n<meta name="robots" content="noindex, nofollow">\n`
    return c.html(html.replace(/<\/head>/i, () => `${meta}</head>`))
  })
  app.get('/assets/:file{.+}', (c) => {
    const file = c.req.param('file')
    if (file.split('/').some((part) => part === '..' || part.startsWith('.')) || file.includes('\\'))
      return c.text('Not Found', 404)
    let bytes: Buffer
    try {
      bytes = readFileSync(path.join(ctx.clientDir, 'assets', file))
    } catch {
      return c.text('Not Found', 404)
    }
    return c.body(new Uint8Array(bytes), 200, {
      'content-type': assetTypes[file.split('.').pop() ?? ''] ?? 'application/octet-stream',
      // Vite names each built file by its content's hash: a new build is a new name.
      'cache-control': 'public, max-age=31536000, immutable',
    })
  })
}
