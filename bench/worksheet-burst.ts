import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { serve } from '@hono/node-server'
import { localAnonKey } from '../schema/local-defaults.ts'
import { functionLaunchOf } from '../schema/function-launch.ts'
import type { PageConfig } from '../schema/page-config.ts'
import { wallClockInstant } from '../schema/phase-schedule.ts'
import { createApp } from '../src/server/app.ts'
import { worksheetUrl } from '../src/server/delivery/document-links.ts'
import { launchSiteOf } from '../src/server/site/launch-site.ts'
import type { ReleaseStore } from '../src/server/store/release.ts'
import { openSqliteStore } from '../src/server/store/sqlite/sqlite-store.ts'
import { newLead } from '../tests/server/support/fixtures.ts'

/*
 * "1,000 worksheets received in a burst from 50 connections, all stored once, p99 reported" (issue 45): the function's
 * app on a loopback port (@hono/node-server, as the Node server serves it) with SQLite on disk, one realtor's signed
 * link, and `count` worksheet form posts sent by `connections` clients at once, each as the page's form sends it
 * (Origin of the page). Every answer must be the 303 of a stored worksheet; the store must then hold exactly `count`
 * worksheets numbered 1…count, each with its two confirmations and its CRM call queued.
 */

/** The figures of a burst. */
export type WorksheetBurst = {
  sent: number
  stored: number
  numbersOnce: boolean
  queued: number
  seconds: number
  perSecond: number
  p50Ms: number
  p99Ms: number
  maxMs: number
  /** CPU time of this process (server, store and the clients' fetch) per worksheet, in ms. */
  cpuMsPerWorksheet: number
}

const secret = 'bench-links-secret-0123456789'

function benchConfig(): PageConfig {
  const shared = JSON.parse(readFileSync('page.config.json', 'utf8')) as PageConfig
  return {
    ...shared,
    launch: { ...shared.launch, timeZone: 'America/Toronto' },
    phases: { current: 'vip', list: [{ name: 'vip', worksheets: { opens: '2026-03-14T10:00' } }] },
  }
}

/** Sends the burst and checks the store; the data directory is removed afterwards. */
export async function runWorksheetBurst(count = 1000, connections = 50): Promise<WorksheetBurst> {
  const dir = mkdtempSync(path.join(tmpdir(), 'vip-worksheet-burst-'))
  const file = path.join(dir, 'leads.sqlite')
  const config = benchConfig()
  // As the Node server opens it (node-store.ts): registrations on the writer thread, the release on the store's own
  // connection.
  const leads = openSqliteStore(file, { defaultLaunch: config.launch.slug, writerThread: true })
  const release = leads.release
  const now = new Date(wallClockInstant('2026-03-14T11:00', 'America/Toronto')!)
  const base = 'http://127.0.0.1/functions/v1/send-contact-email'
  const links = { secret, baseUrl: base }
  const app = createApp({
    launches: [launchSiteOf(functionLaunchOf(config), { links, worksheets: true })],
    defaultLaunch: config.launch.slug,
    store: leads,
    release,
    clock: () => now,
    anonKeys: [localAnonKey],
    rateLimitPerMinute: 0,
    log: { info() {}, error: (m, e) => console.error(m, e ?? '') },
    webhook: true,
  })
  const server = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 })
  await new Promise((resolve) => server.once('listening', resolve))
  const port = (server.address() as { port: number }).port
  try {
    // Node's fetch opens a connection for each request in flight to one origin: 50 clients, 50 connections.
    return await burst({ count, connections, port, leads, release, links, slug: config.launch.slug })
  } finally {
    await new Promise((resolve) => server.close(resolve))
    await leads.close()
    rmSync(dir, { recursive: true, force: true })
  }
}

type BurstParts = {
  count: number
  connections: number
  port: number
  leads: ReturnType<typeof openSqliteStore>
  release: ReleaseStore
  links: { secret: string; baseUrl: string }
  slug: string
}

async function burst(parts: BurstParts): Promise<WorksheetBurst> {
  const { count, connections, port, leads, release, links, slug } = parts
  const realtor = crypto.randomUUID()
  await leads.saveLead(
    newLead({
      submissionId: realtor,
      launch: slug,
      createdAt: new Date().toISOString(),
      fields: { name: 'Rita Agent', email: 'rita@agents.example.com', isRealtor: 'yes' },
    }),
    null,
  )
  const lots = Array.from({ length: 40 }, (_, i) => ({
    lot: `Lot ${i + 1}`,
    release: 'Phase 1',
    models: ['Maple', 'Birch'],
    frontage: '40 ft',
    price: 899_900,
    status: 'available' as const,
  }))
  await release.importLots(slug, lots, new Date().toISOString())
  const link = new URL(await worksheetUrl(links, realtor))
  const url = `http://127.0.0.1:${port}${link.pathname}${link.search}`
  const origin = `http://127.0.0.1:${port}`
  const body = (n: number) =>
    new URLSearchParams({
      clientName: `Client ${n}`,
      clientEmail: `client${n}@example.com`,
      clientPhone: '416-555-0199',
      choice1: `lot=Lot+${1 + (n % 40)}&model=Maple`,
      choice2: `lot=Lot+${1 + ((n + 7) % 40)}&model=Birch`,
      choice3: 'model=Birch',
      deposit: 'yes',
      notes: '',
    }).toString()
  const latencies: number[] = []
  let next = 0
  let failed = 0
  const started = performance.now()
  const cpuBefore = process.cpuUsage()
  const client = async () => {
    while (next < count) {
      const n = next++
      const t0 = performance.now()
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin },
        body: body(n),
        redirect: 'manual',
      })
      await res.arrayBuffer()
      latencies.push(performance.now() - t0)
      if (res.status !== 303) failed++
    }
  }
  await Promise.all(Array.from({ length: connections }, client))
  const seconds = (performance.now() - started) / 1000
  const cpu = process.cpuUsage(cpuBefore)
  if (failed > 0) throw new Error(`${failed} of ${count} worksheets were not answered 303.`)
  const stored = await release.listWorksheets(slug)
  const numbers = new Set(stored.map((w) => w.number))
  const queued = (await leads.countMessages()).pending
  latencies.sort((a, b) => a - b)
  const at = (q: number) =>
    Math.round(latencies[Math.min(latencies.length - 1, Math.ceil(q * latencies.length) - 1)]! * 10) / 10
  return {
    sent: count,
    stored: stored.length,
    numbersOnce: numbers.size === stored.length && Math.max(...numbers) === stored.length,
    queued,
    seconds: Math.round(seconds * 100) / 100,
    perSecond: Math.round(count / seconds),
    p50Ms: at(0.5),
    p99Ms: at(0.99),
    maxMs: at(1),
    cpuMsPerWorksheet: Math.round(((cpu.user + cpu.system) / 1000 / count) * 100) / 100,
  }
}
