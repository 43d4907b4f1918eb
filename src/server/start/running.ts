import type { Server } from 'node:http'
import type { Hono } from 'hono'
import type { NodeServerConfig } from '../env.ts'
import type { MountedLeadsPage } from '../leads-page/mount-leads-page.ts'
import { listen } from '../node-listen.ts'
import {
  defaultConnectionLimits,
  type NodeServerOptions,
  type RunningServer,
  type ServedLaunch,
  type StudioMount,
} from '../node-options.ts'
import { StartupError, type DailyJob, type NodeStore } from '../node-store.ts'
import { brokenLine } from '../site/broken-launch.ts'
import { createForwardedHeaderGuard } from '../site/forwarded-headers.ts'
import type { LiveLaunch } from '../site/live-launches.ts'
import { statusOf } from '../site/publisher.ts'
import type { VisitCounter } from '../site/visit-counter.ts'
import type { NodeMail } from './mail.ts'
import type { NodePublishing } from './publishing.ts'

/** Everything start-up made that must be stopped: closed in order at close, or on a failed listen. */
export type NodeParts = {
  retention: DailyJob | undefined
  scheduled: { start(everyMs: number): void; stop(): void }
  publishing: NodePublishing
  mail: NodeMail
  leadsPage: MountedLeadsPage | undefined
  studio: StudioMount | undefined
  visits: VisitCounter
  opened: NodeStore
}

/** Closes what the start-up made, when the server could not listen: nothing was started yet. */
async function closeUnstarted(parts: NodeParts): Promise<void> {
  parts.retention?.stop()
  parts.publishing.stopSharing()
  await parts.publishing.close()
  await parts.mail.alerts.stop()
  parts.leadsPage?.close()
  parts.studio?.close()
  await parts.visits.close()
  await parts.opened.close()
}

/**
 * Listens with the site (X-Forwarded-Host/-Proto only from the proxies TRUST_PROXY counts, only naming a launch's
 * host); on failure closes what was made and throws StartupError saying what to do.
 */
export async function listenSite(
  site: Hono,
  {
    settings,
    launches,
    options,
    parts,
  }: { settings: NodeServerConfig; launches: ServedLaunch[]; options: NodeServerOptions; parts: NodeParts },
): Promise<Server> {
  const guardForwarded = createForwardedHeaderGuard({
    proxies: settings.proxies,
    launches: launches.map((launch) => ({
      slug: launch.slug,
      canonicalUrl: launch.config.seo.canonicalUrl,
      origins: launch.config.launch.origins,
    })),
  })
  const limits = { ...defaultConnectionLimits, ...options.connections }
  try {
    return await listen(
      (request, env) => site.fetch(guardForwarded(request, env.incoming.socket.remoteAddress), env),
      settings.port,
      settings.host,
      limits,
    )
  } catch (error) {
    await closeUnstarted(parts)
    const code = (error as { code?: string }).code
    throw new StartupError(
      code === 'EADDRINUSE'
        ? `Port ${settings.port} on ${settings.host} is already in use: stop what uses it, or set PORT.`
        : `Cannot listen on ${settings.host}:${settings.port}: ${(error as Error).message}`,
    )
  }
}

/** Starts what runs once the server listens: delivery, the scheduled mail, the alerts, the static host. */
export function startParts(parts: NodeParts, settings: NodeServerConfig): void {
  parts.mail.delivery.start()
  parts.scheduled.start(60_000)
  parts.mail.alerts.start(Math.min(30_000, settings.retry.minDelayMs))
  parts.publishing.start()
}

/** Requests in flight finish; idle keep-alive connections are closed; stragglers are cut after 10 s. Then the rest. */
async function closeStarted(parts: NodeParts, server: Server): Promise<void> {
  parts.retention?.stop()
  parts.scheduled.stop()
  parts.publishing.stopSharing()
  const cut = setTimeout(() => server.closeAllConnections(), 10_000)
  await new Promise<void>((resolve) => server.close(() => resolve()))
  clearTimeout(cut)
  await parts.publishing.close()
  await parts.mail.alerts.stop()
  await parts.mail.delivery.stop()
  await parts.mail.mailer.close?.()
  parts.leadsPage?.close()
  parts.studio?.close()
  await parts.visits.close()
  await parts.opened.close()
}

function displayHost(host: string): string {
  return host.includes(':') ? `[${host}]` : host
}

/** What the running server gives its caller. */
export type RunningDeps = {
  settings: NodeServerConfig
  server: Server
  parts: NodeParts
  initial: readonly LiveLaunch[]
  defaultLaunch: LiveLaunch
  summary: string[]
}

/** The real port (PORT=0 picks one). */
export function portOf(server: Server, settings: NodeServerConfig): number {
  const address = server.address()
  return typeof address === 'object' && address ? address.port : settings.port
}

/** The running server: its addresses, its launches at start, its publisher, and close (once, however often called). */
export async function runningServerOf({
  settings,
  server,
  parts,
  initial,
  defaultLaunch,
  summary,
}: RunningDeps): Promise<RunningServer> {
  const port = portOf(server, settings)
  let closing: Promise<void> | undefined
  return {
    url: `http://${displayHost(settings.host)}:${port}`,
    leadsPage: (await parts.leadsPage?.state()) ?? 'off',
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
    publisher: parts.publishing.publishing,
    close() {
      closing ??= closeStarted(parts, server)
      return closing
    },
  }
}
