import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { allocateInOrder } from '../../src/server/release/allocate-in-order.ts'
import { allocateLot, confirmProposals, decideWorksheet } from '../../src/server/release/allocation.ts'
import { createPostgresRelease } from '../../src/server/store/postgres/postgres-release.ts'
import { createPostgresStore } from '../../src/server/store/postgres/postgres-store.ts'
import type { LotInput, NewWorksheet, ReleaseStore, WorksheetChoice } from '../../src/server/store/release.ts'
import { openSqliteRelease } from '../../src/server/store/sqlite/sqlite-release.ts'
import { openSqliteStore } from '../../src/server/store/sqlite/sqlite-store.ts'
import type { LeadStore } from '../../src/server/store/store.ts'
import { backendsOf } from './support/backends.ts'
import { defaultLaunch, newLead } from './support/fixtures.ts'

type Stores = { leads: LeadStore; release: ReleaseStore }

const backends = backendsOf<[], Stores>({
  sqlite: (file) => {
    const leads = openSqliteStore(file, { defaultLaunch })
    return { leads, release: openSqliteRelease(file) }
  },
  postgres: (db) => ({ leads: createPostgresStore(db, { defaultLaunch }), release: createPostgresRelease(db) }),
  tables: ['outbox', 'leads', 'lots', 'worksheets', 'worksheet_numbers'],
})

const lots: LotInput[] = [14, 15, 16].map((n) => ({
  lot: `Lot ${n}`,
  release: 'Phase 1',
  models: n === 16 ? ['Birch'] : ['Maple', 'Birch'],
  frontage: '40 ft',
  price: 899900 + n,
  status: 'available',
}))

const choice = (lot: string | null, model: string): WorksheetChoice => ({ lot, model })

