import Database from 'better-sqlite3'
import type { Hono } from 'hono'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { localAnonKey } from '../../schema/local-defaults.ts'
import type { PageConfig } from '../../schema/page-config.ts'
import { createApp } from '../../src/server/app.ts'
import { coopDeskAuthor, rosterAuthor } from '../../src/server/delivery/assignment.ts'
import { createOutboxWorker } from '../../src/server/delivery/outbox.ts'
import { createSmtpMailer } from '../../src/server/delivery/mailers/smtp-mailer.ts'
import { createPostgresStore } from '../../src/server/store/postgres/postgres-store.ts'
import { openSqliteStore } from '../../src/server/store/sqlite/sqlite-store.ts'
import type { LeadStore } from '../../src/server/store/store.ts'
import { backendsOf, type Backend } from './support/backends.ts'
import { defaultLaunch, launchSite, readPageConfig, registration } from './support/fixtures.ts'
import { startTestSmtp, type ReceivedMail, type TestSmtp } from './support/smtp.ts'

// Leads reach a person at once (issue 25): each new buyer's lead goes to the next salesperson of the launch's roster,
// in turn, counted in the transaction that stores the lead; a realtor's to the co-op desk; the assignee's e-mail goes
// through the outbox to a real SMTP server. On SQLite on disk (the server's writer thread) and on PostgreSQL with the
// real migrations.

const quiet = { info() {}, error() {} }
const alex = { name: 'Alex Martin', email: 'alex@example.com' }
const sam = { name: 'Sam Chen', email: 'sam@example.com' }
const kim = { name: 'Kim Osei', email: 'kim@example.com' }
const manager = 'manager@example.com'
const base = readPageConfig()
const origin = new URL(base.seo.canonicalUrl).origin

/** The repository's launch with this roster. */
function withRoster(roster: Array<{ name: string; email: string }>): PageConfig {
  return { ...base, launch: { ...base.launch, roster } }
}

function appOf(store: LeadStore, config: PageConfig): Hono {
  return createApp({
    launches: [launchSite(config, { notifyEmail: manager })],
    defaultLaunch,
    store,
    anonKeys: [localAnonKey],
    allowedOrigins: [origin],
    rateLimitPerMinute: 0,
    log: quiet,
  })
}

/** Registers one buyer (or realtor), as the browser does; resolves with the stored lead's id. */
async function register(app: Hono, store: LeadStore, fields: Record<string, unknown> = {}): Promise<number> {
  const body = registration({ email: `buyer-${crypto.randomUUID().slice(0, 8)}@example.org`, ...fields })
  const res = await app.request('http://site.test/functions/v1/send-contact-email', {
    method: 'POST',
    headers: { apikey: localAnonKey, 'content-type': 'application/json', host: 'site.test', origin },
    body: JSON.stringify(body),
  })
  expect(res.status).toBe(200)
  const lead = await store.findLead(body.submissionId as string)
  return lead!.id
}

/** The turns a launch's roster has given, read from the database outside the store. */
async function turnsTaken(backend: Backend<[], LeadStore>, launch: string): Promise<number> {
  if (backend.kind === 'postgres') {
    const { rows } = await backend
      .postgres()
      .db.query('SELECT turns FROM public.roster_turns WHERE roster = $1', [launch])
    return Number((rows[0] as { turns: string }).turns)
  }
  const db = new Database(backend.file(), { readonly: true })
  try {
    return (db.prepare('SELECT turns FROM roster_turns WHERE roster = ?').get(launch) as { turns: number }).turns
  } finally {
    db.close()
  }
}

const realtor = { isRealtor: 'yes', brokerage: 'Northgate Realty', recoNumber: '123456', forClient: 'no' }

