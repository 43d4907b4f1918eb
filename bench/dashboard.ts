import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import type { PageConfig } from '../schema/page-config.ts'
import { createLeadsPage } from '../src/server/leads-page/leads-page.ts'
import { leadsPageLaunchOf } from '../src/server/leads-page/views.ts'
import { createPasswordCheck, openSessionStore } from '../src/server/leads-page/sessions.ts'
import { lastDays } from '../src/server/store/days.ts'
import { createPostgresStore } from '../src/server/store/postgres/postgres-store.ts'
import { openSqliteStore } from '../src/server/store/sqlite/sqlite-store.ts'
import type { LeadStore, NewLead } from '../src/server/store/store.ts'
import { defaultLaunch, newLead, readPageConfig } from '../tests/server/support/fixtures.ts'
import { startTestPostgres } from '../tests/server/support/postgres.ts'

/**
 * The leads page's dashboard on 20,000 leads (part of `npm run bench`, or alone: `npx tsx bench/dashboard.ts`): leads
 * of 3 launches over 90 days and 90 days of visit counts in a real SQLite store on disk, then GET /leads/dashboard for
 * every launch, signed in, timed from the request to the last byte (median of 7 after one warm-up); the list paged 50
 * at a time from the newest lead to the oldest (each page timed; the last ten beside all of them show keyset paging's
 * flat cost), and a search by a phone number typed in another format; then the same on PostgreSQL (a throwaway
 * cluster with the real migrations). The page's 30-day total is checked
 * against counts made independently, over the store's complete export (listLeads, what npm run leads:export writes), so
 * a fast wrong answer fails the bench.
 */

export type DashboardFigures = Record<string, number>

/**
 * One store's figures: the dashboard, a page of the list (median over all 400, newest to oldest), a search by phone.
 */
type StoreFigures = { dashboard: number; page: number; lastPages: number; search: number }

const figuresOf = (name: string, f: StoreFigures): DashboardFigures => ({
  [`dashboard on 20,000 leads, ${name} (ms)`]: f.dashboard,
  [`leads list, a page of 50 among 20,000, ${name} (ms, median)`]: f.page,
  [`leads list, the last 10 pages, ${name} (ms, median)`]: f.lastPages,
  [`leads list, a search by phone among 20,000, ${name} (ms)`]: f.search,
})

const sources: Array<Partial<NewLead>> = [
  { utm: { utm_source: 'google' } },
  { utm: {}, clickIds: { gclid: 'Cj0-bench' } },
  { utm: {}, referrer: 'https://www.facebook.com/' },
  { utm: { utm_source: 'newsletter', utm_medium: 'email', utm_campaign: 'spring' } },
  { utm: {} },
]

