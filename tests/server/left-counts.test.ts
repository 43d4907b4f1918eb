import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { Hono } from 'hono'
import { afterAll, describe, expect, it } from 'vitest'
import { localAnonKey } from '../../schema/local-defaults.ts'
import { createApp } from '../../src/server/app.ts'
import { addLeftCountsRoute, leftCountsPath } from '../../src/server/release/left-counts.ts'
import type { LotInput } from '../../src/server/store/release.ts'
import { openSqliteRelease } from '../../src/server/store/sqlite/sqlite-release.ts'
import { openSqliteStore } from '../../src/server/store/sqlite/sqlite-store.ts'
import { defaultLaunch, launchSite, newLead } from './support/fixtures.ts'
import { startServerProcess, writeDist, type ServerProcess } from './support/node-server.ts'

// What is left, for the page (issue 45): the server's small JSON answer, read from the inventory at most every few
// seconds, with an ETag; an allocation shows on a new load within 10 seconds, with no build.

const root = mkdtempSync(path.join(tmpdir(), 'vip-left-'))
let server: ServerProcess | undefined
afterAll(async () => {
  await server?.stop()
  rmSync(root, { recursive: true, force: true })
})

const lots: LotInput[] = [
  { lot: 'Lot 1', release: null, models: ['Maple', 'Birch'], frontage: null, price: 1, status: 'available' },
  { lot: 'Lot 2', release: null, models: ['Maple'], frontage: null, price: 1, status: 'available' },
  { lot: 'Lot 3', release: null, models: ['Maple'], frontage: null, price: 1, status: 'held' },
  { lot: 'Lot 4', release: null, models: ['Cedar'], frontage: null, price: 1, status: 'sold' },
]

describe('GET /_release/left.json', () => {
  it('counts only available lots, reuses one reading for a few seconds, and answers 304 to its ETag', async () => {
    const file = path.join(root, 'unit.sqlite')
    await openSqliteStore(file, { defaultLaunch }).close()
    const release = openSqliteRelease(file)
    await release.importLots(defaultLaunch, lots, '2026-03-01T00:00:00.000Z')
    let now = 0
    const app = new Hono()
    addLeftCountsRoute(app, { release, launchOf: () => Promise.resolve(defaultLaunch), clock: () => now })
    const first = await app.request(leftCountsPath)
    expect(first.headers.get('cache-control')).toBe('public, max-age=5')
    expect(await first.json()).toEqual({
      left: { Maple: 2, Birch: 1 },
      available: [['Maple', 'Birch'], ['Maple']],
      inventory: true,
    })
    const etag = first.headers.get('etag')!
    expect((await app.request(leftCountsPath, { headers: { 'if-none-match': etag } })).status).toBe(304)

    await release.updateLot(defaultLaunch, 'Lot 2', { status: 'held' }, '2026-03-01T00:00:01.000Z')
    now = 4_999
    expect(((await (await app.request(leftCountsPath)).json()) as { left: object }).left).toEqual({
      Maple: 2,
      Birch: 1,
    })
    now = 5_000
    const later = await app.request(leftCountsPath, { headers: { 'if-none-match': etag } })
    expect(later.status).toBe(200)
    expect(((await later.json()) as { left: object }).left).toEqual({ Maple: 1, Birch: 1 })
    release.close()
  })

  it('on the Node server, a new load shows an allocation within 10 seconds, with no build', async () => {
    const dataDir = path.join(root, 'data')
    const distDir = path.join(root, 'dist')
    writeDist(distDir)
    server = await startServerProcess({ DATA_DIR: dataDir, DIST_DIR: distDir })
    const release = openSqliteRelease(path.join(dataDir, 'leads.sqlite'))
    await release.importLots(defaultLaunch, lots, new Date().toISOString())
    const leads = openSqliteStore(path.join(dataDir, 'leads.sqlite'), { defaultLaunch })
    const realtor = await leads.saveLead(
      newLead({ fields: { name: 'R', email: 'r@example.com', isRealtor: 'yes' } }),
      null,
    )
    const sheet = await release.saveWorksheet(
      {
        launch: defaultLaunch,
        realtorLeadId: realtor.lead.id,
        realtorEmail: 'r@example.com',
        clientName: 'C',
        clientEmail: 'c@example.com',
        clientPhone: '555-555-0100',
        choices: [{ lot: 'Lot 2', model: 'Maple' }],
        depositAccepted: true,
        notes: '',
        receivedAt: new Date().toISOString(),
      },
      () => [],
    )
    const left = async () =>
      ((await (await fetch(`${server!.url}${leftCountsPath}`)).json()) as { left: Record<string, number> }).left
    expect(await left()).toEqual({ Maple: 2, Birch: 1 })
    expect(
      await release.allocate(
        { worksheetId: sheet.id, lot: 'Lot 2', model: 'Maple' },
        'x',
        new Date().toISOString(),
        [],
      ),
    ).toEqual({ ok: true })
    const start = Date.now()
    let seen = await left()
    while (seen.Maple !== 1 && Date.now() - start < 10_000) {
      await new Promise((r) => setTimeout(r, 250))
      seen = await left()
    }
    expect(seen).toEqual({ Maple: 1, Birch: 1 })
    expect(Date.now() - start).toBeLessThan(10_000)
    release.close()
    await leads.close()
  }, 60_000)
})