describe.each(backends)('allocation on $name', (backend) => {
  let stores: Stores
  let realtors: number[]
  const clock = () => new Date('2026-03-01T15:00:00.000Z')
  const deps = () => ({ release: stores.release, clock, siteName: 'Bramblewood Crossing' })

  async function worksheet(realtor: number, choices: WorksheetChoice[], second: number): Promise<number> {
    const sheet: NewWorksheet = {
      launch: defaultLaunch,
      realtorLeadId: realtor,
      realtorEmail: `realtor${realtor}@example.com`,
      clientName: `Client ${second}`,
      clientEmail: `client${second}@example.com`,
      clientPhone: '555-555-0142',
      choices,
      depositAccepted: true,
      notes: '',
      receivedAt: `2026-03-01T14:00:${String(second).padStart(2, '0')}.000Z`,
    }
    return (await stores.release.saveWorksheet(sheet, () => [])).id
  }

  beforeAll(() => backend.setup())
  afterAll(() => backend.teardown())

  beforeAll(async () => {
    stores = await backend.fresh()
    realtors = []
    for (const email of ['ann@example.com', 'bob@example.com']) {
      const saved = await stores.leads.saveLead(newLead({ fields: { name: 'R', email, isRealtor: 'yes' } }), null)
      realtors.push(saved.lead.id)
    }
    await stores.release.importLots(defaultLaunch, lots, '2026-03-01T12:00:00.000Z')
  })

  it('numbers worksheets in received order and keeps their received time unchangeable', async () => {
    const first = await worksheet(realtors[0]!, [choice('Lot 14', 'Maple'), choice('Lot 15', 'Maple')], 1)
    await worksheet(realtors[1]!, [choice('Lot 14', 'Maple'), choice('Lot 15', 'Birch')], 2)
    const listed = await stores.release.listWorksheets(defaultLaunch)
    expect(listed.map((w) => [w.number, w.clientName])).toEqual([
      [1, 'Client 1'],
      [2, 'Client 2'],
    ])
    expect(listed[0]!.id).toBe(first)
    const change =
      backend.kind === 'postgres'
        ? backend.postgres().db.query('UPDATE public.worksheets SET received_at = now() WHERE id = $1', [first])
        : (async () => {
            const { default: Database } = await import('better-sqlite3')
            const db = new Database(backend.file())
            try {
              db.prepare("UPDATE worksheets SET received_at = '2020-01-01' WHERE id = ?").run(first)
            } finally {
              db.close()
            }
          })()
    await expect(change).rejects.toThrow('never change')
  })

  it('proposes a lot named first by two worksheets to the earlier one, the later one its second choice', async () => {
    const proposals = allocateInOrder(
      await stores.release.listWorksheets(defaultLaunch),
      await stores.release.listLots(defaultLaunch),
    )
    expect(proposals).toEqual([
      expect.objectContaining({ number: 1, lot: 'Lot 14', model: 'Maple', choice: 1 }),
      expect.objectContaining({ number: 2, lot: 'Lot 15', model: 'Birch', choice: 2 }),
    ])
    // A proposal holds nothing: the lots are still available.
    expect((await stores.release.listLots(defaultLaunch)).every((l) => l.status === 'available')).toBe(true)
    const outcomes = await confirmProposals(deps(), defaultLaunch, proposals, 'owner@example.com')
    expect(outcomes.map((o) => o.ok)).toEqual([true, true])
    const byLot = Object.fromEntries((await stores.release.listLots(defaultLaunch)).map((l) => [l.lot, l.status]))
    expect(byLot).toEqual({ 'Lot 14': 'allocated', 'Lot 15': 'allocated', 'Lot 16': 'available' })
    // Each realtor's e-mail once, with the lot, the model and the price; one worksheet.decided call each.
    const messages = await stores.leads.listMessages({ limit: 50 })
    expect(messages.filter((m) => m.kind === 'reply').map((m) => m.leadId)).toEqual(realtors)
    expect(messages.filter((m) => m.kind === 'webhook')).toHaveLength(2)
  })

  it('refuses a lot already allocated with who has it (409), and waitlists a worksheet left with no choice', async () => {
    const late = await worksheet(realtors[0]!, [choice('Lot 14', 'Maple'), choice(null, 'Maple')], 3)
    expect(await allocateLot(deps(), defaultLaunch, { worksheetId: late, lot: 'Lot 14', model: 'Maple' }, 'x')).toEqual(
      {
        ok: false,
        status: 409,
        error: 'Lot 14 was just allocated to worksheet 1.',
      },
    )
    const proposals = allocateInOrder(
      await stores.release.listWorksheets(defaultLaunch),
      await stores.release.listLots(defaultLaunch),
    )
    expect(proposals).toEqual([{ worksheetId: late, number: 3, waitlist: true }])
    await confirmProposals(deps(), defaultLaunch, proposals, 'owner@example.com')
    const sheet = (await stores.release.listWorksheets(defaultLaunch)).find((w) => w.id === late)!
    expect(sheet).toMatchObject({
      outcome: 'waitlisted',
      reason: expect.stringContaining('none of its choices') as string,
    })
    expect(
      await decideWorksheet(deps(), defaultLaunch, { worksheetId: late, outcome: 'declined', reason: ' ' }, 'x'),
    ).toEqual({ ok: false, status: 409, error: 'Say why the worksheet is declined.' })
  })

  it('allocates a lot once when two allocations of it race (two connections, as two servers)', async () => {
    const a = await worksheet(realtors[0]!, [choice('Lot 16', 'Birch')], 4)
    const b = await worksheet(realtors[1]!, [choice('Lot 16', 'Birch')], 5)
    let other: Stores & { end?: () => Promise<void> }
    if (backend.kind === 'postgres') {
      const pool = new pg.Pool({ connectionString: backend.postgres().url, max: 2 })
      other = { leads: stores.leads, release: createPostgresRelease(pool), end: () => pool.end() }
    } else other = { leads: stores.leads, release: openSqliteRelease(backend.file()) }
    const results = await Promise.all([
      allocateLot(deps(), defaultLaunch, { worksheetId: a, lot: 'Lot 16', model: 'Birch' }, 'one'),
      allocateLot(
        { ...deps(), release: other.release },
        defaultLaunch,
        { worksheetId: b, lot: 'Lot 16', model: 'Birch' },
        'two',
      ),
    ])
    await other.end?.()
    expect(results.filter((r) => r.ok)).toHaveLength(1)
    const loser = results.find((r) => !r.ok)
    const winner = results[0].ok ? 4 : 5
    expect(loser).toEqual({ ok: false, status: 409, error: `Lot 16 was just allocated to worksheet ${winner}.` })
    const allocated = (await stores.release.listWorksheets(defaultLaunch)).filter((w) => w.allocatedLot === 'Lot 16')
    expect(allocated.map((w) => w.number)).toEqual([winner])
  })
})