export async function runDashboardBench(leads = 20_000, runs = 7): Promise<DashboardFigures> {
  const dir = mkdtempSync(path.join(tmpdir(), 'vip-bench-dashboard-'))
  let sqlite: StoreFigures
  try {
    sqlite = await timeDashboard(openSqliteStore(path.join(dir, 'leads.sqlite'), { defaultLaunch }), dir, leads, runs)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
  const pg = await startTestPostgres({ empty: false })
  const pgDir = mkdtempSync(path.join(tmpdir(), 'vip-bench-dashboard-pg-'))
  try {
    const postgres = await timeDashboard(createPostgresStore(pg.db, { defaultLaunch }), pgDir, leads, runs)
    return { ...figuresOf('SQLite', sqlite), ...figuresOf('PostgreSQL', postgres) }
  } finally {
    await pg.stop()
    rmSync(pgDir, { recursive: true, force: true })
  }
}

/** Fills `store`, then times the dashboard on it (the leads page's sessions in `dir`); closes the store. */
async function timeDashboard(store: LeadStore, dir: string, leads: number, runs: number): Promise<StoreFigures> {
  const sessions = openSessionStore(path.join(dir, 'leads-page.sqlite'), 'bench password for the dashboard')
  try {
    const config = readPageConfig()
    const launches = [
      config,
      { ...config, launch: { ...config.launch, slug: 'maple-ridge' }, site: { ...config.site, name: 'Maple Ridge' } },
      { ...config, launch: { ...config.launch, slug: 'willow-park' }, site: { ...config.site, name: 'Willow Park' } },
    ] as PageConfig[]
    const now = Date.now()
    const windowStart = Date.parse(lastDays(new Date(now), 30, 'America/Toronto')[0]!.start)
    let inLastDays = 0
    for (let i = 0; i < leads; i++) {
      const createdAt = now - Math.floor((((i * 7919) % leads) / leads) * 90 * 86_400_000)
      if (createdAt >= windowStart) inLastDays++
      const lead = newLead({
        launch: launches[i % 3]!.launch.slug,
        createdAt: new Date(createdAt).toISOString(),
        fields: {
          name: `Person ${i}`,
          email: `person${i}@example.com`,
          phone: `416-555-${String(i % 10_000).padStart(4, '0')}`,
          isRealtor: i % 5 === 0 ? 'yes' : 'no',
        },
        ...sources[i % sources.length],
      })
      await store.saveLead(lead, null)
    }
    for (let d = 0; d < 90; d++) {
      const day = new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Toronto' }).format(
        new Date(now - d * 86_400_000),
      )
      await store.addVisits(
        launches.flatMap((l) =>
          ['google', '', 'newsletter'].map((source) => ({
            launch: l.launch.slug,
            day,
            source,
            visits: 400,
            visitors: 300,
          })),
        ),
      )
    }
    const page = createLeadsPage({
      checkPassword: createPasswordCheck('bench password for the dashboard'),
      audit: async () => {},
      store,
      sessions,
      launches: launches.map(leadsPageLaunchOf),
      timeZone: 'America/Toronto',
      clientIp: () => '127.0.0.1',
      signInCounts: store,
      trustProxy: 0,
      log: { info: () => {}, error: () => {} },
    })
    const headers = {
      host: 'leads.example',
      origin: 'http://leads.example',
      'content-type': 'application/x-www-form-urlencoded',
    }
    const signIn = await page.request('http://leads.example/leads/sign-in', {
      method: 'POST',
      headers,
      body: 'password=bench+password+for+the+dashboard',
    })
    const cookie = signIn.headers
      .getSetCookie()
      .find((c) => c.startsWith('leads_session='))!
      .split(';')[0]!
    // The list waits for the page's first reading of the stored phones (E.164), which would otherwise run beside the
    // timing.
    await (await page.request('http://leads.example/leads', { headers: { host: 'leads.example', cookie } })).text()
    const times: number[] = []
    let body = ''
    for (let i = 0; i <= runs; i++) {
      const started = performance.now()
      body = await (
        await page.request('http://leads.example/leads/dashboard', { headers: { host: 'leads.example', cookie } })
      ).text()
      if (i > 0) times.push(performance.now() - started)
    }
    // Counted independently, over the complete export: the last 30 days' registrations and, of those, the realtors.
    const exported = []
    for (let after = 0; ;) {
      const batch = await store.listLeads(after, 5_000)
      if (batch.length === 0) break
      exported.push(...batch)
      after = batch.at(-1)!.id
    }
    if (exported.length !== leads) throw new Error(`the export has ${exported.length} leads, the bench made ${leads}`)
    const recent = exported.filter((lead) => Date.parse(lead.createdAt) >= windowStart)
    if (Math.abs(recent.length - inLastDays) > 2)
      throw new Error(`the export has ${recent.length} leads in 30 days, the bench made ${inLastDays}`)
    // Leads made within a minute of the window's edge may fall on either side of it (the page's clock moved on).
    const shown = Number(/Last 30 days<\/h2>\s*<p class="lp-tile-number">([\d,]+)/.exec(body)?.[1]?.replace(/,/g, ''))
    if (!(Math.abs(shown - recent.length) <= 2))
      throw new Error(`the dashboard shows ${shown} registrations in 30 days, the export has ${recent.length}`)
    const get = async (target: string) =>
      (await page.request(`http://leads.example${target}`, { headers: { host: 'leads.example', cookie } })).text()
    // The list, 50 at a time from the newest to the oldest: keyset paging, so the last pages cost what the first do.
    const pageTimes: number[] = []
    for (let target: string | undefined = '/leads'; target;) {
      const started = performance.now()
      const listed = await get(target)
      pageTimes.push(performance.now() - started)
      const older = /href="\/leads\?older=([^"]+)"/.exec(listed)?.[1]
      target = older ? `/leads?older=${older}` : undefined
    }
    if (pageTimes.length !== Math.ceil(leads / 50))
      throw new Error(`the list took ${pageTimes.length} pages of 50 for ${leads} leads`)
    // A phone typed in another format than the leads' (416-555-4321): found by its E.164 reading.
    await page.request('http://leads.example/leads/search', {
      method: 'POST',
      headers: { ...headers, cookie },
      body: new URLSearchParams({ text: '(416) 555 4321' }).toString(),
    })
    const searchStarted = performance.now()
    const found = await get('/leads')
    const search = performance.now() - searchStarted
    const expected = Array.from({ length: leads }, (_, i) => i).filter((i) => i % 10_000 === 4321).length
    if ([...found.matchAll(/<h2 class="lp-card-title">/g)].length !== expected)
      throw new Error(`the search by phone did not find the ${expected} leads with 416-555-4321`)
    const tenth = (value: number) => Math.round(value * 10) / 10
    return {
      dashboard: tenth(medianOf(times)),
      page: tenth(medianOf(pageTimes)),
      lastPages: tenth(medianOf(pageTimes.slice(-10))),
      search: tenth(search),
    }
  } finally {
    sessions.close()
    await store.close()
  }
}

function medianOf(values: number[]): number {
  return [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  console.log(JSON.stringify(await runDashboardBench(), null, 2))
}
