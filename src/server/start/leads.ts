import type { Hono } from 'hono'
import { announcementMailOf } from '../delivery/announcement.ts'
import type { DeliverySupervisor } from '../delivery-supervisor.ts'
import { createScheduledMail } from '../delivery/scheduled/phase-announcements.ts'
import type { NodeServerConfig } from '../env.ts'
import { mountLeadsPage, type MountedLeadsPage } from '../leads-page/mount-leads-page.ts'
import type { StudioMount } from '../node-options.ts'
import { leadsPageLaunchesOfLive } from '../leads-page/views.ts'
import type { ClientAddressOf } from './function.ts'
import type { ReplyLinks } from './mail.ts'
import type { NodeStore } from '../node-store.ts'
import type { LiveLaunches } from '../site/live-launches.ts'
import type { AddressKey } from '../store/store.ts'
import type { LeadsWorksheets } from '../leads-page/leads-csv.ts'

/** What the leads page and the scheduled mail need from the server. */
export type NodeLeadsDeps = {
  settings: NodeServerConfig
  clock: (() => Date) | undefined
  dataDir: string
  opened: NodeStore
  live: LiveLaunches
  links: ReplyLinks
  delivery: DeliverySupervisor
  webhook: boolean
  suppressionKeyOf: (email: string) => Promise<AddressKey>
  clientAddress: ClientAddressOf
  /** The realtors' worksheets for the leads page (the release store). */
  worksheets?: LeadsWorksheets | undefined
}

/** Announcements (the leads page's, a phase's) speak with each launch's reply and sign its links the same way. */
function announcementsOf({ live, links, suppressionKeyOf }: NodeLeadsDeps) {
  return {
    mailOf: (slug: string) => announcementMailOf(live.current().get(slug)?.version?.contract, links.signerOf),
    suppressionKeyOf,
  }
}

/** The leads page at /leads: studio accounts (their sign-in and audit log come from the studio) and LEADS_PASSWORD. */
export function mountNodeLeadsPage(
  site: Hono,
  deps: NodeLeadsDeps,
  studio: StudioMount | undefined,
): MountedLeadsPage | undefined {
  const { settings, opened } = deps
  // The studio's host check stands before the leads page (a host that is neither the studio's nor a launch's).
  if (studio?.hostGate) site.use('/leads', studio.hostGate).use('/leads/*', studio.hostGate)
  return mountLeadsPage(site, {
    dataDir: deps.dataDir,
    pool: opened.database,
    password: settings.leadsPassword,
    studio: studio?.leads,
    store: opened.store,
    launches: leadsPageLaunchesOfLive(() => deps.live.current()),
    webhook: deps.webhook,
    onQueued: () => deps.delivery.kick(),
    announcements: announcementsOf(deps),
    timeZone: settings.timeZone,
    trustProxy: settings.trustProxy,
    clientIp: (c) => deps.clientAddress(c) ?? 'unknown',
    worksheets: deps.worksheets,
  })
}

/**
 * The morning summaries (launch.morningSummary), once a day among all servers, and each phase's announcement once at
 * its start (delivery/scheduled/phase-announcements.ts). Started once the server listens.
 */
export function createNodeScheduledMail(deps: NodeLeadsDeps) {
  const { settings } = deps
  return createScheduledMail({
    store: deps.opened.store,
    clock: deps.clock,
    timeZone: settings.timeZone,
    onQueued: () => deps.delivery.kick(),
    launches: () =>
      deps.live
        .current()
        .launches.filter((launch) => launch.version !== undefined)
        .map(({ version: v }) => ({
          ...v!.contract,
          notifyEmail: settings.notifyEmail ?? v!.contract.notifyEmail,
        })),
    ...announcementsOf(deps),
  })
}
