import { existsSync } from 'node:fs'
import type { Server } from 'node:http'
import path from 'node:path'
import type { HttpBindings } from '@hono/node-server'
import { Hono, type Context, type MiddlewareHandler } from 'hono'
import { functionLaunchOf, type FunctionLaunch } from '../../schema/function-launch.ts'
import { contactFunctionPath } from '../../schema/function-path.ts'
import { contactFunctionPaths, createApp } from './app.ts'
import { healthHandler, type LaunchHealth } from './site/health.ts'
import { createEmlMailer, removeEmlCopies } from './delivery/eml-mailer.ts'
import { eraseOlderThan } from './store/retention.ts'
import { mountLeadsPage } from './leads-page/mount-leads-page.ts'
import { leadsPageLaunchesOfLive } from './leads-page/views.ts'
import { requestHandlingOf, type NodeServerConfig } from './env.ts'
import type { Mailer } from './delivery/mailer.ts'
import { createForwardedAddress } from './registration/forwarded-address.ts'
import { requestHost } from './registration/caller.ts'
import { launchSiteOf } from './site/launch-site.ts'
import { superviseDelivery } from './delivery-supervisor.ts'
import { hmacSha256 } from './store/private-files.ts'
import { createSmtpMailer } from './delivery/smtp-mailer.ts'
import { announcementMailOf } from './delivery/announcement.ts'
import { addressKeyOf } from './store/suppression.ts'
import { createWebhookSender } from './delivery/webhook.ts'
import { createAlerts, messageFailedAlert } from './delivery/alerts.ts'
import { readLaunchVersion, type VersionSettings, type VersionManifest } from './site/launch-version.ts'
import {
  createLiveLaunches,
  localSlugOf,
  type FunctionMaker,
  type LaunchesSnapshot,
  type LiveLaunch,
} from './site/live-launches.ts'
import { createLaunchPublisher, ownVersionsDir, statusOf } from './site/publisher.ts'
import { createBuildSharing } from './site/shared-builds.ts'
import { createStaticHost } from './site/static-host.ts'
import { createPostgresBuildShelf } from './store/postgres/postgres-builds.ts'
import { listen } from './node-listen.ts'
import {
  defaultConnectionLimits,
  type NodeServerOptions,
  type RunningServer,
  type ServedLaunch,
} from './node-options.ts'
import { unpublishedAnswer } from './site/unpublished-page.ts'
import { brokenAlertKey, brokenLine } from './site/broken-launch.ts'
import { createForwardedHeaderGuard } from './site/forwarded-headers.ts'
import { createVisitCounter } from './site/visit-counter.ts'
import { createDocumentFiles } from './site/document-files.ts'
import { openNodeStore, StartupError } from './node-store.ts'
import { addLeftCountsRoute } from './release/left-counts.ts'
import { openReleaseStore } from './store/open-release.ts'
import { createScheduledMail } from './delivery/scheduled/phase-announcements.ts'

// The function's own 404 (a path under its paths that it does not answer): the site's 404 page answers instead.
const notFunction = 'x-not-the-function'

/**
 * The Node server (run by src/cli/serve.ts). Serves every launch's built site (DIST_DIR/<slug>/, chosen by the
 * request's host: launch-hosts.ts) and the send-contact-email function for all of them, stores every launch's leads
 * in one SQLite database under DATA_DIR, or in PostgreSQL with DATABASE_URL (node-store.ts; several servers may share
 * it), and delivers notifications from the outbox (SMTP_URL, or .eml files in DATA_DIR/outbox). Prints
 * `Listening on http://HOST:PORT` when ready; stops cleanly on SIGTERM/SIGINT.
 */

export { StartupError }

function displayHost(host: string): string {
  return host.includes(':') ? `[${host}]` : host
}

/**
 * Starts the server for checked launches (loadLaunches: the default one among them) with checked settings
 * (parseNodeEnv); each launch's site is read from DIST_DIR/<slug>/, relative paths resolved from `cwd`. Launches
 * whose config is broken (options.broken) serve their last good build. Throws StartupError with readable text
 * when no launch at all has a build to serve.
 */
