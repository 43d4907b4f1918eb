import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { createMorningSummaries, type SummaryLaunch } from '../../src/server/delivery/scheduled/morning-summary.ts'
import { createOutboxWorker } from '../../src/server/delivery/outbox.ts'
import { createSmtpMailer } from '../../src/server/delivery/mailers/smtp-mailer.ts'
import { createPostgresStore } from '../../src/server/store/postgres/postgres-store.ts'
import { openSqliteStore } from '../../src/server/store/sqlite/sqlite-store.ts'
import type { LeadStore, NewLead, StoredLead } from '../../src/server/store/store.ts'
import { backendsOf } from './support/backends.ts'
import { defaultLaunch, mailFor, newLead } from './support/fixtures.ts'
import { startTestSmtp, type TestSmtp } from './support/smtp.ts'

// The morning summary (launch.morningSummary): one e-mail a day to the sales manager with the day before's
// registrations, their sources and the last 7 days, in the launch's time zone, through the outbox to a real SMTP
// server;
// queued once a day whatever the restarts or servers on one database (daily_runs). Its counts are checked against
// counts
// made here, independently, from the stored leads. SQLite on disk and PostgreSQL with the real migrations.

const quiet = { info() {}, error() {} }
const manager = 'manager@example.com'
// The launch is in Vancouver, the server in Toronto: the summary's days are Vancouver's. Daylight time starts on
// 2026-03-08 there, inside the week summarized.
const timeZone = 'America/Vancouver'
const launch: SummaryLaunch = {
  slug: defaultLaunch,
  site: { name: 'Bramblewood Crossing', brokerage: 'Harbourline Realty Inc., Brokerage' },
  notifyEmail: 'sales@example.com',
  morningSummary: { to: manager, at: '07:30', timeZone },
}
const at = (iso: string) => new Date(iso)

/** Leads over ten days around the summary, of several sources and kinds, a spam one and another launch's among them. */
function seedLeads(): Array<Parameters<typeof newLead>[0]> {
  const sources: Array<Partial<NewLead>> = [
    { utm: { utm_source: 'Google' } },
    { utm: {}, referrer: 'https://www.facebook.com/some/post' },
    { utm: {}, clickIds: { fbclid: 'IwAR-1' } },
    { utm: {}, referrer: null },
    { utm: { utm_source: 'newsletter', utm_medium: 'email' } },
  ]
  const leads: Array<Parameters<typeof newLead>[0]> = []
  // Every 5 h 13 min from 2026-03-01 00:00 UTC: crosses each day's bounds at a different hour.
  for (let i = 0; i < 50; i++) {
    const createdAt = new Date(Date.parse('2026-03-01T00:00:00Z') + i * 313 * 60_000).toISOString()
    leads.push({
      createdAt,
      ...sources[i % sources.length]!,
      fields: {
        name: `Buyer ${i}`,
        email: `b${i}@example.org`,
        phone: '555-555-0100',
        isRealtor: i % 4 === 0 ? 'yes' : 'no',
      },
    })
  }
  // Just before and after Vancouver's midnight between 9 and 10 March, a suspected spam and another launch's lead.
  leads.push({ createdAt: '2026-03-10T06:59:00.000Z', utm: { utm_source: 'google' } })
  leads.push({ createdAt: '2026-03-10T07:01:00.000Z', utm: { utm_source: 'google' } })
  leads.push({ createdAt: '2026-03-09T20:00:00.000Z', suspectedSpam: true })
  leads.push({ createdAt: '2026-03-09T20:00:00.000Z', launch: 'other-launch' })
  return leads
}

/** What the summary should say, counted here from the stored leads: the day's total, kinds and sources, and 7 days. */
function expectedCounts(leads: StoredLead[], day: string) {
  const dayOf = (iso: string) =>
    new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(
      new Date(iso),
    )
  const counted = leads.filter((lead) => lead.launch === defaultLaunch && !lead.suspectedSpam)
  const sourceOf = (lead: StoredLead) =>
    lead.utm.utm_source?.toLowerCase() ??
    (lead.clickIds.fbclid
      ? 'Meta ads'
      : lead.referrer
        ? new URL(lead.referrer).hostname.replace(/^www\./, '')
        : 'Direct (no source)')
  const ofDay = counted.filter((lead) => dayOf(lead.createdAt) === day)
  const sources = new Map<string, number>()
  for (const lead of ofDay) sources.set(sourceOf(lead), (sources.get(sourceOf(lead)) ?? 0) + 1)
  const week: Array<[string, number]> = []
  for (let back = 6; back >= 0; back--) {
    const d = new Date(Date.parse(`${day}T12:00:00Z`) - back * 86_400_000).toISOString().slice(0, 10)
    week.push([d, counted.filter((lead) => dayOf(lead.createdAt) === d).length])
  }
  const realtors = ofDay.filter((lead) => lead.fields.isRealtor === 'yes').length
  return { total: ofDay.length, realtors, buyers: ofDay.length - realtors, sources: Object.fromEntries(sources), week }
}

