import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { functionLaunchOf, type FunctionPhases } from '../../schema/function-launch.ts'
import { wallClockInstant } from '../../schema/phase-schedule.ts'
import { composeAnnouncement, type AnnouncementMailSettings } from '../../src/server/delivery/announcement.ts'
import { createOutboxWorker } from '../../src/server/delivery/outbox.ts'
import {
  createPhaseAnnouncements,
  phaseAnnouncementKey,
  type PhaseLaunch,
} from '../../src/server/delivery/scheduled/phase-announcements.ts'
import { createSmtpMailer } from '../../src/server/delivery/mailers/smtp-mailer.ts'
import { impliedConsentEnd } from '../../src/server/store/consent.ts'
import { createPostgresStore } from '../../src/server/store/postgres/postgres-store.ts'
import { openSqliteStore } from '../../src/server/store/sqlite/sqlite-store.ts'
import { addressKeyOf } from '../../src/server/store/suppression.ts'
import type { LeadStore } from '../../src/server/store/store.ts'
import { backendsOf } from './support/backends.ts'
import { defaultLaunch, newLead, readPageConfig } from './support/fixtures.ts'
import { startTestSmtp, type TestSmtp } from './support/smtp.ts'

// A phase's announcement (issue 24): a launch in `vip` whose `public` phase starts at T (10:00 on 28 November 2026 in
// Toronto) with an announcement. With a clock the test controls: nothing before T; after T it reaches exactly the
// registrants who may receive marketing at a real SMTP server, once, whatever the servers on one database or restarts;
// a start more than 24 hours past when first seen is not sent. And the author's test copy goes through the outbox,
// retried after the SMTP server refused its first attempt. SQLite on disk and PostgreSQL with the real migrations.

const timeZone = 'America/Toronto'
const T = wallClockInstant('2026-11-28T10:00', timeZone)!
const config = readPageConfig()
const secret = 'an unsubscribe secret of the test'
const suppressionSecret = 'a suppression secret of the test'
const draft = {
  subject: 'Public release: the sales centre opens today at 10',
  text: 'Pricing and floor plans are public from today.\n\nThe sales centre is open until 5.',
}
const phases: FunctionPhases = {
  current: 'vip',
  timeZone,
  list: [
    { name: 'coming-soon' },
    { name: 'vip' },
    { name: 'public', starts: '2026-11-28T10:00', announcement: draft },
    { name: 'sold-out' },
  ],
}
const launch: PhaseLaunch = { slug: defaultLaunch, phases }

function mailSettings(): AnnouncementMailSettings {
  const contract = functionLaunchOf(config)
  return {
    reply: contract.reply!,
    links: { secret, baseUrl: 'http://site.example/functions/v1/send-contact-email' },
    siteName: contract.site.name,
    brokerage: contract.site.brokerage,
    siteEmail: contract.site.email,
    privacy: contract.privacy,
  }
}

type Log = { info: string[]; error: string[] }

