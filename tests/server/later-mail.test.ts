import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { contactFunctionPath } from '../../schema/function-path.ts'
import { functionLaunchOf } from '../../schema/function-launch.ts'
import { localAnonKey } from '../../schema/local-defaults.ts'
import type { PageConfig } from '../../schema/page-config.ts'
import { wallClockInstant } from '../../schema/phase-schedule.ts'
import { createApp } from '../../src/server/app.ts'
import { composingLaunchOf, createLaterComposer } from '../../src/server/compose-later.ts'
import { isLaterMail } from '../../src/server/store/messages.ts'
import type { Mailer } from '../../src/server/delivery/mailer.ts'
import { createOutboxWorker } from '../../src/server/delivery/outbox.ts'
import { superviseDelivery } from '../../src/server/delivery-supervisor.ts'
import { launchSiteOf, type LaunchSite } from '../../src/server/site/launch-site.ts'
import { openSqliteStore } from '../../src/server/store/sqlite/sqlite-store.ts'
import { addressKeyOf } from '../../src/server/store/suppression.ts'
import type { LeadStore, OutboxJob, OutgoingMail } from '../../src/server/store/store.ts'
import { finished, launchSite, readPageConfig, registration } from './support/fixtures.ts'

// The Node server queues a new lead's notification and reply as what to send; its delivery process composes them when
// it sends them (src/server/compose-later.ts). What it composes must be what the function would have composed
// with the lead: the same e-mail, byte for byte, whatever the lead's kind and phase.

