import Database from 'better-sqlite3'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { defaultWorksheetTexts } from '../../schema/worksheets.ts'
import { receivedMessages, type ReceivedContext } from '../../src/server/release/worksheet-messages.ts'
import { createPostgresRelease } from '../../src/server/store/postgres/postgres-release.ts'
import { createPostgresStore } from '../../src/server/store/postgres/postgres-store.ts'
import type { NewWorksheet, ReleaseStore, StoredWorksheet } from '../../src/server/store/release.ts'
import { openSqliteStore } from '../../src/server/store/sqlite/sqlite-store.ts'
import type { LeadStore } from '../../src/server/store/store.ts'
import { backendsOf, type Backend } from './support/backends.ts'
import { defaultLaunch, newLead } from './support/fixtures.ts'

// A burst of one launch's worksheets (issue 45) at the store, as the worksheet page hands them over when 200 realtors
// send at once, registrations arriving among them: the store groups them into shared commits (SQLite: on the writer
// thread with the registrations, as the Node server opens the store, or on the store's own connection; PostgreSQL: a
// pool of 10), and each must still be stored once, numbered 1 to 200 with no gap, its own confirmations and CRM call
// queued once.

type Stores = { leads: LeadStore; release: ReleaseStore }
const storesOf = (writerThread: boolean) =>
  backendsOf<[], Stores>({
    sqlite: (file) => {
      const leads = openSqliteStore(file, { defaultLaunch, writerThread })
      return { leads, release: leads.release }
    },
    postgres: (db) => ({ leads: createPostgresStore(db, { defaultLaunch }), release: createPostgresRelease(db) }),
    tables: ['outbox', 'leads', 'lots', 'worksheets', 'worksheet_numbers'],
  })
const [withWriter, postgres] = storesOf(true)
const backends = [
  { name: 'SQLite, the writer thread', backend: withWriter! },
  { name: "SQLite, the store's connection", backend: storesOf(false)[0]! },
  { name: postgres!.name, backend: postgres! },
]

let ids = 0
const context: ReceivedContext = {
  siteName: 'Bramblewood Crossing',
  texts: defaultWorksheetTexts,
  desk: 'coop@example.com',
  fromName: 'Bramblewood Crossing',
  realtorName: 'Rita Agent',
  time: 'March 14, 2026 at 11:00 a.m.',
  webhook: true,
  newId: () => `msg_${++ids}`,
}

type Queued = { recipient: string; kind: string; content: { subject?: string; to?: string; body?: string } }

/** The worksheets' messages as queued in the outbox, read outside the store. */
async function queuedOf(backend: Backend<[], Stores>): Promise<Queued[]> {
  const sql = "SELECT recipient, kind, mail AS content FROM outbox WHERE recipient LIKE 'worksheet:%'"
  if (backend.kind === 'postgres') return (await backend.postgres().db.query(sql)).rows as Queued[]
  const db = new Database(backend.file(), { readonly: true })
  try {
    return db
      .prepare<[], { recipient: string; kind: string; content: string }>(sql)
      .all()
      .map((row) => ({ ...row, content: JSON.parse(row.content) as Queued['content'] }))
  } finally {
    db.close()
  }
}

describe.each(backends)('a burst of worksheets on $name', ({ backend }) => {
  let stores: Stores

  beforeAll(async () => {
    await backend.setup()
    stores = await backend.fresh()
  })
  afterAll(async () => {
    await stores?.leads.close()
    await backend.teardown()
  })

  it('stores 200 sent at once each once, numbered 1 to 200, with its own confirmations and CRM call queued once', async () => {
    const { leads, release } = stores
    const rita = { name: 'Rita Agent', email: 'rita@agents.example.com', isRealtor: 'yes' }
    const realtor = (await leads.saveLead(newLead({ fields: rita }), null)).lead.id
    const sheet = (n: number): NewWorksheet => ({
      launch: defaultLaunch,
      realtorLeadId: realtor,
      realtorEmail: rita.email,
      clientName: `Client ${n}`,
      clientEmail: `client${n}@example.com`,
      clientPhone: '416-555-0199',
      choices: [{ lot: `Lot ${1 + (n % 40)}`, model: 'Maple' }],
      depositAccepted: true,
      notes: '',
      receivedAt: new Date(Date.UTC(2026, 2, 14, 15, 0, 0, n)).toISOString(),
    })
    // Registrations among them, and a worksheet of a realtor who is not stored: it fails alone, taking no number.
    const registrations = Array.from({ length: 20 }, (_, n) =>
      leads.saveLead(newLead({ fields: { name: `Buyer ${n}`, email: `buyer${n}@example.com` } }), null),
    )
    const orphan = release
      .saveWorksheet({ ...sheet(999), realtorLeadId: 987_654 }, (w) => receivedMessages(w, context))
      .then(
        () => 'stored',
        (error: unknown) => error,
      )
    const answers = await Promise.all(
      Array.from({ length: 200 }, (_, n) => release.saveWorksheet(sheet(n), (w) => receivedMessages(w, context))),
    )
    expect(await orphan).toBeInstanceOf(Error)
    expect((await Promise.all(registrations)).filter((r) => r.created)).toHaveLength(20)

    const stored = await release.listWorksheets(defaultLaunch)
    const range = Array.from({ length: 200 }, (_, i) => i + 1)
    expect(stored.map((w) => w.number)).toEqual(range)
    expect(new Set(stored.map((w) => w.clientName)).size).toBe(200)
    // Each sender was answered with its own worksheet as stored: its client, its number and id.
    const byId = new Map(stored.map((w) => [w.id, w]))
    answers.forEach((answer: StoredWorksheet, n) => {
      expect(answer.clientName).toBe(`Client ${n}`)
      expect(byId.get(answer.id)).toEqual(answer)
    })

    const queued = await queuedOf(backend)
    expect(queued).toHaveLength(600)
    for (const w of stored) {
      const own = queued.filter((q) => q.recipient.startsWith(`worksheet:${w.id}:`))
      expect(own.map((q) => q.recipient).sort()).toEqual(
        [`worksheet:${w.id}:received`, `worksheet:${w.id}:received.desk`, `worksheet:${w.id}:received.webhook`].sort(),
      )
      // Composed from the worksheet as numbered: its own number and client in the subject and the CRM's call.
      const subject = `Bramblewood Crossing: worksheet ${w.number} for ${w.clientName} received`
      const mails = own.filter((q) => q.kind !== 'webhook')
      expect(mails.map((q) => q.content.subject)).toEqual([subject, subject])
      const call = JSON.parse(own.find((q) => q.kind === 'webhook')!.content.body!) as { data: { worksheet: number } }
      expect(call.data.worksheet).toBe(w.number)
    }
  })
})