describe('GET <function>/left.json?launch=<slug>', () => {
  it("answers a named launch's counts to its own pages (CORS), 304 to its ETag, and refuses an unnamed or unknown launch", async () => {
    const file = path.join(root, 'function.sqlite')
    const leads = openSqliteStore(file, { defaultLaunch })
    const release = openSqliteRelease(file)
    await release.importLots(defaultLaunch, lots, '2026-03-01T00:00:00.000Z')
    const app = createApp({
      launches: [launchSite()],
      defaultLaunch,
      store: leads,
      release,
      anonKeys: [localAnonKey],
      allowedOrigins: ['https://preview.example.net'],
    })
    const ask = (query: string, origin = 'https://bramblewood.example.com', headers: Record<string, string> = {}) =>
      app.request(`https://project-ref.supabase.co/send-contact-email/left.json${query}`, {
        headers: { origin, ...headers },
      })
    const first = await ask(`?launch=${defaultLaunch}`)
    expect(first.status).toBe(200)
    expect(first.headers.get('access-control-allow-origin')).toBe('https://bramblewood.example.com')
    expect(first.headers.get('vary')).toBe('Origin')
    expect(first.headers.get('cache-control')).toBe('public, max-age=5')
    expect(((await first.json()) as { left: object }).left).toEqual({ Maple: 2, Birch: 1 })
    const etag = first.headers.get('etag')!
    const again = await ask(`?launch=${defaultLaunch}`, 'https://preview.example.net', { 'if-none-match': etag })
    expect(again.status).toBe(304)
    expect(again.headers.get('access-control-allow-origin')).toBe('https://preview.example.net')
    // As a compressing proxy hands the tag back (weak), and among others.
    const weak = await ask(`?launch=${defaultLaunch}`, undefined, { 'if-none-match': `"other", W/${etag}` })
    expect(weak.status).toBe(304)
    // Another site's page gets the same public counts, but its script may not read them.
    const other = await ask(`?launch=${defaultLaunch}`, 'https://evil.example')
    expect(other.status).toBe(200)
    expect(other.headers.get('access-control-allow-origin')).toBeNull()
    const unnamed = await ask('')
    expect(unnamed.status).toBe(400)
    expect(unnamed.headers.get('access-control-allow-origin')).toBeNull()
    expect((await ask('?launch=maple-ridge')).status).toBe(404)
    expect(
      (await app.request(`/functions/v1/send-contact-email/left.json?launch=${defaultLaunch}`)).headers.get('etag'),
    ).toBe(etag)
    release.close()
    await leads.close()
  })
})