const dir = mkdtempSync(path.join(tmpdir(), 'vip-later-mail-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const timeZone = 'America/Toronto'
const T = wallClockInstant('2026-04-18T10:00', timeZone)!
const config: PageConfig = (() => {
  const shared = readPageConfig()
  const list = shared.phases!.list.map((phase) =>
    phase.name === 'public' ? { ...phase, starts: '2026-04-18T10:00' } : phase,
  )
  return { ...shared, launch: { ...shared.launch, timeZone }, phases: { current: 'vip', list } }
})()
const site: LaunchSite = launchSite(config, {
  notifyEmail: 'sales@example.com',
  links: { secret: 'x'.repeat(32), baseUrl: `https://bramblewood.example.com${contactFunctionPath}` },
})
const slug = config.launch.slug

function storeAt(name: string): LeadStore {
  return openSqliteStore(path.join(dir, `${name}-${crypto.randomUUID()}.sqlite`), { defaultLaunch: slug })
}

/** Registers `bodies` at their times with one app, composing now or at delivery, and returns its store. */
async function registered(
  bodies: Array<{ at: number; body: Record<string, unknown> }>,
  composeAtDelivery: boolean,
): Promise<LeadStore> {
  const store = storeAt(composeAtDelivery ? 'later' : 'now')
  let now = new Date(0)
  const app = createApp({
    launches: [site],
    defaultLaunch: slug,
    store,
    clock: () => now,
    anonKeys: [localAnonKey],
    rateLimitPerMinute: 0,
    timeZone,
    composeAtDelivery,
    log: { info() {}, error() {} },
  })
  for (const { at, body } of bodies) {
    now = new Date(at)
    const res = await app.request(`http://fn.test${contactFunctionPath}`, {
      method: 'POST',
      headers: { apikey: localAnonKey, 'content-type': 'application/json', 'user-agent': 'Mozilla/5.0 (test)' },
      body: JSON.stringify(body),
    })
    expect(res.status).toBe(200)
  }
  return store
}

const composer = (store: LeadStore, launches: LaunchSite[] = [site]) =>
  createLaterComposer({
    store,
    launchOf: (s) => launches.map((l) => composingLaunchOf(l, timeZone)).find((l) => l.site.slug === s),
  })

async function mailsOf(store: LeadStore): Promise<OutboxJob[]> {
  return (await store.claimDueMail(new Date(T + 86_400_000), 100, 60_000)).filter((job) => job.kind !== 'webhook')
}

describe("a lead's notification and reply composed when sent", () => {
  const bodies = [
    { at: T - 60_000, body: registration({ name: 'Jane Buyer', email: 'jane@example.com' }) },
    {
      at: T - 30_000,
      body: registration({
        name: 'Riley Realtor',
        email: 'riley@example.com',
        isRealtor: 'yes',
        brokerage: 'Example Realty Inc., Brokerage',
        recoNumber: '5550123',
        forClient: 'no',
      }),
    },
    { at: T + 60_000, body: registration({ name: 'Pat Public', email: 'pat@example.com', phone: '555-555-0142' }) },
  ]

  it('are the e-mails the function composes with the lead, for a buyer and a realtor, in the VIP and the public phase', async () => {
    const now = await mailsOf(await registered(bodies, false))
    const laterStore = await registered(bodies, true)
    const later = await mailsOf(laterStore)
    expect(later.map((job) => [job.kind, job.kind !== 'webhook' && isLaterMail(job.mail)])).toEqual(
      now.map((job) => [job.kind, true]),
    )
    const queued = later.flatMap((job) =>
      job.kind !== 'webhook' && isLaterMail(job.mail) ? [{ leadId: job.leadId, mail: job.mail }] : [],
    )
    const composed = await composer(laterStore)(queued)
    const expected = now.map((job) => (job.kind === 'webhook' ? undefined : finished(job.mail)))
    expect(composed).toEqual(expected.map((mail) => ({ mail })))
    // What was queued already names the recipient and the Message-ID the e-mail carries (an erasure deletes copies by
    // it).
    expect(queued.map(({ mail }) => [mail.to, mail.messageId])).toEqual(
      expected.map((mail) => [mail!.to, mail!.messageId]),
    )
    // The phases' own words: the VIP reply before T, the public one after; the realtor's own reply.
    const subjects = composed.map((c) => ('mail' in c ? c.mail.subject : ''))
    expect(subjects.filter((s) => s.startsWith('New registration')).length).toBe(3)
    expect(new Set(subjects.filter((s) => !s.startsWith('New registration'))).size).toBe(3)
  })

  it('puts the assignee the lead was given in the notification', async () => {
    const store = await registered([bodies[0]!], true)
    const [notification] = await mailsOf(store)
    if (notification?.kind !== 'notification' || !isLaterMail(notification.mail))
      throw new Error('expected a queued notification first')
    const [composed] = await composer(store)([
      { leadId: notification.leadId, mail: { ...notification.mail, assignedTo: 'Sam Seller (sam@example.com)' } },
    ])
    expect(composed && 'mail' in composed && composed.mail.text).toMatch(/Assigned to: Sam Seller \(sam@example\.com\)/)
  })

  it('sends them through the outbox, none of a lead erased before, and keeps those of a launch it does not know for a retry', async () => {
    const store = await registered(bodies, true)
    const sent: OutgoingMail[] = []
    const mailer: Mailer = {
      async send(mail) {
        sent.push(mail)
      },
    }
    const lines: string[] = []
    const log = { info: (m: string) => lines.push(m), error: (m: string) => lines.push(m) }
    const erased = (await store.listLeads(0, 10))[0]!
    await store.eraseLeads({ submissionId: erased.submissionId }, (email) => addressKeyOf('s'.repeat(32), email))
    // A lead of a launch this process does not serve (yet): its e-mails wait, with the reason.
    const elsewhere = await storeWithLeadOf('elsewhere')
    const stranger = createOutboxWorker({ store: elsewhere, mailer, compose: composer(elsewhere), log, jitter: 0 })
    expect(await stranger.deliverDue()).toEqual({ sent: 0, failed: 2 })
    expect(lines.join('\n')).toContain('launch "elsewhere" is not one this server serves now')
    expect((await elsewhere.countMessages()).pending).toBe(2)

    const worker = createOutboxWorker({ store, mailer, compose: composer(store), log })
    expect(await worker.deliverDue()).toEqual({ sent: 4, failed: 0 })
    // A realtor's notification goes to the launch's co-op desk.
    expect(sent.map((m) => m.to).sort()).toEqual([
      'coop@example.com',
      'pat@example.com',
      'riley@example.com',
      'sales@example.com',
    ])
    expect(await store.countMessages()).toMatchObject({ pending: 0, sent: 4, failed: 0 })
    // A lead erased between the claim and the composing: nothing to send.
    expect(
      await composer(store)([
        {
          leadId: erased.id,
          mail: { compose: 'reply', to: erased.fields.email as string, messageId: '<x@example.com>' },
        },
      ]),
    ).toEqual([{ cancel: 'its registration is no longer stored (erased)' }])
    await Promise.all([store.close(), elsewhere.close()])
  })

  /** A store holding one lead of launch `other` with its notification queued to compose when sent. */
  async function storeWithLeadOf(other: string): Promise<LeadStore> {
    const otherSite = { ...site, slug: other }
    const store = storeAt(other)
    const app = createApp({
      launches: [otherSite],
      defaultLaunch: other,
      store,
      clock: () => new Date(T),
      anonKeys: [localAnonKey],
      rateLimitPerMinute: 0,
      timeZone,
      composeAtDelivery: true,
      log: { info() {}, error() {} },
    })
    const res = await app.request(`http://fn.test${contactFunctionPath}`, {
      method: 'POST',
      headers: { apikey: localAnonKey, 'content-type': 'application/json' },
      body: JSON.stringify(registration()),
    })
    expect(res.status).toBe(200)
    return store
  }
})

describe("the Node server's delivery process", () => {
  it('composes with the launches the server last sent it: after a publish, and after it was killed and started again', async () => {
    const dataDir = path.join(dir, `data-${crypto.randomUUID()}`)
    mkdirSync(dataDir)
    const store = openSqliteStore(path.join(dataDir, 'leads.sqlite'), { defaultLaunch: slug })
    const linkBase = `https://bramblewood.example.com${contactFunctionPath}`
    const contractWith = (subject: string) => {
      const config = readPageConfig()
      return functionLaunchOf({ ...config, reply: { ...config.reply!, subject } })
    }
    const appFor = (subject: string) =>
      createApp({
        launches: [launchSiteOf(contractWith(subject), { links: { secret: 'u'.repeat(32), baseUrl: linkBase } })],
        defaultLaunch: slug,
        store,
        anonKeys: [localAnonKey],
        rateLimitPerMinute: 0,
        composeAtDelivery: true,
        log: { info() {}, error() {} },
      })
    const delivery = superviseDelivery({
      start: {
        dataDir,
        defaultLaunch: slug,
        mail: { kind: 'eml', from: 'VIP List <vip@example.com>' },
        webhook: undefined,
        retry: { minDelayMs: 200, maxDelayMs: 1_000 },
        webhookDelaysMs: [200],
        sending: { ratePerSecond: undefined, concurrency: 8 },
        pollMs: 200,
        compose: {
          launches: [{ contract: contractWith('First words'), linkBase }],
          timeZone,
          notifyEmail: undefined,
          unsubscribeSecret: 'u'.repeat(32),
        },
      },
      onFailed() {},
      restartMs: 100,
      log: { info() {}, error() {} },
    })
    try {
      delivery.start()
      await delivery.ready()
      /**
       * Registers `email` with an app of `subject`'s launch, kicks the delivery and returns the reply's Subject as
       * sent.
       */
      const replySubject = async (subject: string, email: string) => {
        const res = await appFor(subject).request(`http://fn.test${contactFunctionPath}`, {
          method: 'POST',
          headers: { apikey: localAnonKey, 'content-type': 'application/json' },
          body: JSON.stringify(registration({ email })),
        })
        expect(res.status).toBe(200)
        delivery.kick()
        const deadline = Date.now() + 20_000
        for (;;) {
          const files = readdirSync(path.join(dataDir, 'outbox')).filter((f) => f.endsWith('.eml'))
          const reply = files
            .map((f) => readFileSync(path.join(dataDir, 'outbox', f), 'utf8'))
            .find((text) => new RegExp(`^To: ${email}`, 'm').test(text))
          if (reply) return /^Subject: (.*)$/m.exec(reply)?.[1]?.trim()
          if (Date.now() > deadline) throw new Error(`no reply to ${email} in 20 s`)
          await new Promise((resolve) => setTimeout(resolve, 100))
        }
      }
      expect(await replySubject('First words', 'first@example.com')).toBe('First words')
      // A publish: the server makes its function anew and sends the delivery process the launches.
      delivery.setLaunches([{ contract: contractWith('Published words'), linkBase }])
      expect(await replySubject('Published words', 'second@example.com')).toBe('Published words')
      // Killed outright, it is started again with the launches sent last.
      const pid = delivery.pid()!
      process.kill(pid, 'SIGKILL')
      const restarted = Date.now() + 10_000
      while ((delivery.pid() === undefined || delivery.pid() === pid) && Date.now() < restarted)
        await new Promise((resolve) => setTimeout(resolve, 50))
      await delivery.ready()
      expect(await replySubject('Published words', 'third@example.com')).toBe('Published words')
    } finally {
      await delivery.stop()
      await store.close()
    }
  }, 60_000)
})
