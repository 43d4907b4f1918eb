import { existsSync, readFileSync } from 'node:fs'
import type { PageConfig } from '../../schema/page-config.ts'
import type { Server } from 'node:http'
import path from 'node:path'
import { serve, type HttpBindings } from '@hono/node-server'
import { Hono, type Context, type MiddlewareHandler } from 'hono'
import { functionLaunchOf } from '../../schema/function-launch.ts'
import { contactFunctionPath } from '../../schema/function-path.ts'
import { createApp } from './app.ts'
import { healthHandler } from './health.ts'
import { DataDirBusyError, lockDataDir } from './data-dir-lock.ts'
import { createEmlMailer } from './eml-mailer.ts'
import { eraseEverywhere } from './erasure.ts'
import { createLeadsPage, leadsPageLaunchOf } from './leads-page/leads-page.ts'
import { createPasswordCheck, openSessionStore, type SessionStore } from './leads-page/sessions.ts'
import { requestHandlingOf, type NodeServerConfig } from './env.ts'
import type { Mailer } from './mailer.ts'
import { createForwardedAddress } from './forwarded-address.ts'
import { createLaunchHosts } from './launch-hosts.ts'
import { requestHost } from './caller.ts'
import { launchSiteOf, type LaunchSite } from './launch-site.ts'
import { createOutboxWorker } from './outbox.ts'
import { ensurePrivateDir, readOrCreateSecret, tightenPrivateTree } from './private-files.ts'
import { cspHashesOf, secureHeadersMiddleware, styleHashesOf } from './security-headers.ts'
import { createSmtpMailer } from './smtp-mailer.ts'
import { openSqliteStore } from './sqlite-store.ts'
import { createStaticSite } from './static-site.ts'
import { createForwardedHeaderGuard } from './site/forwarded-headers.ts'
import { addressKeyOf } from './suppression.ts'
import { createWebhookSender } from './webhook.ts'

/**
 * The Node server (run by src/cli/serve.ts). Serves every launch's built site (DIST_DIR/<slug>/, chosen by the
 * request's host: launch-hosts.ts) and the send-contact-email function for all of them, stores every launch's leads
 * in one SQLite database under DATA_DIR and delivers notifications from the outbox (SMTP_URL, or .eml files in
 * DATA_DIR/outbox). Prints `Listening on http://HOST:PORT` when ready; stops cleanly on SIGTERM/SIGINT.
 */

/** A start-up failure with a message meant for the person starting the server. */
export class StartupError extends Error {
  override name = 'StartupError'
}

/** A running server. */
export type RunningServer = {
  /** http://HOST:PORT, with the real port when PORT=0. */
  url: string
  /** Whether the leads page is served at /leads (LEADS_PASSWORD is set). */
  leadsPage: boolean
  /** Stops accepting, finishes requests in flight and the current delivery, closes the database, frees DATA_DIR. */
  close(): Promise<void>
  /** How mail goes out, and whether replies and the webhook are on: lines to print at start (no credentials). */
  summary: string[]
  /** Each launch served, default first, with where to see it. */
  launches: Array<{ slug: string; isDefault: boolean; localUrl: string; canonicalUrl: string }>
}

/** The stylesheet the built pages inline (its CSP hash is already allowed): pages the server renders reuse it. */
function inlineStylesheetOf(html: string): string | undefined {
  return /<style>([\s\S]*?)<\/style>/.exec(html)?.[1]
}

/**
 * Limits on each connection, so a client that trickles its headers or body one byte at a time (slow-loris) is cut
 * off with 408 instead of holding a socket for minutes. Node checks the two timeouts every `checkIntervalMs`, so a
 * client is cut between the limit and the limit plus that interval.
 */
export type ConnectionLimits = {
  /** The whole header block must arrive within this (Node's server.headersTimeout). */
  headersTimeoutMs: number
  /** The whole request, body included, must arrive within this (server.requestTimeout). */
  requestTimeoutMs: number
  /** An idle keep-alive connection is closed after this (server.keepAliveTimeout). */
  keepAliveTimeoutMs: number
  /** Requests on one keep-alive connection before it is closed (server.maxRequestsPerSocket). */
  maxRequestsPerSocket: number
  /** Open connections at once; further ones are closed on arrival (server.maxConnections). */
  maxConnections: number
  /** How often Node looks for connections past the two timeouts (connectionsCheckingInterval). */
  checkIntervalMs: number
}

/** The limits used unless the caller gives others: a registration (under 2 KB) needs well under a second. */
export const defaultConnectionLimits: ConnectionLimits = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
  maxRequestsPerSocket: 1_000,
  maxConnections: 1_024,
  checkIntervalMs: 1_000,
}

