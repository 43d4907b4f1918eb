import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ReleaseStore } from '../../src/server/store/release.ts'
import { openSqliteRelease } from '../../src/server/store/sqlite/sqlite-release.ts'
import { openSqliteStore } from '../../src/server/store/sqlite/sqlite-store.ts'
import type { LeadStore } from '../../src/server/store/store.ts'
import { newLead } from '../server/support/fixtures.ts'
import {
  personWithPassword,
  startStudioHarness,
  type StudioClient,
  type StudioHarness,
} from './support/studio-harness.ts'

// The studio's allocation board and lots (issue 45): owners and the sales accounts given the launch allocate; owners
// and editors change a lot's price and status; the audit log has each change; an allocated lot is not changed here.

const slug = 'bramblewood-crossing'
const password = 'correct horse battery staple'
const dir = mkdtempSync(path.join(tmpdir(), 'vip-studio-allocation-'))
let harness: StudioHarness
let leads: LeadStore
let release: ReleaseStore & { close(): void }
let sheet: number
const clients: Record<string, StudioClient> = {}

beforeAll(async () => {
  const file = path.join(dir, 'leads.sqlite')
  leads = openSqliteStore(file, { defaultLaunch: slug })
  release = openSqliteRelease(file)
  await release.importLots(
    slug,
    [14, 15].map((n) => ({
      lot: `Lot ${n}`,
      release: null,
      models: ['Maple'],
      frontage: null,
      price: 899900,
      status: 'available' as const,
    })),
    '2026-11-25T00:00:00.000Z',
  )
  const realtor = await leads.saveLead(
    newLead({ launch: slug, fields: { name: 'R', email: 'r@example.com', isRealtor: 'yes' } }),
    null,
  )
  sheet = (
    await release.saveWorksheet(
      {
        launch: slug,
        realtorLeadId: realtor.lead.id,
        realtorEmail: 'r@example.com',
        clientName: 'Cleo Client',
        clientEmail: 'cleo@example.com',
        clientPhone: '555-555-0142',
        choices: [{ lot: 'Lot 14', model: 'Maple' }],
        depositAccepted: true,
        notes: '',
        receivedAt: '2026-11-25T10:00:00.000Z',
      },
      () => [],
    )
  ).id
  harness = await startStudioHarness({ release })
  clients.owner = await personWithPassword(harness, 'owner@example.com', 'owner', password)
  clients.editor = await personWithPassword(harness, 'editor@example.com', 'editor', password, [slug])
  clients.salesGiven = await personWithPassword(harness, 'sales@example.com', 'sales', password, [slug])
})

afterAll(async () => {
  harness?.close()
  release?.close()
  await leads?.close()
  rmSync(dir, { recursive: true, force: true })
})

describe('the studio allocation API', () => {
  it('lets owners and the sales accounts given the launch see the board, not an editor', async () => {
    const board = `/studio/api/launches/${slug}/allocation`
    expect((await clients.owner!.request(board)).status).toBe(200)
    const sales = await clients.salesGiven!.request(board)
    expect(sales.status).toBe(200)
    expect(((await sales.json()) as { worksheets: Array<{ clientName: string }> }).worksheets[0]!.clientName).toBe(
      'Cleo Client',
    )
    expect((await clients.editor!.request(board)).status).toBe(403)
    // The launches whose page each may open: a sales account its given ones, an editor none.
    const list = async (who: StudioClient) => (await who.request('/studio/api/allocation')).json() as Promise<unknown>
    expect(await list(clients.salesGiven!)).toEqual({ launches: [{ slug, siteName: expect.any(String) as unknown }] })
    expect((await clients.editor!.request('/studio/api/allocation')).status).toBe(403)
  })

  it("lets owners and editors change a lot's price and status, audited; never an allocated lot's", async () => {
    const lot = `/studio/api/launches/${slug}/lots/${encodeURIComponent('Lot 15')}`
    expect((await clients.editor!.json(lot, 'PATCH', { price: 909900, status: 'held' })).status).toBe(200)
    expect((await clients.salesGiven!.json(lot, 'PATCH', { price: 1 })).status).toBe(403)
    expect((await clients.owner!.json(lot, 'PATCH', { status: 'allocated' })).status).toBe(400)
    expect((await release.listLots(slug)).find((l) => l.lot === 'Lot 15')).toMatchObject({
      price: 909900,
      status: 'held',
    })

    const allocate = await clients.salesGiven!.json(`/studio/api/launches/${slug}/allocation/allocate`, 'POST', {
      worksheetId: sheet,
      lot: 'Lot 14',
      model: 'Maple',
    })
    expect(allocate.status).toBe(200)
    const changed = await clients.owner!.json(
      `/studio/api/launches/${slug}/lots/${encodeURIComponent('Lot 14')}`,
      'PATCH',
      {
        price: 1,
      },
    )
    expect(changed.status).toBe(409)
    expect((await release.listLots(slug)).find((l) => l.lot === 'Lot 14')).toMatchObject({
      price: 899900,
      status: 'allocated',
    })
    const audit = (await (await clients.owner!.request('/studio/api/audit')).json()) as Array<{ action: string }>
    expect(audit.map((a) => a.action)).toEqual(
      expect.arrayContaining(['change Lot 15: price 909900, held', `allocate Lot 14 (Maple) to worksheet ${sheet}`]),
    )
  })
})

describe("the studio's price list upload", () => {
  const upload = `/studio/api/launches/${slug}/lots/import`
  const csv = 'lot,models,price\nLot 30,Birch,919900\nLot 31,,919900\n'
  const send = (who: StudioClient, origin?: string | null, type = 'text/csv') =>
    who.request(upload, { method: 'POST', body: csv, headers: { 'content-type': type }, origin })

  it("imports an editor's CSV with the CLI's checker: the good rows stored, each refused one with line and column", async () => {
    const answer = await send(clients.editor!)
    expect(answer.status).toBe(200)
    expect(await answer.json()).toMatchObject({
      created: 1,
      rows: 2,
      problems: [{ line: 3, column: 'models', message: expect.stringContaining('Lot 31 has no model') as unknown }],
    })
    expect((await release.listLots(slug)).map((l) => l.lot)).toContain('Lot 30')
    const lots = await clients.editor!.request(`/studio/api/launches/${slug}/lots`)
    expect(lots.status).toBe(200)
  })

  it('refuses a sales account, another origin, no origin and a file that is not CSV; changes nothing', async () => {
    const before = await release.listLots(slug)
    expect((await send(clients.salesGiven!)).status).toBe(403)
    expect((await clients.salesGiven!.request(`/studio/api/launches/${slug}/lots`)).status).toBe(403)
    expect((await send(clients.owner!, 'http://attacker.localhost')).status).toBe(403)
    expect((await send(clients.owner!, null)).status).toBe(403)
    expect((await send(clients.owner!, undefined, 'application/json')).status).toBe(415)
    expect(await release.listLots(slug)).toEqual(before)
  })
})
