import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runInventoryImport } from '../../src/cli/release/inventory-import.ts'
import { checkInventoryCsv, priceOf } from '../../src/server/release/inventory-csv.ts'
import { createPostgresRelease } from '../../src/server/store/postgres/postgres-release.ts'
import type { ReleaseStore } from '../../src/server/store/release.ts'
import { openSqliteRelease } from '../../src/server/store/sqlite/sqlite-release.ts'
import { defaultLaunch } from './support/fixtures.ts'
import { plannedPostgresKind, startTestPostgres, type TestPostgres } from './support/postgres.ts'

const run = promisify(execFile)
const root = mkdtempSync(path.join(tmpdir(), 'vip-inventory-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

/** A builder's price list of 40 lots: the header in its own case and order, lot 17's price mistyped (line 18). */
function priceList(change: (lot: number) => string | undefined = () => undefined): string {
  const lines = ['Suite,MODELS,Price,Release,Frontage,Status']
  for (let n = 1; n <= 40; n++) {
    const models = n % 2 === 0 ? 'Maple|Birch' : 'Maple; Cedar'
    const price = change(n) ?? (n === 17 ? '$89x,900' : n % 3 === 0 ? `$${899 + n},900` : `${899 + n}900`)
    lines.push(`Lot ${n},${models},"${price}",Phase 1,40 ft,${n === 40 ? 'Held' : ''}`)
  }
  return lines.join('\n') + '\n'
}

/** A string containing `text`, as an asymmetric matcher typed for the objects it sits in. */
const containing = (text: string): string => expect.stringContaining(text) as string

function capture() {
  const out: string[] = []
  const err: string[] = []
  return { out, err, io: { out: (l: string) => out.push(l), err: (l: string) => err.push(l) } }
}

describe('checkInventoryCsv', () => {
  it('reads prices as 899900 or $899,900 and models separated by | or ;', () => {
    expect([priceOf('899900'), priceOf('$899,900'), priceOf('$1,249,000.00'), priceOf('89x')]).toEqual([
      899900,
      899900,
      1249000,
      undefined,
    ])
    const checked = checkInventoryCsv('unit,Price,models\n1204,"$899,900",Maple | Birch;Cedar\n')
    expect(checked.problems).toEqual([])
    expect(checked.lots).toEqual([
      {
        lot: '1204',
        release: null,
        models: ['Maple', 'Birch', 'Cedar'],
        frontage: null,
        price: 899900,
        status: 'available',
      },
    ])
  })

  it('names the line and the column of each problem, counting the header as line 1', () => {
    const checked = checkInventoryCsv(
      'Lot,Models,Price,Status\nLot 1,Maple,1,\n\nLot 2,,2,\nLot 3,Maple,3,gone\nLot 1,Maple,4,\n',
    )
    expect(checked.problems).toEqual([
      { line: 4, column: 'Models', message: containing('Lot 2 has no model') },
      { line: 5, column: 'Status', message: containing('"gone" is not a status') },
      { line: 6, column: 'Lot', message: 'Lot 1 is already on line 2: each lot once.' },
    ])
    expect(checked.lots.map((l) => l.lot)).toEqual(['Lot 1'])
  })

  it('refuses a file without a lot, models or price column, on line 1', () => {
    const checked = checkInventoryCsv('Name,Models\nLot 1,Maple\n')
    expect(checked.lots).toEqual([])
    expect(checked.problems).toEqual([
      { line: 1, column: null, message: containing('no lot (or unit, suite), price column') },
    ])
  })
})

describe.each([
  ['SQLite on disk', 'sqlite'],
  [`PostgreSQL (${plannedPostgresKind()})`, 'postgres'],
] as const)('npm run inventory:import on %s', (_name, kind) => {
  let pg: TestPostgres | undefined
  let dataDir: string
  let release: ReleaseStore
  const env = () => ({ DATA_DIR: dataDir, ...(pg?.url ? { DATABASE_URL: pg.url } : {}) })
  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(root, `${kind}-`))
    if (kind === 'postgres') {
      pg = await startTestPostgres()
      if (!pg.url) return
      release = createPostgresRelease(pg.db)
    }
  })
  afterAll(async () => {
    await pg?.stop()
  })

  it('imports 39 of 40 lots, refusing the bad row by line and column; a second import changes nothing', async (t) => {
    if (kind === 'postgres' && !pg?.url) t.skip()
    const file = path.join(dataDir, 'prices.csv')
    writeFileSync(file, priceList())
    const first = capture()
    expect(await runInventoryImport(['--launch', defaultLaunch, file], { env: env(), ...first.io })).toBe(1)
    expect(first.err).toEqual([expect.stringMatching(/^Line 18, column Price: "\$89x,900" is not a price/)])
    expect(first.out.join('\n')).toContain('39 new, 0 changed, 0 unchanged, 1 refused.')
    if (kind === 'sqlite') release = openSqliteRelease(path.join(dataDir, 'leads.sqlite'))
    const lots = await release.listLots(defaultLaunch)
    expect(lots).toHaveLength(39)
    expect(lots.map((l) => l.lot)).not.toContain('Lot 17')
    expect(lots[0]).toMatchObject({ lot: 'Lot 1', models: ['Maple', 'Cedar'], price: 900900, status: 'available' })
    expect(lots.find((l) => l.lot === 'Lot 3')).toMatchObject({ price: 902900, release: 'Phase 1', frontage: '40 ft' })
    expect(lots.at(-1)).toMatchObject({ lot: 'Lot 40', models: ['Maple', 'Birch'], status: 'held' })

    const second = capture()
    expect(await runInventoryImport(['--launch', defaultLaunch, file], { env: env(), ...second.io })).toBe(1)
    expect(second.out.join('\n')).toContain('0 new, 0 changed, 39 unchanged, 1 refused.')
  })

  it('updates the price and status of lots not allocated, and never touches an allocated one', async (t) => {
    if (kind === 'postgres' && !pg?.url) t.skip()
    await runSqlOn(kind, pg, dataDir, "UPDATE lots SET status = 'allocated' WHERE lot = 'Lot 2'")
    const file = path.join(dataDir, 'prices-2.csv')
    writeFileSync(
      file,
      priceList((n) => (n === 2 || n === 4 ? '$1,000,000' : n === 17 ? '916900' : undefined)),
    )
    const third = capture()
    expect(await runInventoryImport(['--launch', defaultLaunch, file], { env: env(), ...third.io })).toBe(0)
    expect(third.out.join('\n')).toContain('1 new, 1 changed, 37 unchanged.')
    expect(third.out.join('\n')).toContain('Left as they are, being allocated: Lot 2.')
    const lots = await release.listLots(defaultLaunch)
    expect(lots.find((l) => l.lot === 'Lot 2')).toMatchObject({ price: 901900, status: 'allocated' })
    expect(lots.find((l) => l.lot === 'Lot 4')).toMatchObject({ price: 1000000, status: 'available' })
  })

  it('refuses a launch it does not know, importing nothing', async (t) => {
    if (kind === 'postgres' && !pg?.url) t.skip()
    const out = capture()
    expect(await runInventoryImport(['--launch', 'no-such-launch', 'x.csv'], { env: env(), ...out.io })).toBe(2)
    expect(out.err.join('\n')).toContain('There is no launch named no-such-launch.')
  })
})

async function runSqlOn(kind: string, pg: TestPostgres | undefined, dataDir: string, sql: string): Promise<void> {
  if (kind === 'postgres') {
    await pg!.db.query(sql)
    return
  }
  const { default: Database } = await import('better-sqlite3')
  const db = new Database(path.join(dataDir, 'leads.sqlite'))
  db.exec(sql)
  db.close()
}

describe('the inventory:import script', () => {
  it('exits 1 from npm when a row was refused, and says so on stderr', async () => {
    const dataDir = mkdtempSync(path.join(root, 'script-'))
    const file = path.join(dataDir, 'prices.csv')
    writeFileSync(file, priceList())
    const error = await run('npm', ['run', '--silent', 'inventory:import', '--', '--launch', defaultLaunch, file], {
      env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '' },
    }).catch((e: { code: number; stdout: string; stderr: string }) => e)
    expect(error).toMatchObject({ code: 1 })
    expect((error as { stderr: string }).stderr).toContain('Line 18, column Price:')
    expect((error as { stdout: string }).stdout).toContain('39 new, 0 changed')
  }, 60_000)
})
