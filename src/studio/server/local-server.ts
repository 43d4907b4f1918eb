import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { getRequestListener } from '@hono/node-server'
import type { SignInCounts } from '../../server/store/sign-in-counts.ts'
import { createFilePublisher } from './file-publisher.ts'
import { crossSiteRefusal, isAllowedHost, isPlainPath } from './local.ts'
import { openSqliteStudioStore } from './sqlite-store.ts'
import { createStudio } from './studio.ts'

/** A launch `npm run edit` offers: its slug, its name as people know it, its config file. */
export type LocalLaunch = { slug: string; siteName: string; configFile: string }

/** A running local studio: its address (the page to open), its token (for tests) and how to stop it. */
export type LocalStudio = { url: string; port: number; token: string; close: () => Promise<void> }

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

// No one signs in locally: the limiter's counts are never asked for.
const noSignIns: SignInCounts = {
  addSignInFailure: async () => {},
  countSignInFailures: () => Promise.resolve([]),
  saveSignInDevice: async () => {},
  isSignInDevice: () => Promise.resolve(false),
}

function refuse(res: ServerResponse, status: 403 | 404, text: string): void {
  res.writeHead(status, {
    'content-type': 'text/plain; charset=utf-8',
    'content-security-policy': "frame-ancestors 'self'",
    'x-content-type-options': 'nosniff',
  })
  res.end(`${text}\n`)
}

/**
 * `npm run edit`'s server: the studio in local mode (local.ts) on 127.0.0.1 only, `port` or any free one when it is
 * taken. Its drafts and versions live in a temporary folder for this run (removed at close); "publish" writes the
 * launch's file atomically and builds nothing. `clientDir` is the built studio (loadPageCode's studioDir). With one
 * launch its address opens that launch; with several, the list of launches. `root`: where New launch adds one.
 */
export async function startLocalStudio(options: {
  launches: LocalLaunch[]
  port: number
  clientDir: string
  root?: string
}): Promise<LocalStudio> {
  const { launches } = options
  if (launches.length === 0) throw new Error('There is no launch to edit.')
  const token = randomBytes(24).toString('base64url')
  const dataDir = mkdtempSync(path.join(tmpdir(), 'vip-edit-'))
  const store = openSqliteStudioStore(path.join(dataDir, 'studio.sqlite'))
  let actualPort = options.port
  const fileOf = (configFile: string) => path.relative(process.cwd(), configFile) || configFile
  const publisher = createFilePublisher(
    launches.map((launch) => ({ ...launch, localUrl: fileOf(launch.configFile) })),
    options.root === undefined ? {} : { root: options.root, localUrlOf: (slug) => `launches/${slug}/page.config.json` },
  )
  const studio = createStudio({
    store,
    publisher,
    local: { token },
    secret: randomBytes(32).toString('base64url'),
    clientDir: options.clientDir,
    secureCookies: false,
    clientAddress: () => '127.0.0.1',
    signInCounts: noSignIns,
    root: options.root,
    log: { info: () => {}, error: (message, error) => console.error(message, error ?? '') },
  })
  await studio.recordDiskVersions()
  const listener = getRequestListener(studio.app.fetch)
  const home = launches.length === 1 ? `/studio/launches/${encodeURIComponent(launches[0]!.slug)}` : '/studio/'

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (!isAllowedHost(req.headers.host, actualPort)) {
      return refuse(
        res,
        403,
        `This editor answers only at http://127.0.0.1:${actualPort}/ (or localhost:${actualPort}).`,
      )
    }
    const pathname = new URL(req.url ?? '/', 'http://editor').pathname
    const refusal = crossSiteRefusal(req.method, pathname, req.headers)
    if (refusal) return refuse(res, 403, `This editor answers only its own page: ${refusal}.`)
    if (!isPlainPath(req.url ?? '/')) return refuse(res, 404, 'Not found')
    if (pathname === '/' && (req.method === 'GET' || req.method === 'HEAD')) {
      res.writeHead(303, { location: home, 'cache-control': 'no-store' })
      res.end()
      return
    }
    if (pathname !== '/studio' && !pathname.startsWith('/studio/')) return refuse(res, 404, 'Not found')
    await listener(req, res)
  }
  const server = createServer((req, res) => void handle(req, res))
  try {
    actualPort = await listen(server, options.port)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error
    actualPort = await listen(server, 0)
  }
  return {
    url: `http://127.0.0.1:${actualPort}${home}`,
    port: actualPort,
    token,
    close: async () => {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
      store.close()
      rmSync(dataDir, { recursive: true, force: true })
    },
  }
}
