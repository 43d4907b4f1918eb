// The send-contact-email Supabase Edge Function (Deno): the same Hono app as the Node server, serving every launch,
// with leads in Supabase Postgres (SUPABASE_DB_URL, tables from supabase/migrations) and notifications sent through
// Resend. Env is read once here; see .env.example and docs/deploy.md. Run outside Supabase with PORT set:
//   deno run --config supabase/functions/send-contact-email/deno.json --allow-net --allow-env --allow-read \
//     supabase/functions/send-contact-email/index.ts
// The launches are what the studio published: each launch's newest contract in the database, looked up again every
// PUBLISHED_REFRESH_SECONDS (src/server/site/published-contracts.ts), so a field added and published is accepted with
// no redeploy. ../_shared/launches.json, which `npm run build` writes from every launch's page.config.json (Supabase
// deploys only what the function imports), is the first version: served for a launch the database has none of. Deno
// saying `Module not found ".../_shared/launches.json"`
// means no build has run in this checkout: run `npm run build`, then start or deploy the function again.
import { getConnInfo } from 'hono/deno'
import pg from 'pg'
import bundle from '../_shared/launches.json' with { type: 'json' }
import type { FunctionBundle } from '../../../schema/function-launch.ts'
import { createApp } from '../../../src/server/app.ts'
import { platformClientAddress } from '../../../src/server/registration/client-address.ts'
import { formatEnvProblems, parseEdgeEnv, requestHandlingOf } from '../../../src/server/env.ts'
import { createOutboxWorker } from '../../../src/server/delivery/outbox.ts'
import { createPostgresRelease } from '../../../src/server/store/postgres/postgres-release.ts'
import { createPostgresStore } from '../../../src/server/store/postgres/postgres-store.ts'
import { countVisitIn } from '../../../src/server/store/pulse/postgres-visits.ts'
import { createVisitImageCounter } from '../../../src/server/site/visit-requests.ts'
import { createResendMailer } from '../../../src/server/delivery/mailers/resend-mailer.ts'
import { addressKeyOf } from '../../../src/server/store/suppression.ts'
import { createWebhookSender } from '../../../src/server/delivery/webhook.ts'
import { launchSiteOf } from '../../../src/server/site/launch-site.ts'
import { createPublishedLaunches, readPublishedContracts } from '../../../src/server/site/published-contracts.ts'
import { createRateLimiter } from '../../../src/server/registration/rate-limit.ts'
import type { FunctionLaunch } from '../../../schema/function-launch.ts'

type EdgeRuntimeGlobal = { EdgeRuntime?: { waitUntil(promise: Promise<unknown>): void } }

const { launches, defaultLaunch } = bundle as unknown as FunctionBundle
// Any launch with a reply needs the unsubscribe links' secret and address.
const parsed = parseEdgeEnv(Deno.env.toObject(), { needsLinks: launches.some((launch) => launch.reply !== undefined) })
if (!parsed.ok) {
  const message = formatEnvProblems(parsed.problems, 'send-contact-email cannot start')
  console.error(message)
  // No half-configured function: the instance fails to boot and the log says why.
  throw new Error(message)
}
const settings = parsed.config
console.log(`send-contact-email: the visitor's address is ${settings.clientIpSource}`)

// A small pool: each function instance handles few requests at once, and Postgres connections are precious.
const pool = new pg.Pool({
  connectionString: settings.databaseUrl,
  max: 3,
  idleTimeoutMillis: 10_000,
  connectionTimeoutMillis: 5_000,
})
pool.on('error', (error: Error) => console.error('send-contact-email: idle database connection failed', error.message))
const store = createPostgresStore(pool, { defaultLaunch, close: () => pool.end() })
// The inventory and worksheets beside the leads (issue 45): on a static host the function is the only server, so it
// answers the page's left.json?launch=<slug> and serves the realtors' worksheet page, as lead_writer may
// (supabase/migrations/20260129000000_function_release.sql).
const release = createPostgresRelease(pool)
const mailer = createResendMailer({
  apiKey: settings.resend.apiKey,
  from: settings.resend.from,
  baseUrl: settings.resend.baseUrl,
})
const webhook = settings.webhook ? createWebhookSender(settings.webhook) : undefined
const worker = createOutboxWorker({
  store,
  mailer,
  webhook,
  retry: settings.retry,
  webhookDelaysMs: settings.webhookDelaysMs,
  // Per instance: Supabase may run several, each pacing itself (docs/deploy.md).
  concurrency: settings.sending.concurrency,
  ratePerSecond: settings.sending.ratePerSecond,
  suppressionKeyOf: settings.suppressionSecret
    ? (email: string) => addressKeyOf(settings.suppressionSecret!, email)
    : undefined,
})

