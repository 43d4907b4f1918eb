import path from 'node:path'
import { Hono } from 'hono'
import type { NodeServerConfig } from './env.ts'
import type { NodeServerOptions, RunningServer, ServedLaunch } from './node-options.ts'
import { openNodeStore, StartupError } from './node-store.ts'
import { addLeftCountsRoute } from './release/left-counts.ts'
import { createForwardedAddress } from './registration/forwarded-address.ts'
import { alertBrokenLaunches } from './site/broken-launch.ts'
import { healthHandler } from './site/health.ts'
import { createLiveLaunches, type LiveLaunch } from './site/live-launches.ts'
import { createVisitCounter } from './site/visit-counter.ts'
import { clientAddressFrom, createFunctionMaker, mountFunction } from './start/function.ts'
import { readStartingLaunches, versionSettingsOf } from './start/launches.ts'
import { createNodeScheduledMail, mountNodeLeadsPage, type NodeLeadsDeps } from './start/leads.ts'
import { createNodeMail } from './start/mail.ts'
import { mountPublishing } from './start/publishing.ts'
import { createLaunchPicker, launchHealthOf } from './start/requests.ts'
import { nodeErasureOf, startRetention } from './start/retention.ts'
import { listenSite, portOf, runningServerOf, startParts } from './start/running.ts'
import { mountLaunchFiles, mountSiteHeaders } from './start/site.ts'
import { mountStudio } from './start/studio.ts'
import { startupSummary } from './start/summary.ts'

/**
 * The Node server (run by src/cli/serve.ts). Serves every launch's built site (DIST_DIR/<slug>/, chosen by the
 * request's host: launch-hosts.ts) and the send-contact-email function for all of them, stores every launch's leads
 * in one SQLite database under DATA_DIR, or in PostgreSQL with DATABASE_URL (node-store.ts; several servers may share
 * it), and delivers notifications from the outbox (SMTP_URL, or .eml files in DATA_DIR/outbox). Prints
 * `Listening on http://HOST:PORT` when ready; stops cleanly on SIGTERM/SIGINT. Each step of the start-up is a file of
 * src/server/start/ (or of its room); startNodeServer lists them in order.
 */

export { StartupError }

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
  const { clock, builder } = options
  const distRoot = path.resolve(cwd, settings.distDir)
  const dataDir = path.resolve(cwd, settings.dataDir)
  const versionSettings = versionSettingsOf(settings, clock)
  const starting = await readStartingLaunches(launches, options.broken ?? [], distRoot, versionSettings)
  const { initial, defaultLaunch } = starting
  const opened = await openNodeStore({
    dataDir,
    databaseUrl: settings.databaseUrl,
    defaultLaunch: defaultLaunch.slug,
    migrationsDir: path.resolve(cwd, 'supabase/migrations'),
    rateLimitPerMinute: settings.rateLimitPerMinute,
    suppressionSecret: settings.suppressionSecret,
  })
  const mail = createNodeMail({ settings, dataDir, opened, defaultSlug: defaultLaunch.slug, ...starting })
  const { delivery, links, alerts } = mail
  const summary = startupSummary({ settings, where: opened.where, mail, initial })
  const erasure = nodeErasureOf(opened, mail.emlDir)
  const retention = await startRetention(opened, erasure, settings.retentionDays)
  const clientAddress = clientAddressFrom(createForwardedAddress(settings.proxies))
  const visits = createVisitCounter({
    store: opened.store,
    shared: opened.visitors,
    timeZone: settings.timeZone,
    onError: (error) => console.error('Could not store the visit counts', error),
  })
  const webhook = mail.webhook !== undefined
  const suppressionKeyOf = erasure.keyOf
  // The inventory and worksheets beside the leads: the realtors' worksheet page, the page's "left" counts, the studio.
  const { store, rateLimiter, release } = opened
  const functionDeps = { settings, clock, store, rateLimiter, delivery, links, clientAddress, webhook, visits }
  const live = createLiveLaunches(initial, createFunctionMaker({ ...functionDeps, suppressionKeyOf, release }))
  alertBrokenLaunches(alerts, initial)
  const port = { now: settings.port }
  const localUrlOf = (launch: Pick<LiveLaunch, 'slug' | 'isDefault'>) =>
    launch.isDefault ? `http://localhost:${port.now}/` : `http://${launch.slug}.localhost:${port.now}/`
  const where = { cwd, distRoot, dataDir, opened, live, versionSettings, localUrlOf }
  const publishing = await mountPublishing({ settings, options, alerts, ...where })
  const pick = createLaunchPicker({ trustProxy: settings.trustProxy, builder, ...where })

  const site = new Hono()
  const studio = await mountStudio(site, { ...where, settings, options, delivery, clientAddress, ...publishing })
  mountSiteHeaders(site, pick)
  site.get('/healthz', healthHandler(store, undefined, launchHealthOf(live)))
  // What is left of each launch's inventory, for its home types section (release/left-counts.ts).
  addLeftCountsRoute(site, { release, launchOf: async (c) => (await pick(c)).launch.slug })
  mountFunction(site, pick)
  const leadsDeps: NodeLeadsDeps = {
    ...where,
    settings,
    clock,
    links,
    delivery,
    webhook,
    suppressionKeyOf,
    clientAddress,
    worksheets: release,
  }
  const leadsPage = mountNodeLeadsPage(site, leadsDeps, studio)
  const scheduled = createNodeScheduledMail(leadsDeps)
  mountLaunchFiles(site, { pick, visits, clientAddress, supabaseUrl: settings.supabaseUrl })

  const parts = { retention, scheduled, publishing, mail, leadsPage, studio, visits, opened }
  const server = await listenSite(site, { settings, launches, options, parts })
  startParts(parts, settings)
  port.now = portOf(server, settings)
  return runningServerOf({ settings, server, parts, initial, defaultLaunch, summary })
}
