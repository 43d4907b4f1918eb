import { execFile } from 'node:child_process'
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { migrateDatabase } from '../../src/cli/db/db-migrate.ts'
import { createPostgresRelease } from '../../src/server/store/postgres/postgres-release.ts'
import { createPostgresStore } from '../../src/server/store/postgres/postgres-store.ts'
import { defaultLaunch, newLead } from './support/fixtures.ts'
import { startServerProcess, writeDist, type ServerProcess } from './support/node-server.ts'
import { startTestPostgres, type TestPostgres } from './support/postgres.ts'

// Two Node servers on one real PostgreSQL, as two machines behind a load balancer: the same lot allocated through the
// studio's allocation board of each at the same moment goes to one worksheet; the other is answered 409 with who has
// it.

const run = promisify(execFile)
const original = readFileSync('page.config.json', 'utf8')
const password = 'correct horse battery staple'
const quiet = { log: () => {}, fail: (line: string) => console.error(line) }
const root = mkdtempSync(path.join(tmpdir(), 'vip-allocation-'))
const servers: ServerProcess[] = []
let pg: TestPostgres

function machine(name: string): Record<string, string> {
  const dir = path.join(root, name)
  cpSync('public', path.join(dir, 'public'), { recursive: true })
  cpSync('documents', path.join(dir, 'documents'), { recursive: true })
  writeFileSync(path.join(dir, 'page.config.json'), original)
  writeDist(path.join(dir, 'dist'))
  mkdirSync(path.join(dir, 'dist', '_studio', 'assets'), { recursive: true })
  writeFileSync(path.join(dir, 'dist', '_studio', 'index.html'), '<!doctype html><title>Studio</title>')
  return {
    DATABASE_URL: pg.url!,
    DATA_DIR: path.join(dir, '.data'),
    DIST_DIR: path.join(dir, 'dist'),
    PAGE_CONFIG: path.join(dir, 'page.config.json'),
    SUPPRESSION_SECRET: 'test-suppression-secret-0123456789',
  }
}

beforeAll(async () => {
  pg = await startTestPostgres({ empty: true })
  expect(await migrateDatabase(pg.url!, path.resolve('supabase/migrations'), quiet)).toBe(0)
}, 60_000)

afterAll(async () => {
  for (const server of servers) await server.stop()
  await pg?.stop()
  rmSync(root, { recursive: true, force: true })
})

describe('allocating one lot on two Node servers at the same second', () => {
  it('succeeds once; the other is told the lot was just allocated; the lot is allocated once in the database', async () => {
    const [envA, envB] = [machine('a'), machine('b')]
    const [a, b] = [await startServerProcess(envA, 60_000), await startServerProcess(envB, 60_000)]
    servers.push(a, b)

    const leads = createPostgresStore(pg.db, { defaultLaunch })
    const release = createPostgresRelease(pg.db)
    await release.importLots(
      defaultLaunch,
      [{ lot: 'Lot 14', release: null, models: ['Maple'], frontage: null, price: 899900, status: 'available' }],
      new Date().toISOString(),
    )
    const ids: number[] = []
    for (const n of [1, 2]) {
      const email = `realtor${n}@example.com`
      const realtor = await leads.saveLead(newLead({ fields: { name: 'R', email, isRealtor: 'yes' } }), null)
      const sheet = await release.saveWorksheet(
        {
          launch: defaultLaunch,
          realtorLeadId: realtor.lead.id,
          realtorEmail: email,
          clientName: `Client ${n}`,
          clientEmail: `client${n}@example.com`,
          clientPhone: '555-555-0100',
          choices: [{ lot: 'Lot 14', model: 'Maple' }],
          depositAccepted: true,
          notes: '',
          receivedAt: new Date().toISOString(),
        },
        () => [],
      )
      ids.push(sheet.id)
    }

    const { stdout } = await run(
      'npm',
      ['run', '-s', 'studio:invite', '--', '--email', 'owner@example.com', '--role', 'owner'],
      { env: { PATH: process.env.PATH!, HOME: process.env.HOME ?? root, PORT: '4321', ...envA } },
    )
    const invitePath = new URL(/^(http:\/\/localhost:4321\/studio\/invite\/\S+)$/m.exec(stdout)![1]!).pathname
    const set = await fetch(`${a.url}${invitePath}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { origin: a.url, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ password, confirm: password }),
    })
    const cookie = set.headers
      .getSetCookie()
      .find((line) => line.startsWith('studio_session='))!
      .split(';')[0]!

    const allocate = (server: ServerProcess, worksheetId: number) =>
      fetch(`${server.url}/studio/api/launches/${defaultLaunch}/allocation/allocate`, {
        method: 'POST',
        headers: { origin: server.url, cookie, 'content-type': 'application/json' },
        body: JSON.stringify({ worksheetId, lot: 'Lot 14', model: 'Maple' }),
      })
    const answers = await Promise.all([allocate(a, ids[0]!), allocate(b, ids[1]!)])
    const statuses = answers.map((r) => r.status).sort()
    expect(statuses).toEqual([200, 409])
    const winner = answers[0].status === 200 ? 1 : 2
    const loser = answers.find((r) => r.status === 409)!
    expect(await loser.json()).toEqual({ error: `Lot 14 was just allocated to worksheet ${winner}.` })

    const { rows } = await pg.db.query(
      "SELECT count(*)::int AS n FROM public.worksheets WHERE allocated_lot = 'Lot 14' AND outcome = 'allocated'",
    )
    expect(rows).toEqual([{ n: 1 }])
    const lot = (await release.listLots(defaultLaunch))[0]!
    expect(lot).toMatchObject({ status: 'allocated', worksheetId: ids[winner - 1] })
    // The board lists both worksheets in received order, the winner allocated, on either server.
    const board = await fetch(`${b.url}/studio/api/launches/${defaultLaunch}/allocation`, { headers: { cookie } })
    const shown = (await board.json()) as { worksheets: Array<{ number: number; outcome: string }> }
    expect(shown.worksheets.map((w) => [w.number, w.outcome])).toEqual([
      [1, winner === 1 ? 'allocated' : 'received'],
      [2, winner === 2 ? 'allocated' : 'received'],
    ])
  }, 120_000)
})