/** What a caller (a test) may set besides the environment. */
export type NodeServerOptions = {
  connections?: Partial<ConnectionLimits>
}

function displayHost(host: string): string {
  return host.includes(':') ? `[${host}]` : host
}

/** A launch's built site as the server reads it at start: its pages and where they are. */
/** A launch to serve: its checked config (src/config/launches.ts loads them; the entry passes them in). */
export type ServedLaunch = { slug: string; config: PageConfig; isDefault: boolean }

type BuiltSite = { launch: ServedLaunch; distDir: string; home: string; pages: string[] }

function readBuiltSite(launch: ServedLaunch, distRoot: string): BuiltSite {
  const distDir = path.join(distRoot, launch.slug)
  const home = path.join(distDir, 'index.html')
  if (!existsSync(home)) {
    throw new StartupError(
      `The built site of launch "${launch.slug}" is missing: ${home} does not exist. Run npm run build first (npm start builds what is missing; or set DIST_DIR).`,
    )
  }
  const pages = ['index.html', '404.html'].filter((f) => existsSync(path.join(distDir, f))).map((f) => readFileSync(path.join(distDir, f), 'utf8'))
  return { launch, distDir, home: pages[0]!, pages }
}

/**
 * Starts the server for checked launches (loadLaunches: the default one among them) with checked settings
 * (parseNodeEnv); each launch's site is read from DIST_DIR/<slug>/, relative paths resolved from `cwd`. Throws
 * StartupError with readable text.
 */
