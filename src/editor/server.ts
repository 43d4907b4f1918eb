import { randomBytes } from 'node:crypto'
import { createReadStream, existsSync, realpathSync, statSync } from 'node:fs'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import path from 'node:path'
import { getRequestListener } from '@hono/node-server'
import tailwindcss from '@tailwindcss/vite'
import react from '@vitejs/plugin-react'
import { createServer as createViteServer, type ViteDevServer } from 'vite'
import { clientConfigScript } from '../build/client-config.ts'
import { escapeHtml } from '../server/delivery/escape-html.ts'
import { publicDirFor } from '../config/check-page-config.ts'
import { createEditorApi, initialGoodConfig, type EditorSession } from './api.ts'
import { crossSiteRefusal, isPlainPath, isVitePath } from './request-policy.ts'
import { plainMarkdownPlugin, previewConfigPlugin } from './vite-plugins.ts'

const root = path.resolve(import.meta.dirname, '../..')
const editorEntry = '/src/editor/client/main.tsx'
const previewEntry = '/src/editor/preview/entry-preview.tsx'

/** A running editor: its address, its session token (for tests) and how to stop it. */
export type RunningEditor = { url: string; port: number; token: string; close: () => Promise<void> }

/** A launch the editor can open: its name as people know it (readLaunchName) and its config file. */
export type EditorLaunch = { name: string; configFile: string }

/**
 * True when a request's Host names this editor: 127.0.0.1 or localhost, on its port. Anything else is refused,
 * so a web page whose name someone points at 127.0.0.1 (DNS rebinding) cannot reach the editor as its own site.
 */
export function isAllowedHost(host: string | undefined, port: number): boolean {
  return host === `127.0.0.1:${port}` || host === `localhost:${port}`
}

const contentTypes: Record<string, string> = {
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.png': 'image/png',
  '.webp': 'image/webp',
  '.avif': 'image/avif',
  '.gif': 'image/gif',
  '.svg': 'image/svg+xml',
  '.ico': 'image/x-icon',
  '.txt': 'text/plain; charset=utf-8',
  '.json': 'application/json',
  '.webmanifest': 'application/manifest+json',
}

/** Serves a file of the launch's public/ folder as the site would (pictures appear the moment they are dropped). */
function servePublicFile(publicDir: string, urlPath: string, res: ServerResponse): boolean {
  let file: string
  try {
    file = realpathSync(path.join(publicDir, decodeURIComponent(urlPath)))
  } catch {
    return false
  }
  const base = realpathSync(publicDir)
  if (!file.startsWith(base + path.sep) || !statSync(file).isFile()) return false
  res.writeHead(200, {
    'content-type': contentTypes[path.extname(file).toLowerCase()] ?? 'application/octet-stream',
    'cache-control': 'no-cache',
    // A picture opened on its own (an SVG can carry script) runs nothing and loads nothing.
    'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'self'",
  })
  createReadStream(file).pipe(res)
  return true
}