/** What the summary's text says, read back from the received message. */
function readSummary(text: string) {
  const lines = text.split(/\r?\n/)
  const [, total, buyers, realtors] = /Registrations: (\d+) \((\d+) buyers?, (\d+) realtors?\)/.exec(text)!
  const from = lines.indexOf('Where they came from:')
  const weekAt = lines.findIndex((line) => line.startsWith('The last 7 days'))
  const pairs = (slice: string[]) =>
    slice.flatMap((line) =>
      /^ {2}(.+): (\d+)$/.exec(line)
        ? [[/^ {2}(.+): (\d+)$/.exec(line)![1]!, Number(/: (\d+)$/.exec(line)![1])] as [string, number]]
        : [],
    )
  return {
    total: Number(total),
    buyers: Number(buyers),
    realtors: Number(realtors),
    sources: Object.fromEntries(pairs(lines.slice(from + 1, weekAt))),
    week: pairs(lines.slice(weekAt + 1, weekAt + 8)).map(([d, n]) => [d.slice(-10), n] as [string, number]),
  }
}

describe.each(
  backendsOf<[], LeadStore>({
    sqlite: (file) => openSqliteStore(file, { defaultLaunch }),
    postgres: (db) => createPostgresStore(db, { defaultLaunch }),
    tables: ['outbox', 'leads', 'daily_runs', 'visit_counts'],
  }),
)('the morning summary ($name)', (backend) => {
  let smtp: TestSmtp
  const open: LeadStore[] = []
  beforeAll(async () => {
    await backend.setup()
    smtp = await startTestSmtp()
  }, 60_000)
  afterEach(async () => {
    for (const store of open.splice(0)) await store.close()
  })
  afterAll(async () => {
    await smtp?.stop()
    await backend.teardown()
  })

  async function deliver(store: LeadStore): Promise<void> {
    const mailer = createSmtpMailer({
      url: `smtp://127.0.0.1:${smtp.port}`,
      from: 'Bramblewood Crossing <no-reply@example.com>',
    })
    expect((await createOutboxWorker({ store, mailer, log: quiet, jitter: 0 }).deliverDue()).failed).toBe(0)
    await mailer.close?.()
  }

  it("sends the day before's counts once that day, with an injected clock, and again only the next day", async () => {
    const store = await backend.fresh()
    const second = await backend.reopen()
    open.push(store, second)
    for (const overrides of seedLeads()) {
      const lead = newLead(overrides)
      await store.saveLead(lead, null)
    }
    let now = at('2026-03-10T14:00:00Z') // 07:00 in Vancouver: not yet time
    const summaries = (s: LeadStore) =>
      createMorningSummaries({
        store: s,
        launches: () => [launch],
        timeZone: 'America/Toronto',
        clock: () => now,
        log: quiet,
      })
    const server = summaries(store)
    expect(await server.check()).toBe(0)

    now = at('2026-03-10T14:45:00Z') // 07:45 in Vancouver
    expect(await server.check()).toBe(1)
    // Again the same day: this server, the same server restarted, and a second server on the same database.
    expect(await server.check()).toBe(0)
    expect(await summaries(store).check()).toBe(0)
    expect(await summaries(second).check()).toBe(0)
    now = at('2026-03-11T06:00:00Z') // 23:00 in Vancouver, still 10 March
    expect(await summaries(second).check()).toBe(0)

    await deliver(store)
    const received = smtp.received.filter((mail) => mail.rcptTo.includes(manager))
    expect(received).toHaveLength(1)
    const stored = await store.listLeads(0, 1000)
    const expected = expectedCounts(stored, '2026-03-09')
    expect(expected.total).toBeGreaterThan(3)
    expect(readSummary(received[0]!.decoded)).toEqual(expected)
    expect(received[0]!.headers.get('subject')).toEqual([
      `Bramblewood Crossing: ${expected.total} registrations on Monday, March 9, 2026`,
    ])
    expect(received[0]!.decoded).toContain(launch.site.brokerage)

    // The next morning, two servers at once: one summary, of 10 March.
    now = at('2026-03-11T15:00:00Z')
    const both = await Promise.all([summaries(store).check(), summaries(second).check()])
    expect(both.reduce((a, b) => a + b, 0)).toBe(1)
    smtp.received.splice(0)
    await deliver(store)
    expect(smtp.received).toHaveLength(1)
    expect(readSummary(smtp.received[0]!.decoded)).toEqual(expectedCounts(stored, '2026-03-10'))
    const summaries10 = (await store.listMessages({ limit: 500 })).filter((m) => m.kind === 'summary')
    expect(summaries10.map((m) => [m.leadId, m.status])).toEqual([
      [null, 'sent'],
      [null, 'sent'],
    ])
  })

  it('sends nothing for a launch without launch.morningSummary', async () => {
    const store = await backend.fresh()
    open.push(store)
    await store.saveLead(newLead({ createdAt: '2026-03-09T20:00:00.000Z' }), mailFor(newLead()))
    const off = createMorningSummaries({
      store,
      launches: () => [{ ...launch, morningSummary: undefined }],
      timeZone,
      clock: () => at('2026-03-10T18:00:00Z'),
      log: quiet,
    })
    expect(await off.check()).toBe(0)
    expect((await store.listMessages({ limit: 10 })).filter((m) => m.kind === 'summary')).toEqual([])
  })
})