describe.each(
  backendsOf<[], LeadStore>({
    sqlite: (file) => openSqliteStore(file, { defaultLaunch }),
    postgres: (db) => createPostgresStore(db, { defaultLaunch }),
    tables: ['outbox', 'announcements', 'leads', 'suppressions'],
  }),
)("a phase's announcement at its start ($name)", (backend) => {
  let smtp: TestSmtp
  const open: LeadStore[] = []
  beforeAll(async () => {
    await backend.setup()
    smtp = await startTestSmtp()
  }, 60_000)
  afterEach(async () => {
    for (const store of open.splice(0)) await store.close()
    smtp.received.length = 0
  })
  afterAll(async () => {
    await smtp?.stop()
    await backend.teardown()
  })

  let now = new Date(T - 60_000)
  const announcer = (
    store: LeadStore,
    log: Log,
    mailOf: (slug: string) => AnnouncementMailSettings | undefined = () => mailSettings(),
  ) =>
    createPhaseAnnouncements({
      store,
      launches: () => [launch],
      timeZone: 'America/Vancouver', // the launch's own time zone (phases.timeZone) wins over the server's
      mailOf,
      suppressionKeyOf: (email) => addressKeyOf(suppressionSecret, email),
      clock: () => now,
      log: { info: (m) => log.info.push(m), error: (m) => log.error.push(m) },
    })
  const newLog = (): Log => ({ info: [], error: [] })

  async function deliver(store: LeadStore, expectFailed = 0) {
    const mailer = createSmtpMailer({
      url: `smtp://127.0.0.1:${smtp.port}`,
      from: 'Bramblewood Crossing <no-reply@example.com>',
    })
    const worker = createOutboxWorker({
      store,
      mailer,
      clock: () => now,
      jitter: 0,
      retry: { minDelayMs: 30_000, maxDelayMs: 60_000 },
      log: { info() {}, error() {} },
    })
    const report = await worker.deliverDue()
    await mailer.close?.()
    expect(report.failed).toBe(expectFailed)
    return report
  }

  async function seed(store: LeadStore) {
    const lead = async (email: string, createdAt: string, consentKind: 'express' | 'implied') =>
      (
        await store.saveLead(
          newLead({
            createdAt,
            consentKind,
            impliedConsentUntil: impliedConsentEnd(createdAt),
            fields: { name: 'Pat Example', email, phone: '555-555-0100', isRealtor: 'no' },
          }),
          null,
        )
      ).lead
    return {
      express: await lead('ada@example.com', '2026-01-10T10:00:00.000Z', 'express'),
      recent: await lead('grace@example.org', '2026-09-01T10:00:00.000Z', 'implied'),
      // Implied consent ended on 20 November 2026, before T.
      older: await lead('hedy@example.com', '2026-05-20T10:00:00.000Z', 'implied'),
    }
  }

  it('never sends it again when its start is moved after it went, on this server or after a restart', async () => {
    const store = await backend.fresh()
    open.push(store)
    await seed(store)
    let served: PhaseLaunch = launch
    const log = newLog()
    const announcements = createPhaseAnnouncements({
      store,
      launches: () => [served],
      timeZone,
      mailOf: () => mailSettings(),
      suppressionKeyOf: (email) => addressKeyOf(suppressionSecret, email),
      clock: () => now,
      log: { info: (m) => log.info.push(m), error: (m) => log.error.push(m) },
    })
    now = new Date(T + 60_000)
    expect(await announcements.check()).toBe(1)
    await deliver(store)
    expect(smtp.received).toHaveLength(2)
    smtp.received.length = 0

    // The coordinator moves the public phase's start a day later, after its announcement went.
    const moved = '2026-11-29T10:00'
    served = {
      slug: defaultLaunch,
      phases: { ...phases, list: phases.list.map((p) => (p.name === 'public' ? { ...p, starts: moved } : p)) },
    }
    const movedAt = wallClockInstant(moved, timeZone)!
    now = new Date(movedAt + 60_000)
    expect(await announcements.check()).toBe(0)
    const restarted = await backend.reopen()
    open.push(restarted)
    expect(await announcer(restarted, newLog()).check()).toBe(0)
    await deliver(store)
    expect(smtp.received).toEqual([])
    expect((await store.listAnnouncements([defaultLaunch])).map((a) => a.author)).toEqual(['Phase public start'])
    expect(log.info.join('\n')).toMatch(/already went .*an owner can send it again from the Announcements tab/)
  })

  it('queues nothing before T, then once after T to the express and the recent implied registrant, whatever the servers', async () => {
    const store = await backend.fresh()
    const second = await backend.reopen()
    open.push(store, second)
    const leads = await seed(store)
    const log = newLog()
    const first = announcer(store, log)
    now = new Date(T - 60_000)
    expect(await first.check()).toBe(0)
    expect(await store.listAnnouncements(undefined)).toEqual([])

    // A minute after T, two servers on one database check at once: one announcement.
    now = new Date(T + 60_000)
    const both = await Promise.all([first.check(), announcer(second, log).check()])
    expect(both[0] + both[1]).toBe(1)
    // Again later: the same server, a restart, the second server.
    now = new Date(T + 3_600_000)
    expect(await first.check()).toBe(0)
    const restarted = await backend.reopen()
    open.push(restarted)
    expect(await announcer(restarted, newLog()).check()).toBe(0)
    expect(await announcer(second, newLog()).check()).toBe(0)

    const announcements = await store.listAnnouncements([defaultLaunch])
    expect(announcements.map((a) => [a.key, a.subject, a.author, a.recipients])).toEqual([
      [await phaseAnnouncementKey(defaultLaunch, 'public', T), draft.subject, 'Phase public start', 2],
    ])
    await deliver(store)
    expect(smtp.received.flatMap((m) => m.rcptTo).sort()).toEqual(['ada@example.com', 'grace@example.org'])
    for (const mail of smtp.received) {
      expect(mail.headers.get('subject')).toEqual([draft.subject])
      expect(mail.headers.get('list-unsubscribe')?.[0]).toMatch(
        /^<http:\/\/site\.example\/functions\/v1\/send-contact-email\/unsubscribe/,
      )
      expect(mail.decoded).toContain('The sales centre is open until 5.')
      expect(mail.decoded).toContain(config.site.brokerage)
    }
    // Each lead's history shows it; the one whose implied consent ended has none.
    expect((await store.listLeadAnnouncements(leads.express.id)).map((a) => [a.subject, a.author, a.status])).toEqual([
      [draft.subject, 'Phase public start', 'sent'],
    ])
    expect(await store.listLeadAnnouncements(leads.older.id)).toEqual([])
    expect(
      log.info.filter((m) => m.startsWith(`Announcement of phase public of ${defaultLaunch} queued to 2 registrants`)),
    ).toHaveLength(1)
    expect(log.info.join('\n')).not.toMatch(/@example/)
  })

  it('does not send a phase whose start is more than 24 hours past when first seen, and says so', async () => {
    const store = await backend.fresh()
    open.push(store)
    await seed(store)
    const log = newLog()
    now = new Date(T + 25 * 3_600_000)
    const late = announcer(store, log)
    expect(await late.check()).toBe(0)
    expect(await late.check()).toBe(0)
    expect(await store.listAnnouncements(undefined)).toEqual([])
    expect(log.info.filter((m) => m.includes('not sent'))).toHaveLength(1)
    expect(log.info[0]).toContain('more than 24 hours before this server read it')
    // Within 24 hours of T it goes.
    now = new Date(T + 23 * 3_600_000)
    expect(await announcer(store, newLog()).check()).toBe(1)
  })

  it('sends nothing for a launch without a reply, and says it cannot', async () => {
    const store = await backend.fresh()
    open.push(store)
    await seed(store)
    const log = newLog()
    now = new Date(T + 60_000)
    const noReply = announcer(store, log, () => undefined)
    expect(await noReply.check()).toBe(0)
    expect(await noReply.check()).toBe(0)
    expect(await store.listAnnouncements(undefined)).toEqual([])
    expect(log.error).toHaveLength(1)
    expect(log.error[0]).toContain('cannot be sent: the launch\'s page.config.json has no "reply"')
  })

  it("delivers the author's test copy through the outbox, retried after the SMTP server refused the first attempt", async () => {
    const store = await backend.fresh()
    open.push(store)
    now = new Date(T)
    const mail = (await composeAnnouncement(draft, 'test', { testTo: 'editor@example.com' }, mailSettings()))!
    await store.queueTestAnnouncement(mail, now)
    // 450 (this mailbox, try later): the message's own failure, counted; a 421 or 451 would slow the whole worker
    // down instead, putting the message off without counting an attempt.
    smtp.refuseAll(450)
    expect((await deliver(store, 1)).sent).toBe(0)
    smtp.refuseAll(undefined)
    expect(smtp.received).toEqual([])
    const [pending] = await store.listMessages({ limit: 10 })
    expect([pending!.kind, pending!.leadId, pending!.status, pending!.attempts]).toEqual([
      'announcement',
      null,
      'pending',
      1,
    ])
    now = new Date(T + 61_000)
    expect((await deliver(store)).sent).toBe(1)
    expect(smtp.received.map((m) => m.rcptTo)).toEqual([['editor@example.com']])
    expect(smtp.received[0]!.headers.get('subject')).toEqual([`[Test] ${draft.subject}`])
    expect((await store.listMessages({ limit: 10 })).map((m) => m.status)).toEqual(['sent'])
    // A test copy is no announcement to the list.
    expect(await store.listAnnouncements(undefined)).toEqual([])
  })
})