describe.each(
  backendsOf<[], LeadStore>({
    // The Node server's SQLite store saves on its writer thread: the turn is taken there.
    sqlite: (file) => openSqliteStore(file, { defaultLaunch, writerThread: true }),
    postgres: (db) => createPostgresStore(db, { defaultLaunch }),
    tables: ['outbox', 'leads', 'roster_turns', 'daily_runs'],
  }),
)('leads reach a person at once ($name)', (backend) => {
  let smtp: TestSmtp
  const open: LeadStore[] = []
  const fresh = async () => {
    const store = await backend.fresh()
    open.push(store)
    return store
  }
  beforeAll(async () => {
    await backend.setup()
    smtp = await startTestSmtp()
  }, 60_000)
  afterEach(async () => {
    for (const store of open.splice(0)) await store.close()
    smtp.received.splice(0)
  })
  afterAll(async () => {
    await smtp?.stop()
    await backend.teardown()
  })

  /** Delivers the outbox to the SMTP server; the messages it received for `to`. */
  async function deliver(store: LeadStore): Promise<void> {
    const mailer = createSmtpMailer({
      url: `smtp://127.0.0.1:${smtp.port}`,
      from: 'Bramblewood Crossing <no-reply@example.com>',
    })
    const report = await createOutboxWorker({ store, mailer, log: quiet, jitter: 0 }).deliverDue()
    await mailer.close?.()
    expect(report.failed).toBe(0)
  }
  const to = (address: string) => smtp.received.filter((mail) => mail.rcptTo.includes(address))
  const linkOf = (mail: ReceivedMail) => mail.decoded.match(/https?:\/\/[^\s"<]+\/leads\/lead\/[^\s"<]+/)?.[0]

  it("assigns three buyers A, B, A, records it in their history, and each assignee's e-mail reaches the SMTP server", async () => {
    const store = await fresh()
    const app = appOf(store, withRoster([alex, sam]))
    const ids = [await register(app, store), await register(app, store), await register(app, store)]
    const followUps = await Promise.all(ids.map((id) => store.followUpOf(id)))
    expect(followUps.map((f) => f.assignee)).toEqual([alex.email, sam.email, alex.email])
    for (const f of followUps) expect(f.history.map((h) => [h.kind, h.author])).toEqual([['assignee', rosterAuthor]])
    // The leads page's list and filter read the same assignee.
    expect((await store.searchLeads({ assignee: alex.email, limit: 10 })).leads.map((l) => l.id).sort()).toEqual(
      [ids[0], ids[2]].sort(),
    )

    await deliver(store)
    const alexMail = to(alex.email)
    const samMail = to(sam.email)
    expect(alexMail).toHaveLength(2)
    expect(samMail).toHaveLength(1)
    // One message per lead to its assignee, linked to that lead on the leads page (its number only), no mark left over.
    expect(alexMail.map(linkOf).sort()).toEqual(
      [`${origin}/leads/lead/${ids[0]}`, `${origin}/leads/lead/${ids[2]}`].sort(),
    )
    expect(samMail.map(linkOf)).toEqual([`${origin}/leads/lead/${ids[1]}`])
    for (const mail of [...alexMail, ...samMail]) {
      expect(mail.decoded).not.toContain('[lead-id:')
      expect(mail.decoded).toContain(base.site.brokerage)
      expect(mail.decoded).toContain('Jane Doe')
      // The only link of the HTML is the leads page's: nothing the visitor typed is one.
      expect([...mail.decoded.matchAll(/<a /g)]).toHaveLength(1)
    }
    // The manager's notification says who takes the lead.
    expect(to(manager)).toHaveLength(3)
    expect(to(manager)[0]!.decoded).toContain(
      'Assigned to: The next salesperson of the roster in turn (Alex Martin, Sam Chen)',
    )
  })

  it("gives a realtor's lead to the co-op desk, told by its notification alone, without taking a buyer's turn", async () => {
    const store = await fresh()
    const app = appOf(store, withRoster([alex, sam]))
    const agent = await register(app, store, realtor)
    const buyer = await register(app, store)
    expect((await store.followUpOf(agent)).assignee).toBe(base.launch.realtorEmail)
    expect((await store.followUpOf(agent)).history[0]!.author).toBe(coopDeskAuthor)
    expect((await store.followUpOf(buyer)).assignee).toBe(alex.email)
    await deliver(store)
    const desk = to(base.launch.realtorEmail!)
    // The co-op desk gets the realtor's notification, which says the lead is theirs: no second e-mail about it.
    expect(desk).toHaveLength(1)
    expect(desk[0]!.decoded).toContain(
      `Assigned to: The co-op desk (${base.launch.realtorEmail}), which this notification is sent to`,
    )
  })

  it('gives concurrent registrations on two stores of one database distinct turns: 21 at once, 7 each', async () => {
    const first = await fresh()
    const second = await backend.reopen()
    open.push(second)
    const config = withRoster([alex, sam, kim])
    const apps = [appOf(first, config), appOf(second, config)]
    const ids = await Promise.all(Array.from({ length: 21 }, (_, i) => register(apps[i % 2]!, i % 2 ? second : first)))
    const assignees = await Promise.all(ids.map(async (id) => (await first.followUpOf(id)).assignee))
    const counts = [alex, sam, kim].map((person) => assignees.filter((a) => a === person.email).length)
    // No turn given twice and none skipped: 21 turns over 3 people is 7 each (at most one apart for any count).
    expect(counts).toEqual([7, 7, 7])
    // And the counter took 21 turns: a turn given twice would have lost one.
    expect(await turnsTaken(backend, defaultLaunch)).toBe(21)
    const messages = await first.listMessages({ limit: 500 })
    expect(messages.filter((m) => m.kind === 'assignment')).toHaveLength(21)
  })

  it("leaves a lead unassigned with an empty roster, and the manager's notification says no one is assigned", async () => {
    const store = await fresh()
    const app = appOf(store, withRoster([]))
    const id = await register(app, store)
    const followUp = await store.followUpOf(id)
    expect(followUp.assignee).toBe('')
    expect(followUp.history).toEqual([])
    expect((await store.searchLeads({ assignee: '', limit: 10 })).leads.map((l) => l.id)).toEqual([id])
    await deliver(store)
    expect(smtp.received.map((mail) => mail.rcptTo)).toEqual([[manager]])
    expect(smtp.received[0]!.decoded).toContain('Assigned to: No one: this launch has no roster of salespeople')
  })

  it('assigns a repeated submission once, and takes no second turn for it', async () => {
    const store = await fresh()
    const app = appOf(store, withRoster([alex, sam]))
    const body = registration({ email: 'again@example.org' })
    for (let i = 0; i < 2; i++) {
      const res = await app.request('http://site.test/functions/v1/send-contact-email', {
        method: 'POST',
        headers: { apikey: localAnonKey, 'content-type': 'application/json', host: 'site.test', origin },
        body: JSON.stringify(body),
      })
      expect(res.status).toBe(200)
    }
    const next = await register(app, store)
    expect((await store.followUpOf(next)).assignee).toBe(sam.email)
    expect((await store.listMessages({ limit: 50 })).filter((m) => m.kind === 'assignment')).toHaveLength(2)
  })
})