function editorHtml(token: string, launchName: string): string {
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <meta name="editor-token" content="${escapeHtml(token)}" />
    <link rel="icon" href="data:," />
    <title>${escapeHtml(launchName)} — page editor</title>
  </head>
  <body>
    <div id="editor-root"></div>
    <script type="module" src="${editorEntry}"></script>
  </body>
</html>`
}

const pickerStyle = `body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem;color:#1c2421}
ul{list-style:none;padding:0}li{margin:.5rem 0}button{font:inherit;font-weight:600;padding:.6rem 1rem;border:1px solid #1f3d2b;
border-radius:8px;background:#fff;color:#1f3d2b;cursor:pointer;min-width:16rem;text-align:left}button:hover,button:focus-visible{background:#e8f0ea}
small{display:block;color:#5b6660;font-weight:400}`

/** The page that asks which launch to open, when `npm run edit` was given none and the project has several. */
function pickerHtml(launches: EditorLaunch[]): string {
  const items = launches
    .map(
      (launch, index) => `      <li>
        <form method="post" action="/choose">
          <button type="submit" name="launch" value="${index}">${escapeHtml(launch.name)}<small>${escapeHtml(path.relative(process.cwd(), launch.configFile) || launch.configFile)}</small></button>
        </form>
      </li>`,
    )
    .join('\n')
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <link rel="icon" href="data:," />
    <title>Choose a launch — page editor</title>
    <style>${pickerStyle}</style>
  </head>
  <body>
    <main>
      <h1>Which launch do you want to edit?</h1>
      <p>This project has ${launches.length} launches. To edit another one later, stop the editor and start it again.</p>
      <ul aria-label="Launches">
${items}
      </ul>
    </main>
  </body>
</html>`
}

function previewHtml(session: EditorSession | undefined): string {
  const config = session?.lastGood
  return `<!doctype html>
<html lang="${escapeHtml(config?.site.lang ?? 'en')}">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>Preview</title>
  </head>
  <body>
    <div id="root"></div>
    ${config ? clientConfigScript(config) : ''}
    <script type="module" src="${previewEntry}"></script>
  </body>
</html>`
}

/** The folders Vite may serve files from: the code (src/, schema/) and the installed packages, by their real path too. */
function sourceFolders(): string[] {
  const folders = ['src', 'schema', 'node_modules'].map((folder) => path.join(root, folder))
  const real = folders.filter((folder) => existsSync(folder)).map((folder) => realpathSync(folder))
  return [...new Set([...folders, ...real])]
}

function listen(server: Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) => {
      server.off('listening', onListening)
      reject(error)
    }
    const onListening = () => {
      server.off('error', onError)
      const address = server.address()
      resolve(typeof address === 'object' && address ? address.port : port)
    }
    server.once('error', onError)
    server.once('listening', onListening)
    server.listen(port, '127.0.0.1')
  })
}

/** Reads a small form post (the launch picker's) as its fields. */
async function readFormBody(req: IncomingMessage): Promise<URLSearchParams> {
  let body = ''
  for await (const chunk of req) {
    body += String(chunk)
    if (body.length > 1024) break
  }
  return new URLSearchParams(body)
}

/**
 * Starts the editor on 127.0.0.1 (only): `port`, or any free port when that one is taken. With one launch it opens
 * that one; with several, / first lists their names and the person picks one (once per run). Serves the editor page
 * at /, the preview at /preview/ (the real page code through Vite, with the last text without problems, saved or
 * not), the API at /api/ (see api.ts) and the launch's public/ files. `onOpen` is told which launch is open.
 */
export async function startEditor({
  launches,
  port,
  onOpen,
}: {
  launches: EditorLaunch[]
  port: number
  onOpen?: (launch: EditorLaunch) => void
}): Promise<RunningEditor> {
  if (launches.length === 0) throw new Error('There is no launch to edit.')
  const token = randomBytes(24).toString('base64url')
  let open: { launch: EditorLaunch; session: EditorSession; publicDir: string; api: ReturnType<typeof getRequestListener> } | undefined
  const previewConfig = previewConfigPlugin(() => open?.session.lastGood)
  const openLaunch = (launch: EditorLaunch) => {
    const session: EditorSession = { configFile: launch.configFile, launchName: launch.name, token }
    session.lastGood = initialGoodConfig(session)
    session.onFormChanged = previewConfig.formChanged
    open = { launch, session, publicDir: publicDirFor(launch.configFile), api: getRequestListener(createEditorApi(session).fetch) }
    previewConfig.formChanged()
    onOpen?.(launch)
  }
  if (launches.length === 1) openLaunch(launches[0]!)

  let actualPort = port
  const server = createServer((req, res) => void handle(req, res))
  const vite: ViteDevServer = await createViteServer({
    configFile: false,
    root,
    appType: 'custom',
    logLevel: 'warn',
    clearScreen: false,
    // Its own cache, so `npm run dev` and the editor do not re-optimise each other's dependencies.
    cacheDir: path.join(root, 'node_modules/.vite-editor'),
    publicDir: false,
    plugins: [react(), tailwindcss(), previewConfig, plainMarkdownPlugin],
    // The preview is updated by the editor page itself; Vite's client still wants its WebSocket, so it shares the
    // editor's port (Vite checks its Host and token itself). No file watching: the editor says what changed.
    // No CORS (no other origin may read anything here), and Vite serves files only from the code's own folders,
    // never the project's data (.data/, .env); handle() lets only the editor's own paths reach Vite at all.
    server: { middlewareMode: true, hmr: { server }, watch: null, cors: false, fs: { strict: true, allow: sourceFolders() } },
    optimizeDeps: {
      entries: [path.join(root, 'src/editor/client/main.tsx'), path.join(root, 'src/editor/preview/entry-preview.tsx')],
      include: ['ajv/dist/runtime/ucs2length.js'],
      rolldownOptions: { plugins: [plainMarkdownPlugin] },
    },
  })

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // No other site may show the editor in a frame (and trick a click on Save).
    res.setHeader('content-security-policy', "frame-ancestors 'self'")
    res.setHeader('x-content-type-options', 'nosniff')
    if (!isAllowedHost(req.headers.host, actualPort)) {
      res.writeHead(403, { 'content-type': 'text/plain; charset=utf-8' })
      res.end(`This editor answers only at http://127.0.0.1:${actualPort}/ (or localhost:${actualPort}).\n`)
      return
    }
    const urlPath = new URL(req.url ?? '/', 'http://editor').pathname
    const refusal = crossSiteRefusal(req.method, urlPath, req.headers)
    if (refusal) {
      res.writeHead(403, { 'content-type': 'text/plain; charset=utf-8' })
      res.end(`This editor answers only its own page: ${refusal}.\n`)
      return
    }
    if (!isPlainPath(req.url ?? '/')) {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' })
      res.end('Not found\n')
      return
    }
    try {
      if (!open) {
        if (req.method === 'POST' && urlPath === '/choose') {
          const chosen = launches[Number((await readFormBody(req)).get('launch'))]
          if (chosen) openLaunch(chosen)
          res.writeHead(303, { location: '/' })
          res.end()
          return
        }
        if (req.method === 'GET' && urlPath === '/') {
          res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' })
          res.end(pickerHtml(launches))
          return
        }
        if (urlPath.startsWith('/api/')) {
          res.writeHead(409, { 'content-type': 'application/json' })
          res.end(JSON.stringify({ error: 'No launch is open yet: choose one at the editor address first.' }))
          return
        }
      }
      if (open && urlPath.startsWith('/api/')) return await open.api(req, res)
      if (req.method === 'POST' && urlPath === '/choose') {
        res.writeHead(303, { location: '/' })
        res.end()
        return
      }
      if (req.method === 'GET' && (urlPath === '/' || urlPath === '/preview/')) {
        const html = urlPath === '/' ? editorHtml(token, open!.launch.name) : previewHtml(open?.session)
        const body = await vite.transformIndexHtml(urlPath, html)
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' })
        res.end(body)
        return
      }
      const notFound = () => {
        res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' })
        res.end('Not found\n')
      }
      if (!isVitePath(urlPath)) {
        // The launch's own public files (its pictures, for the preview), else nothing: never the project root.
        if (open && req.method === 'GET' && servePublicFile(open.publicDir, urlPath, res)) return
        return notFound()
      }
      vite.middlewares(req, res, notFound)
    } catch (error) {
      res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' })
      res.end(`The editor could not answer: ${(error as Error).message}\n`)
    }
  }
  try {
    actualPort = await listen(server, port)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error
    actualPort = await listen(server, 0)
  }
  return {
    url: `http://127.0.0.1:${actualPort}/`,
    port: actualPort,
    token,
    close: async () => {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
      await vite.close()
    },
  }
}
