import { mkdirSync } from 'node:fs'
import type { Server } from 'node:http'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { serve, type Http2Bindings, type HttpBindings } from '@hono/node-server'
import { Hono } from 'hono'
import pg from 'pg'
import { formatEnvProblems, parseNodeEnv, type NodeServerConfig } from '../server/env.ts'
import { createForwardedAddress } from '../server/registration/forwarded-address.ts'
import { createLeadsPage } from '../server/leads-page/leads-page.ts'
import { leadsPageLaunchOf } from '../server/leads-page/views.ts'
import { createPasswordCheck, openSessionStore } from '../server/leads-page/sessions.ts'
import { createPostgresStore } from '../server/store/postgres/postgres-store.ts'
import { createForwardedHeaderGuard } from '../server/site/forwarded-headers.ts'
import { secureHeadersMiddleware } from '../server/site/security-headers.ts'
import type { LeadStore } from '../server/store/store.ts'
import type { LeadsPageLaunch } from '../server/leads-page/views.ts'
import { openSqliteStudioStore } from '../studio/server/sqlite-store.ts'
import { noDefaultLaunch, readLaunchCatalog } from './launch-catalog.ts'

/**
 * `npm run leads:page -- --database-url postgresql://…`: the leads page alone, on the Node server's settings
 * (PORT, HOST, TRUST_PROXY, NOTIFY_TIME_ZONE, LEADS_PASSWORD; sessions in DATA_DIR/leads-page.sqlite), reading the
 * leads from PostgreSQL, e.g. a Supabase project's, where the function runs as an Edge Function and there is no
 * Node server to serve /leads. Every launch's leads (page.config.json and launches/, or PAGE_CONFIG alone), with a
 * launch filter when there are several. Everything but /leads answers 404. Every look at the leads goes into the
 * studio's audit log (DATA_DIR/studio.sqlite), as on the Node server.
 */

const usage = `Usage: LEADS_PASSWORD=… npm run leads:page -- --database-url postgresql://user:password@host:5432/postgres

Serves the leads page (http://HOST:PORT/leads) for leads stored in PostgreSQL (e.g. Supabase).`

/** A running leads-page server. */
export type LeadsPageServer = { url: string; close(): Promise<void> }

/**
 * Starts the leads page alone for `store` and these launches (default first), with the Node server's settings;
 * `settings.leadsPassword` must be set.
 */
export async function startLeadsPageServer(
  launches: LeadsPageLaunch[],
  settings: NodeServerConfig,
  store: LeadStore,
  cwd = process.cwd(),
): Promise<LeadsPageServer> {
  if (settings.leadsPassword === undefined)
    throw new Error("LEADS_PASSWORD is missing: the leads page needs the team's password.")
  const dataDir = path.resolve(cwd, settings.dataDir)
  mkdirSync(dataDir, { recursive: true })
  const sessions = openSessionStore(path.join(dataDir, 'leads-page.sqlite'), settings.leadsPassword)
  const auditStore = openSqliteStudioStore(path.join(dataDir, 'studio.sqlite'))
  const visitorAddress = createForwardedAddress(settings.proxies)
  const app = new Hono()
  app.use('*', secureHeadersMiddleware({ jsonLdHashes: [], https: settings.trustProxy > 0 }))
  app.route(
    '/',
    createLeadsPage({
      checkPassword: createPasswordCheck(settings.leadsPassword),
      audit: (entry) => auditStore.addAudit({ at: new Date().toISOString(), ...entry }),
      store,
      sessions,
      launches,
      timeZone: settings.timeZone,
      trustProxy: settings.trustProxy,
      signInCounts: store,
      clientIp: (c) => visitorAddress((c.env as HttpBindings).incoming) ?? 'unknown',
    }),
  )
  app.get('/', (c) => c.redirect('/leads'))
  app.all('*', (c) => c.text('Not found: the leads page is at /leads.', 404))
  // X-Forwarded-Host/-Proto (its same-origin check, its Secure cookie): only from the proxies TRUST_PROXY counts.
  const guardForwarded = createForwardedHeaderGuard({ proxies: settings.proxies })
  const answer = (request: Request, env: HttpBindings | Http2Bindings) =>
    app.fetch(guardForwarded(request, env.incoming.socket.remoteAddress), env)
  const server = await new Promise<Server>((resolve, reject) => {
    const s = serve({ fetch: answer, port: settings.port, hostname: settings.host }) as Server
    s.once('listening', () => resolve(s))
    s.once('error', reject)
  })
  const address = server.address()
  const port = typeof address === 'object' && address ? address.port : settings.port
  return {
    url: `http://${settings.host.includes(':') ? `[${settings.host}]` : settings.host}:${port}`,
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()))
      sessions.close()
      auditStore.close()
    },
  }
}

async function main(argv: string[]): Promise<number> {
  const at = argv.findIndex((a) => a === '--database-url' || a.startsWith('--database-url='))
  const databaseUrl = at === -1 ? undefined : argv[at]!.includes('=') ? argv[at]!.split(/=(.*)/s)[1] : argv[at + 1]
  if (argv.includes('--help') || !databaseUrl) {
    console.log(usage)
    return databaseUrl ? 0 : 2
  }
  const parsed = parseNodeEnv(process.env)
  if (!parsed.ok) {
    console.error(formatEnvProblems(parsed.problems))
    return 1
  }
  if (parsed.config.leadsPassword === undefined) {
    console.error("LEADS_PASSWORD is missing: set the sales team's password (at least 12 characters).")
    return 1
  }
  const catalog = readLaunchCatalog(process.cwd(), process.env)
  if (catalog.defaultSlug === undefined) {
    console.error(noDefaultLaunch)
    return 1
  }
  // A launch whose config cannot be used still has its leads listed, by its name and with their own fields.
  for (const problem of catalog.problems)
    console.error(`Note: ${problem} Its leads are listed with the fields they hold; npm run validate says what to fix.`)
  const launches = catalog.launches.flatMap((launch) => (launch.config ? [leadsPageLaunchOf(launch.config)] : []))
  if (launches.length === 0) {
    console.error('No launch config can be used: run npm run validate and fix what it shows.')
    return 1
  }
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 4 })
  pool.on('error', (error) => console.error('PostgreSQL connection error:', error.message))
  const store = createPostgresStore(pool, { defaultLaunch: catalog.defaultSlug, close: () => pool.end() })
  const running = await startLeadsPageServer(launches, parsed.config, store)
  console.log(`Leads page: on, at ${running.url}/leads, reading PostgreSQL`)
  const stop = () => {
    running
      .close()
      .then(() => store.close())
      .then(() => process.exit(0))
      .catch((error: unknown) => {
        console.error(`Leads page: could not stop cleanly (${(error as Error).message})`)
        process.exit(1)
      })
  }
  process.once('SIGTERM', stop)
  process.once('SIGINT', stop)
  return 0
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const code = await main(process.argv.slice(2))
  if (code !== 0) process.exit(code)
}