export async function startNodeServer(
  launches: ServedLaunch[],
  settings: NodeServerConfig,
  cwd = process.cwd(),
  options: NodeServerOptions = {},
): Promise<RunningServer> {
  const broken = options.broken ?? []
  const all = [...launches, ...broken].sort((a, b) => Number(b.isDefault) - Number(a.isDefault))
  if (all.length === 0) throw new StartupError('There is no launch to serve: page.config.json is missing.')
  const distRoot = path.resolve(cwd, settings.distDir)
  const headerSettings: VersionSettings = {
    // Behind a proxy the visitor's connection is normally HTTPS; browsers ignore HSTS over plain HTTP anyway.
    https: settings.trustProxy > 0,
    supabaseUrl: settings.supabaseUrl,
    // Which phase's pages are in force: the same clock as the function's, so both switch at the same instant.
    clock: options.clock,
    timeZone: settings.timeZone,
  }
  const initial: LiveLaunch[] = []
  for (const launch of launches) {
    const distDir = path.join(distRoot, launch.slug)
    const manifest: VersionManifest = {
      contract: functionLaunchOf(launch.config),
      tagManager: launch.config.site.analytics !== undefined,
    }
    initial.push({
      slug: launch.slug,
      isDefault: launch.isDefault,
      configFile: launch.configFile ?? '',
      siteName: launch.config.site.name,
      version: await readLaunchVersion(distDir, headerSettings, manifest),
      addresses: manifest.contract.origins,
    })
  }
  for (const launch of broken) {
    const version = await readLaunchVersion(path.join(distRoot, launch.slug), headerSettings, launch.lastGood)
    initial.push({
      slug: launch.slug,
      isDefault: launch.isDefault,
      configFile: launch.configFile,
      siteName: version?.contract.site.name ?? launch.siteName,
      problem: launch.problem,
      version,
    })
  }
  if (!initial.some((launch) => launch.version)) {
    const good = launches.find((launch) => !existsSync(path.join(distRoot, launch.slug, 'index.html')))
    throw new StartupError(
      good
        ? `The built site of launch "${good.slug}" is missing: ${path.join(distRoot, good.slug, 'index.html')} does not exist. Run npm run build first (npm start builds what is missing; or set DIST_DIR).`
        : `The page config cannot be used.\n${broken.map((launch) => launch.problem.message).join('\n\n')}`,
    )
  }
  const defaultLaunch = initial.find((launch) => launch.isDefault) ?? initial[0]!
  const served = () => live.current().launches.filter((launch) => launch.version !== undefined)

  const dataDir = path.resolve(cwd, settings.dataDir)
  const opened = await openNodeStore({
    dataDir,
    databaseUrl: settings.databaseUrl,
    defaultLaunch: defaultLaunch.slug,
    migrationsDir: path.resolve(cwd, 'supabase/migrations'),
    rateLimitPerMinute: settings.rateLimitPerMinute,
    suppressionSecret: settings.suppressionSecret,
  })
  const store = opened.store
  // This run's own folder of published versions; what earlier runs published is removed (publisher.ts).
  const versionsDir = ownVersionsDir(distRoot)
  const defaultContract = (defaultLaunch.version ??
    served()[0]?.version ??
    initial.find((launch) => launch.version)!.version)!.contract
  const siteName = defaultContract.site.name
  const emlDir = path.join(dataDir, 'outbox')
  // Without MAIL_FROM the default launch's reply sender is the From of every message, so a try-out works as it is.
  const defaultFrom = defaultContract.reply
    ? `"${defaultContract.reply.sender.name.replace(/["\\]/g, '')}" <${defaultContract.reply.sender.email}>`
    : `"${siteName.replace(/["\\]/g, '')}" <no-reply@localhost>`
  const mailer: Mailer =
    settings.mail.kind === 'smtp'
      ? createSmtpMailer({ url: settings.mail.url, from: settings.mail.from })
      : createEmlMailer({ dir: emlDir, from: settings.mail.from ?? defaultFrom })
  const webhook = settings.webhook ? createWebhookSender(settings.webhook) : undefined
  const alerts = createAlerts({
    dir: path.join(dataDir, 'alerts'),
    alertEmail: settings.alertEmail,
    mailer,
    webhook,
    retryMs: settings.retry.minDelayMs,
  })
  const unsubscribeSecret = () => settings.unsubscribeSecret ?? opened.secrets.unsubscribe()
  const linkBaseOf = (contract: FunctionLaunch) =>
    settings.publicFunctionUrl ?? `${contract.origins[0]}${contactFunctionPath}` // unless PUBLIC_FUNCTION_URL, each launch's own
  // The outbox is delivered by a child process (delivery-supervisor.ts), started once the server listens.
  const delivery = superviseDelivery({
    start: {
      dataDir,
      databaseUrl: settings.databaseUrl,
      defaultLaunch: defaultLaunch.slug,
      mail: settings.mail.kind === 'smtp' ? settings.mail : { kind: 'eml', from: settings.mail.from ?? defaultFrom },
      webhook: settings.webhook,
      retry: settings.retry,
      webhookDelaysMs: settings.webhookDelaysMs,
      // Poll at least as often as the shortest retry delay, so a retry is not later than configured.
      pollMs: Math.min(5_000, settings.retry.minDelayMs, ...settings.webhookDelaysMs),
      compose: {
        launches: [],
        timeZone: settings.timeZone,
        notifyEmail: settings.notifyEmail,
        unsubscribeSecret: unsubscribeSecret(),
        suppressionSecret: opened.secrets.suppression(),
      }, // launches: from makeFunction
    },
    onFailed: (job, reason) => alerts.raise(messageFailedAlert(job, reason)),
  })
  const smtpHost = settings.mail.kind === 'smtp' ? new URL(settings.mail.url) : undefined
  const initialServed = initial.filter((launch) => launch.version)
  const withReply = initialServed.filter((launch) => launch.version!.contract.reply)
  const summary = [
    `Leads: ${opened.where}`,
    smtpHost
      ? `Mail: SMTP ${smtpHost.hostname}:${smtpHost.port || (smtpHost.protocol === 'smtps:' ? 465 : 587)}, from ${settings.mail.from}`
      : `Mail: written as .eml files to ${emlDir} (set SMTP_URL to send it)`,
    ...initialServed.map(
      (launch) =>
        `Notifications of ${launch.slug}: to ${settings.notifyEmail ?? launch.version!.contract.notifyEmail}${settings.notifyEmail ? ' (NOTIFY_EMAIL)' : ''}`,
    ),
    withReply.length === 0
      ? 'Replies to registrants: off (no launch\'s page.config.json has a "reply")'
      : `Replies to registrants: on for ${withReply.map((launch) => `${launch.slug} (sender "${launch.version!.contract.reply!.sender.name}", unsubscribe links at ${linkBaseOf(launch.version!.contract)}/unsubscribe)`).join(', ')}`,
    ...(settings.publishCommand
      ? ["Static host: PUBLISH_COMMAND runs after each publish and at each phase's start"]
      : []),
    settings.webhook
      ? `CRM webhook: on, to ${new URL(settings.webhook.url).host} (signed)`
      : 'CRM webhook: off (WEBHOOK_URL not set)',
    `Failed messages: retried up to ${settings.retry.maxAttempts} times, then kept as failed (npm run outbox:retry); health at /healthz`,
    settings.alertEmail
      ? `Alerts (a launch broken, a message failed): to ${settings.alertEmail}${webhook ? ' and the webhook' : ''}`
      : `Alerts (a launch broken, a message failed): ${webhook ? 'to the webhook; ' : ''}set ALERT_EMAIL to be told by e-mail`,
  ]

  const visitorAddress = createForwardedAddress(settings.proxies)
  // Retention: leads older than RETENTION_DAYS go, with their notifications and .eml copies, at start and daily.
  const suppressionSecret = opened.secrets.suppression()
  const erasure = {
    store,
    keyOf: (email: string) => addressKeyOf(suppressionSecret, email, hmacSha256),
    removeCopies: (messageIds: string[], address: string | undefined) => removeEmlCopies(emlDir, messageIds, address),
  }
  const retentionDays = settings.retentionDays
  // On PostgreSQL one server a day runs it, for all of them.
  const retention =
    retentionDays === undefined
      ? undefined
      : await opened.daily(
          'retention',
          () => eraseOlderThan(erasure, retentionDays),
          'Retention (erasing old registrations)',
        )

  const clientAddress = (c: Context) => visitorAddress((c.env as HttpBindings).incoming)
  // Visits, counted without cookies as daily counts (site/visit-counter.ts): as pages are served, or by a hosted function's image.
  const visits = createVisitCounter({
    store,
    shared: opened.visitors,
    timeZone: settings.timeZone,
    onError: (error) => console.error('Could not store the visit counts', error),
  })
  // Shared by every function the server makes: a publish must not reset anyone's count.
  const rateLimiter = opened.rateLimiter
  // The function for the launches served now: made anew with each snapshot, so a published form is the one checked.
  const makeFunction: FunctionMaker = (launchesServed, defaultSlug, launchOfHost) => {
    const fn = new Hono()
    delivery.setLaunches(
      launchesServed.map(({ version }) => ({ contract: version.contract, linkBase: linkBaseOf(version.contract) })),
    )
    if (launchesServed.length > 0) {
      const slugs = new Set(launchesServed.map((launch) => launch.slug))
      fn.route(
        '/',
        createApp({
          launches: launchesServed.map(({ version }) =>
            launchSiteOf(version.contract, {
              notifyEmail: settings.notifyEmail,
              links: version.contract.reply
                ? { secret: unsubscribeSecret(), baseUrl: linkBaseOf(version.contract), hmac: hmacSha256 }
                : undefined,
              pageCss: version.pageCss,
              // The assignee's link: the leads page's own address, never a launch's (it may be a static host).
              leadsUrl: settings.studioHost
                ? `${settings.publicUrl ? new URL(settings.publicUrl).protocol : 'https:'}//${settings.studioHost}`
                : (settings.publicUrl ?? `http://localhost:${settings.port}`),
              // A plain form post (no JavaScript) with fields to correct is answered with the launch's home page, filled in.
              formPageHtml: version.home,
              phasePages: version.phaseHomes,
            }),
          ),
          defaultLaunch: defaultSlug,
          launchOfHost: (host) => {
            const slug = launchOfHost(host)
            return slugs.has(slug) ? slug : undefined
          },
          ...requestHandlingOf(settings),
          rateLimiter,
          store,
          clock: options.clock,
          clientAddress,
          onLeadStored: () => delivery.kick(),
          composeAtDelivery: true,
          webhook: webhook !== undefined,
          suppressionKeyOf: erasure.keyOf,
          visits,
          documentFiles: createDocumentFiles(
            (slug) => launchesServed.find((launch) => launch.slug === slug)?.configFile,
          ),
        }),
      )
    }
    // Any other path under the function's is the site's (its 404 page), as when the function was mounted beside it.
    fn.notFound(() => new Response(null, { status: 404, headers: { [notFunction]: '1' } }))
    return fn
  }
  const live = createLiveLaunches(initial, makeFunction)
  for (const launch of initial) {
    if (launch.problem) {
      alerts.raise({
        key: brokenAlertKey(launch.slug, launch.problem),
        kind: 'launch-broken',
        launch: launch.slug,
        subject: `Launch ${launch.slug} is broken: ${launch.problem.place}`,
        text: `${brokenLine(launch)}\n\n${launch.problem.message}`,
      })
    } else {
      alerts.forget(`launch-broken:${launch.slug}:`)
    }
  }
  let port = settings.port
  const localUrlOf = (launch: Pick<LiveLaunch, 'slug' | 'isDefault'>) =>
    launch.isDefault ? `http://localhost:${port}/` : `http://${launch.slug}.localhost:${port}/`
  // Several servers on one PostgreSQL: a publish on one is served by all, with no shared disk (shared-builds.ts).
  const log = {
    info: (m: string) => console.log(m),
    error: (m: string, e?: unknown) => console.error(`${m}: ${e instanceof Error ? e.message : String(e ?? '')}`),
  }
  const sharing =
    opened.database &&
    createBuildSharing({
      shelf: createPostgresBuildShelf(opened.database),
      live,
      stateFile: path.join(dataDir, 'shared-builds.json'),
      log,
    })
  const publisher = createLaunchPublisher({
    share: sharing ? sharing.share : undefined,
    live,
    builder: options.builder ?? {
      check: () => ({
        ok: false,
        problems: [
          {
            file: '',
            line: 1,
            column: 1,
            where: 'the server',
            message: 'This server was started without a builder: it cannot publish.',
            fix: 'Start it with npm start.',
            excerpt: '',
          },
        ],
      }),
      find: () => undefined,
    },
    versionsDir,
    readVersion: (distDir, manifest) => readLaunchVersion(distDir, headerSettings, manifest),
    localUrlOf,
    onPublished: (slug) => alerts.forget(`launch-broken:${slug}:`),
    retireAfterMs: options.retireAfterMs,
  })
  await sharing?.start(publisher)
  // PUBLISH_COMMAND: each publish (and each phase's start) also put on a static host (site/static-host.ts).
  const staticHost =
    settings.publishCommand === undefined
      ? undefined
      : createStaticHost({
          command: settings.publishCommand,
          cwd,
          live,
          dir: path.join(distRoot, '.static'),
          stateFile: path.join(dataDir, 'static-host.json'),
          clock: options.clock,
          timeZone: settings.timeZone,
          supabaseUrl: settings.supabaseUrl,
          claim: opened.claim,
        })
  const publishing = staticHost?.wrap(publisher) ?? publisher

  /** The snapshot and launch a request is answered from, read once when it arrives. */
  const picked = new WeakMap<Request, { snapshot: LaunchesSnapshot; launch: LiveLaunch }>()
  async function pick(c: Context): Promise<{ snapshot: LaunchesSnapshot; launch: LiveLaunch }> {
    const known = picked.get(c.req.raw)
    if (known) return known
    const host = requestHost(c, settings.trustProxy)
    let snapshot = live.current()
    const local = localSlugOf(host)
    // A launch folder made while the server runs is found the first time its <slug>.localhost is asked for.
    if (local !== undefined && snapshot.get(local) === undefined && options.builder) {
      const found = options.builder.find(local)
      if (found) {
        const version = await readLaunchVersion(path.join(distRoot, found.slug), headerSettings)
        if (live.add({ ...found, version: version?.contract.slug === found.slug ? version : undefined })) {
          console.log(`Launch ${found.slug} found: ${localUrlOf(found)}${version ? '' : ' (not published yet: 503)'}`)
        }
        snapshot = live.current()
      }
    }
    const chosen = { snapshot, launch: snapshot.get(snapshot.launchOfHost(host))! }
    picked.set(c.req.raw, chosen)
    return chosen
  }
  const launchHealth = (): LaunchHealth => {
    const now = live.current().launches
    return {
      count: now.length,
      broken: now.filter((launch) => launch.problem).map((launch) => launch.slug),
      unpublished: now.filter((launch) => !launch.problem && !launch.version).map((launch) => launch.slug),
    }
  }

  const site = new Hono()
  // The studio first: it sets its own security headers (its CSP differs from the pages').
  const studio = options.studio
    ? await options.studio({
        dataDir,
        pool: opened.database,
        publisher: publishing,
        signInCounts: store,
        timeZone: settings.timeZone,
        clock: options.clock ?? (() => new Date()),
        launchHosts: () =>
          live
            .current()
            .launches.flatMap((launch) => [
              `${launch.slug}.localhost`,
              ...(launch.version?.contract.origins ?? launch.addresses ?? []).flatMap((o) =>
                URL.canParse(o) ? [new URL(o).host] : [],
              ),
            ]),
        secureCookies: settings.trustProxy > 0,
        clientAddress: (c) => clientAddress(c) ?? 'unknown',
        sendMail:
          settings.mail.kind === 'smtp'
            ? (mail) =>
                mailer.send({
                  ...mail,
                  html: '',
                  messageId: `<studio-${Date.now()}-${Math.random().toString(36).slice(2)}@localhost>`,
                  idempotencyKey: `studio-${Date.now()}-${Math.random().toString(36).slice(2)}`,
                })
            : undefined,
      })
    : undefined
  if (studio) {
    // Handed over whole: the studio's own router (where /studio/ and /studio are one route) and its own 404s.
    const toStudio = (c: Context) => studio.app.fetch(c.req.raw, c.env)
    site.all('/studio', toStudio)
    site.all('/studio/*', toStudio)
  }
  site.use('*', async (c, next) => {
    const { launch } = await pick(c)
    // Each launch's pages: their inline JSON-LD and stylesheet allowed by hash in its CSP (and a hosted function's origin).
    if (launch.version) return launch.version.headers(c, next)
    await next()
  })
  site.use('*', async (c, next) => {
    await next()
    // A refused body is never read: tell the client this connection is done, or its next request meets a closed socket.
    if (c.res.status === 413) c.res.headers.set('connection', 'close')
  })
  site.get('/healthz', healthHandler(store, undefined, launchHealth))
  // What is left of each launch's inventory, for its home types section (release/left-counts.ts).
  const release = openReleaseStore({ dataDir, pool: opened.database })
  addLeftCountsRoute(site, { release: release.store, launchOf: async (c) => (await pick(c)).launch.slug })
  const toFunction: MiddlewareHandler = async (c, next) => {
    const { snapshot, launch } = await pick(c)
    if (!launch.version) {
      return c.json({ error: `${launch.siteName} is not published yet: registrations open once it is.` }, 503, {
        'retry-after': '60',
      })
    }
    const response = await snapshot.fn.fetch(c.req.raw, c.env)
    if (response.headers.get(notFunction)) return next()
    return response
  }
  for (const functionPath of contactFunctionPaths)
    site.all(functionPath, toFunction).all(`${functionPath}/*`, toFunction)
  // Announcements (the leads page's, a phase's) speak with each launch's reply (sender, contact, unsubscribe words) and sign its links the same way.
  const announcements = {
    mailOf: (slug: string) =>
      announcementMailOf(live.current().get(slug)?.version?.contract, (contract) => ({
        secret: unsubscribeSecret(),
        baseUrl: linkBaseOf(contract),
        hmac: hmacSha256,
      })),
    suppressionKeyOf: erasure.keyOf,
  }
  // The leads page: studio accounts (their sign-in and audit log come from the studio) and LEADS_PASSWORD.
  if (studio?.hostGate) site.use('/leads', studio.hostGate).use('/leads/*', studio.hostGate)
  const leadsPage = mountLeadsPage(site, {
    dataDir,
    pool: opened.database,
    password: settings.leadsPassword,
    studio: studio?.leads,
    store,
    launches: leadsPageLaunchesOfLive(live.current),
    webhook: webhook !== undefined,
    onQueued: () => delivery.kick(),
    announcements,
    timeZone: settings.timeZone,
    trustProxy: settings.trustProxy,
    clientIp: (c) => clientAddress(c) ?? 'unknown',
  })
  // The morning summaries (launch.morningSummary), once a day among all servers, and each phase's announcement once at its start (delivery/scheduled/phase-announcements.ts).
  const summaries = createScheduledMail({
    store,
    clock: options.clock,
    timeZone: settings.timeZone,
    onQueued: () => delivery.kick(),
    launches: () =>
      served().map(({ version: v }) => ({
        ...v!.contract,
        notifyEmail: settings.notifyEmail ?? v!.contract.notifyEmail,
      })),
    ...announcements,
  })
  site.all('*', async (c) => {
    const { launch } = await pick(c)
    if (!launch.version) return unpublishedAnswer(launch.siteName, c.req.method)
    const response = await launch.version.files(c)
    if (launch.version.contract.countVisits !== false && settings.supabaseUrl === undefined)
      visits.count(c.req.raw, response, launch.slug, clientAddress(c) ?? '')
    // A page loaded just before a publish may still ask for its own hashed assets: the replaced version has them.
    if (response.status === 404 && launch.previous && new URL(c.req.url).pathname.startsWith('/assets/')) {
      const old = await launch.previous.files(c)
      if (old.status === 200) return old
    }
    return response
  })
  site.onError((error, c) => {
    console.error('Unexpected error', error)
    return c.json({ error: 'The server could not answer just now. Please try again in a moment.' }, 500)
  })

  // X-Forwarded-Host/-Proto: only from the proxies TRUST_PROXY counts, only naming a launch's host.
  const guardForwarded = createForwardedHeaderGuard({
    proxies: settings.proxies,
    launches: launches.map((launch) => ({
      slug: launch.slug,
      canonicalUrl: launch.config.seo.canonicalUrl,
      origins: launch.config.launch.origins,
    })),
  })
  const limits = { ...defaultConnectionLimits, ...options.connections }
  let server: Server
  try {
    server = await listen(
      (request, env) => site.fetch(guardForwarded(request, env.incoming.socket.remoteAddress), env),
      settings.port,
      settings.host,
      limits,
    )
  } catch (error) {
    retention?.stop()
    sharing?.stop()
    publisher.close()
    await alerts.stop()
    leadsPage?.close()
    studio?.close()
    release.close()
    await visits.close()
    await opened.close()
    const code = (error as { code?: string }).code
    throw new StartupError(
      code === 'EADDRINUSE'
        ? `Port ${settings.port} on ${settings.host} is already in use: stop what uses it, or set PORT.`
        : `Cannot listen on ${settings.host}:${settings.port}: ${(error as Error).message}`,
    )
  }
  delivery.start()
  summaries.start(60_000)
  alerts.start(Math.min(30_000, settings.retry.minDelayMs))
  staticHost?.start()
  const address = server.address()
  port = typeof address === 'object' && address ? address.port : settings.port

  let closing: Promise<void> | undefined
  return {
    url: `http://${displayHost(settings.host)}:${port}`,
    leadsPage: (await leadsPage?.state()) ?? 'off',
    summary,
    browserUrl: `http://localhost:${port}/`,
    launches: initial.map((launch) => ({
      slug: launch.slug,
      isDefault: launch === defaultLaunch,
      localUrl: `http://${launch.slug}.localhost:${port}/`,
      canonicalUrl: launch.version?.contract.origins[0] ?? launch.addresses?.[0],
      status: statusOf(launch),
      ...(launch.problem ? { broken: `${brokenLine(launch)}\n${launch.problem.message}` } : {}),
    })),
    publisher: publishing,
    close() {
      closing ??= (async () => {
        // Requests in flight finish; idle keep-alive connections are closed; stragglers are cut after 10 s.
        retention?.stop()
        summaries.stop()
        sharing?.stop()
        const cut = setTimeout(() => server.closeAllConnections(), 10_000)
        await new Promise<void>((resolve) => server.close(() => resolve()))
        clearTimeout(cut)
        publisher.close()
        await staticHost?.stop()
        await alerts.stop()
        await delivery.stop()
        await mailer.close?.()
        leadsPage?.close()
        studio?.close()
        release.close()
        await visits.close()
        await opened.close()
      })()
      return closing
    },
  }
}
