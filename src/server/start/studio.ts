import type { Context, Hono } from 'hono'
import type { Mailer } from '../delivery/mailer.ts'
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
  mailer: Mailer
  clientAddress: ClientAddressOf
  live: LiveLaunches
}

/** Sends the studio's plain-text mail (invitations, sign-in links) through SMTP; absent without SMTP_URL. */
function studioMailOf(settings: NodeServerConfig, mailer: Mailer): StudioHost['sendMail'] {
  if (settings.mail.kind !== 'smtp') return undefined
  const unique = () => `${Date.now()}-${Math.random().toString(36).slice(2)}`
  return (mail) =>
    mailer.send({
      ...mail,
      html: '',
      messageId: `<studio-${unique()}@localhost>`,
      idempotencyKey: `studio-${unique()}`,
    })
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
  const studio = await options.studio({
    dataDir: deps.dataDir,
    pool: deps.opened.database,
    publisher: deps.publishing,
    signInCounts: deps.opened.store,
    timeZone: settings.timeZone,
    clock: options.clock ?? (() => new Date()),
    launchHosts: () => launchHostsOf(deps.live),
    secureCookies: settings.trustProxy > 0,
    clientAddress: (c) => deps.clientAddress(c) ?? 'unknown',
    sendMail: studioMailOf(settings, deps.mailer),
  })
  // Handed over whole: the studio's own router (where /studio/ and /studio are one route) and its own 404s.
  const toStudio = (c: Context) => studio.app.fetch(c.req.raw, c.env)
  site.all('/studio', toStudio)
  site.all('/studio/*', toStudio)
  return studio
}