export async function startNodeServer(
  launches: ServedLaunch[],
  settings: NodeServerConfig,
  cwd = process.cwd(),
  options: NodeServerOptions = {},
): Promise<RunningServer> {
  const defaultLaunch = launches.find((launch) => launch.isDefault) ?? launches[0]
  if (!defaultLaunch) throw new StartupError('There is no launch to serve: page.config.json is missing.')
  const distRoot = path.resolve(cwd, settings.distDir)
  const sites = launches.map((launch) => readBuiltSite(launch, distRoot))

  const dataDir = path.resolve(cwd, settings.dataDir)
  try {
    ensurePrivateDir(dataDir)
  } catch (error) {
    throw new StartupError(`DATA_DIR ${dataDir} cannot be created: ${(error as Error).message}`)
  }
  let lock
  try {
    lock = lockDataDir(dataDir)
  } catch (error) {
    if (error instanceof DataDirBusyError) throw new StartupError(error.message)
    throw new StartupError(`DATA_DIR ${dataDir} cannot be used: ${(error as Error).message}`)
  }

  try {
    // Files written by an older version, or copied in from a backup, become owner-only too.
    tightenPrivateTree(dataDir)
  } catch (error) {
    lock.release()
    throw new StartupError(`DATA_DIR ${dataDir} cannot be made private to this user: ${(error as Error).message}`)
  }
  // One database for every launch; leads stored before launches existed are the default launch's.
  const store = openSqliteStore(path.join(dataDir, 'leads.sqlite'), { defaultLaunch: defaultLaunch.slug })
  // This process owns DATA_DIR: claims left by a killed predecessor can be taken over at once.
  await store.releaseAllClaims()
  const page = defaultLaunch.config
  const siteName = page.site.name
  const emlDir = path.join(dataDir, 'outbox')
  // Without MAIL_FROM the default launch's reply sender is the From of every message, so a try-out works as it is.
  const defaultFrom = page.reply ? `"${page.reply.sender.name.replace(/["\\]/g, '')}" <${page.reply.sender.email}>` : `"${siteName.replace(/["\\]/g, '')}" <no-reply@localhost>`
  const mailer: Mailer =
    settings.mail.kind === 'smtp'
      ? createSmtpMailer({ url: settings.mail.url, from: settings.mail.from })
      : createEmlMailer({ dir: emlDir, from: settings.mail.from ?? defaultFrom })
  const webhook = settings.webhook ? createWebhookSender(settings.webhook) : undefined
  const worker = createOutboxWorker({ store, mailer, webhook, retry: settings.retry, webhookDelaysMs: settings.webhookDelaysMs })
  const unsubscribeSecret = () => settings.unsubscribeSecret ?? readOrCreateSecret(path.join(dataDir, 'unsubscribe.key'))
  // Unsubscribe links point at the function on each launch's own address, unless PUBLIC_FUNCTION_URL names one.
  const linkBaseOf = (launch: ServedLaunch) => settings.publicFunctionUrl ?? `${new URL(launch.config.seo.canonicalUrl).origin}${contactFunctionPath}`
  const launchSites: LaunchSite[] = sites.map(({ launch, home, pages }) =>
    launchSiteOf(functionLaunchOf(launch.config), {
      notifyEmail: settings.notifyEmail,
      links: launch.config.reply ? { secret: unsubscribeSecret(), baseUrl: linkBaseOf(launch) } : undefined,
      pageCss: pages.map(inlineStylesheetOf).find((css) => css !== undefined),
      // A plain form post (no JavaScript) with fields to correct is answered with the launch's home page, filled in.
      formPageHtml: home,
    }),
  )
  const smtpHost = settings.mail.kind === 'smtp' ? new URL(settings.mail.url) : undefined
  const withReply = launches.filter((launch) => launch.config.reply)
  const summary = [
    smtpHost
      ? `Mail: SMTP ${smtpHost.hostname}:${smtpHost.port || (smtpHost.protocol === 'smtps:' ? 465 : 587)}, from ${settings.mail.from}`
      : `Mail: written as .eml files to ${emlDir} (set SMTP_URL to send it)`,
    ...launchSites.map((site) => `Notifications of ${site.slug}: to ${site.notifyEmail}${settings.notifyEmail ? ' (NOTIFY_EMAIL)' : ''}`),
    withReply.length === 0
      ? 'Replies to registrants: off (no launch\'s page.config.json has a "reply")'
      : `Replies to registrants: on for ${withReply.map((launch) => `${launch.slug} (sender "${launch.config.reply!.sender.name}", unsubscribe links at ${linkBaseOf(launch)}/unsubscribe)`).join(', ')}`,
    settings.webhook ? `CRM webhook: on, to ${new URL(settings.webhook.url).host} (signed)` : 'CRM webhook: off (WEBHOOK_URL not set)',
    `Failed messages: retried up to ${settings.retry.maxAttempts} times, then kept as failed (npm run outbox:retry); health at /healthz`,
  ]

  const visitorAddress = createForwardedAddress(settings.proxies)
  // Retention: leads older than RETENTION_DAYS go, with their notifications and .eml copies, at start and daily.
  const suppressionSecret = readOrCreateSecret(path.join(dataDir, 'suppression.key'))
  const erasure = {
    store,
    keyOf: (email: string) => addressKeyOf(suppressionSecret, email),
    emlDir: path.join(dataDir, 'outbox'),
  }
  const retentionDays = settings.retentionDays
  async function applyRetention(): Promise<void> {
    if (retentionDays === undefined) return
    const report = await eraseEverywhere(erasure, { createdBefore: new Date(Date.now() - retentionDays * 86_400_000) })
    if (report.leads > 0) {
      console.log(
        `Retention: erased ${report.leads} registration(s) older than ${retentionDays} days, ` +
          `${report.messages} notification(s) and ${report.emlFiles} .eml file(s).`,
      )
    }
  }
  try {
    await applyRetention()
  } catch (error) {
    await store.close()
    lock.release()
    throw new StartupError(`The retention period could not be applied: ${(error as Error).message}`)
  }
  const retentionTimer = retentionDays === undefined ? undefined : setInterval(() => {
    applyRetention().catch((error: unknown) => console.error('Retention: erasing old registrations failed', error))
  }, 86_400_000)
  retentionTimer?.unref()

  const clientAddress = (c: Context) => visitorAddress((c.env as HttpBindings).incoming)
  const launchOfHost = createLaunchHosts(
    launches.map((launch) => ({ slug: launch.slug, canonicalUrl: launch.config.seo.canonicalUrl, origins: launch.config.launch.origins })),
    defaultLaunch.slug,
  )
  const launchOf = (c: Context) => launchOfHost(requestHost(c, settings.trustProxy))
  const fn = createApp({
    launches: launchSites,
    defaultLaunch: defaultLaunch.slug,
    launchOfHost,
    ...requestHandlingOf(settings),
    store,
    clientAddress,
    onLeadStored: () => worker.kick(),
    webhook: webhook !== undefined,
    suppressionKeyOf: erasure.keyOf,
  })
  // Each launch's pages: their inline JSON-LD and stylesheet allowed by hash in its CSP (the form may post to a
  // hosted Supabase project), its files, its 404 page.
  const served = new Map<string, { headers: MiddlewareHandler; files: ReturnType<typeof createStaticSite> }>()
  for (const { launch, distDir, pages } of sites) {
    served.set(launch.slug, {
      headers: secureHeadersMiddleware({
        jsonLdHashes: [...new Set((await Promise.all(pages.map(cspHashesOf))).flat())],
        styleHashes: [...new Set((await Promise.all(pages.map(styleHashesOf))).flat())],
        // Behind a proxy the visitor's connection is normally HTTPS; browsers ignore HSTS over plain HTTP anyway.
        https: settings.trustProxy > 0,
        supabaseUrl: settings.supabaseUrl,
        tagManager: launch.config.site.analytics !== undefined,
      }),
      files: createStaticSite({ distDir }),
    })
  }
  const servedFor = (c: Context) => served.get(launchOf(c)) ?? served.get(defaultLaunch.slug)!
  const site = new Hono()
  site.use('*', (c, next) => servedFor(c).headers(c, next))
  site.use('*', async (c, next) => {
    await next()
    // The rest of a refused body is never read: tell the client this connection is done, or its next request
    // on it (keep-alive) meets a closed socket.
    if (c.res.status === 413) c.res.headers.set('connection', 'close')
  })
  site.get('/healthz', healthHandler(store))
  site.route('/', fn)
  let sessions: SessionStore | undefined
  if (settings.leadsPassword !== undefined) {
    sessions = openSessionStore(path.join(dataDir, 'leads-page.sqlite'), settings.leadsPassword)
    site.route(
      '/',
      createLeadsPage({
        checkPassword: createPasswordCheck(settings.leadsPassword),
        store,
        sessions,
        launches: launches.map((launch) => leadsPageLaunchOf(launch.config)),
        timeZone: settings.timeZone,
        trustProxy: settings.trustProxy,
        signInCounts: store,
        clientIp: (c) => clientAddress(c) ?? 'unknown',
      }),
    )
  }
  site.all('*', (c) => servedFor(c).files(c))
  site.onError((error, c) => {
    console.error('Unexpected error', error)
    return c.json({ error: 'The server could not answer just now. Please try again in a moment.' }, 500)
  })

  // X-Forwarded-Host/-Proto: only from the proxies TRUST_PROXY counts, only naming a launch's host.
  const guardForwarded = createForwardedHeaderGuard({
    proxies: settings.proxies,
    launches: launches.map((launch) => ({ slug: launch.slug, canonicalUrl: launch.config.seo.canonicalUrl, origins: launch.config.launch.origins })),
  })
  const limits = { ...defaultConnectionLimits, ...options.connections }
  let server: Server
  try {
    server = await new Promise<Server>((resolve, reject) => {
      const s = serve({
        fetch: (request, env) => site.fetch(guardForwarded(request, env.incoming.socket.remoteAddress), env),
        port: settings.port,
        hostname: settings.host,
        // The interval can only be given at creation; the rest are set on the server below.
        serverOptions: { connectionsCheckingInterval: limits.checkIntervalMs },
      }) as Server
      s.headersTimeout = limits.headersTimeoutMs
      s.requestTimeout = limits.requestTimeoutMs
      s.keepAliveTimeout = limits.keepAliveTimeoutMs
      s.maxRequestsPerSocket = limits.maxRequestsPerSocket
      s.maxConnections = limits.maxConnections
      s.once('listening', () => resolve(s))
      s.once('error', reject)
    })
  } catch (error) {
    clearInterval(retentionTimer)
    sessions?.close()
    await store.close()
    lock.release()
    const code = (error as { code?: string }).code
    throw new StartupError(
      code === 'EADDRINUSE'
        ? `Port ${settings.port} on ${settings.host} is already in use: stop what uses it, or set PORT.`
        : `Cannot listen on ${settings.host}:${settings.port}: ${(error as Error).message}`,
    )
  }
  // Poll at least as often as the shortest retry delay, so a retry is not later than configured.
  worker.start(Math.min(5_000, settings.retry.minDelayMs, ...settings.webhookDelaysMs))
  const address = server.address()
  const port = typeof address === 'object' && address ? address.port : settings.port

  let closing: Promise<void> | undefined
  return {
    url: `http://${displayHost(settings.host)}:${port}`,
    leadsPage: sessions !== undefined,
    summary,
    launches: launches.map((launch) => ({
      slug: launch.slug,
      isDefault: launch === defaultLaunch,
      localUrl: `http://${launch.slug}.localhost:${port}/`,
      canonicalUrl: launch.config.seo.canonicalUrl,
    })),
    close() {
      closing ??= (async () => {
        // Requests in flight finish; idle keep-alive connections are closed; stragglers are cut after 10 s.
        clearInterval(retentionTimer)
        const cut = setTimeout(() => server.closeAllConnections(), 10_000)
        await new Promise<void>((resolve) => server.close(() => resolve()))
        clearTimeout(cut)
        await worker.stop()
        await mailer.close?.()
        sessions?.close()
        await store.close()
        lock.release()
      })()
      return closing
    },
  }
}
