import { randomUUID } from 'node:crypto'
import type { Context, Hono } from 'hono'
import type { DeliverySupervisor } from '../delivery-supervisor.ts'
import type { NodeServerConfig } from '../env.ts'
import type { ClientAddressOf } from './function.ts'
import type { NodeServerOptions, StudioHost, StudioMount } from '../node-options.ts'
import type { NodeStore } from '../node-store.ts'
import type { LaunchPublisher } from '../site/launch-publisher.ts'
import type { LiveLaunches } from '../site/live-launches.ts'

/** What the studio is given by the server. */
export type NodeStudioDeps = {
  settings: NodeServerConfig
  options: NodeServerOptions
  dataDir: string
  opened: NodeStore
  publishing: LaunchPublisher
  delivery: Pick<DeliverySupervisor, 'kick'>
  clientAddress: ClientAddressOf
  live: LiveLaunches
}

/**
 * Queues the studio's plain-text mail (invitations, reset links) in the outbox (kind 'account'), kicking its worker:
 * sent by SMTP, retried like every message, and the request answers at once. Absent without SMTP_URL.
 */
function studioMailOf(deps: NodeStudioDeps, clock: () => Date): StudioHost['sendMail'] {
  if (deps.settings.mail.kind !== 'smtp') return undefined
  return async (mail) => {
    const id = randomUUID()
    const message = { ...mail, html: '', messageId: `<studio-${id}@localhost>`, idempotencyKey: `studio-${id}` }
    await deps.opened.store.queueAccountMail(message, clock())
    deps.delivery.kick()
  }
}

/** The host names the launches declare now (`<slug>.localhost`, their origins): the studio answers on them. */
function launchHostsOf(live: LiveLaunches): string[] {
  return live
    .current()
    .launches.flatMap((launch) => [
      `${launch.slug}.localhost`,
      ...(launch.version?.contract.origins ?? launch.addresses ?? []).flatMap((o) =>
        URL.canParse(o) ? [new URL(o).host] : [],
      ),
    ])
}

/**
 * The studio at /studio, first on the site: it sets its own security headers (its CSP differs from the pages').
 * Absent when the entry gives no studio.
 */
export async function mountStudio(site: Hono, deps: NodeStudioDeps): Promise<StudioMount | undefined> {
  const { settings, options } = deps
  if (!options.studio) return undefined
  const clock = options.clock ?? (() => new Date())
  const studio = await options.studio({
    dataDir: deps.dataDir,
    pool: deps.opened.database,
    publisher: deps.publishing,
    signInCounts: deps.opened.store,
    release: deps.opened.release,
    timeZone: settings.timeZone,
    clock,
    launchHosts: () => launchHostsOf(deps.live),
    secureCookies: settings.trustProxy > 0,
    clientAddress: (c) => deps.clientAddress(c) ?? 'unknown',
    sendMail: studioMailOf(deps, clock),
  })
  // Handed over whole: the studio's own router (where /studio/ and /studio are one route) and its own 404s.
  const toStudio = (c: Context) => studio.app.fetch(c.req.raw, c.env)
  site.all('/studio', toStudio)
  site.all('/studio/*', toStudio)
  return studio
}