/** Delivers due mail in the background: Supabase keeps the instance alive for it through EdgeRuntime.waitUntil. */
function deliverInBackground(): void {
  const run = worker
    .deliverDue()
    .catch((error: unknown) => console.error('send-contact-email: delivery run failed', error))
  ;(globalThis as EdgeRuntimeGlobal).EdgeRuntime?.waitUntil(run)
}

// The visit images of pages on a static host (no server of ours serves them): each counted in the database at once,
// hashed there with the day's salt the Node servers use too, so a visitor counts once a day.
const visits = createVisitImageCounter({ record: countVisitIn(pool), timeZone: settings.timeZone })

const links =
  settings.unsubscribeSecret && settings.publicFunctionUrl
    ? { secret: settings.unsubscribeSecret, baseUrl: settings.publicFunctionUrl }
    : undefined
// One limiter for every app made: a new version of the launches does not give callers a fresh minute.
const rateLimiter = createRateLimiter(settings.rateLimitPerMinute)

/** The app for these launches; a new one is made for each new set of published versions. */
function makeApp(served: FunctionLaunch[]) {
  for (const launch of served) {
    if (launch.reply && !links)
      console.error(
        `send-contact-email: launch ${launch.slug} has a reply, but UNSUBSCRIBE_SECRET or its address is not set: no reply is sent.`,
      )
  }
  return createApp({
    // NOTIFY_EMAIL, when set, is every launch's recipient; each launch replies when the settings allow its links.
    // A realtor's reply links their worksheet page here (PUBLIC_FUNCTION_URL), as it links the documents.
    launches: served.map((launch) =>
      launchSiteOf(launch, { notifyEmail: settings.notifyEmail, links, worksheets: true }),
    ),
    defaultLaunch,
    ...requestHandlingOf(settings),
    rateLimiter,
    store,
    release,
    // Supabase's hosted platform runs behind Cloudflare, which overwrites CF-Connecting-IP with the address it saw; the
    // header is read only there (or where CLIENT_IP_HEADER names one), never where any caller could write it.
    clientAddress: (c) =>
      (settings.clientIpHeader && platformClientAddress(c.req.raw.headers, settings.clientIpHeader)) ||
      getConnInfo(c).remote.address,
    onLeadStored: deliverInBackground,
    outboxTrigger: { secret: settings.outboxSecret, run: () => worker.deliverDue() },
    webhook: webhook !== undefined,
    visits,
    flushVisits: true,
    // With SUPPRESSION_SECRET (the one npm run leads:erase uses), an address that withdrew and was then erased is
    // still never replied to nor sent to the CRM.
    ...(settings.suppressionSecret
      ? { suppressionKeyOf: (email: string) => addressKeyOf(settings.suppressionSecret!, email) }
      : {}),
    // The launches' documents, as `npm run build` copied them beside this file (deployed through static_files).
    documentFiles: async (slug: string, file: string) => {
      try {
        return await Deno.readFile(new URL(`./documents/${slug}/${file}`, import.meta.url))
      } catch {
        return undefined
      }
    },
  })
}

// Each request is answered wholly by the app current when it arrives; a new version swaps in a new app for the next.
const published = createPublishedLaunches({
  bundle: launches,
  read: () => readPublishedContracts(pool),
  make: makeApp,
  refreshMs: settings.publishedRefreshMs,
})
await published.current()

const handler = async (request: Request, info: Deno.ServeHandlerInfo) =>
  (await published.current()).fetch(request, info)

if (settings.listen) {
  const server = Deno.serve(
    {
      port: settings.listen.port,
      hostname: settings.listen.host,
      onListen: ({ hostname, port }) => console.log(`Listening on http://${hostname}:${port}`),
    },
    handler,
  )
  const stop = async () => {
    await server.shutdown()
    await worker.stop()
    await store.close()
    Deno.exit(0)
  }
  Deno.addSignalListener('SIGTERM', stop)
  Deno.addSignalListener('SIGINT', stop)
} else {
  Deno.serve(handler)
}
