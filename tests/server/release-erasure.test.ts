import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runLeadsAccess, type AccessReport } from '../../src/cli/leads-access.ts'
import { runLeadsErase } from '../../src/cli/leads-erase.ts'
import { createPostgresRelease } from '../../src/server/store/postgres/postgres-release.ts'
import { createPostgresStore } from '../../src/server/store/postgres/postgres-store.ts'
import type { ReleaseStore } from '../../src/server/store/release.ts'
import { openSqliteRelease } from '../../src/server/store/sqlite/sqlite-release.ts'
import { openSqliteStore } from '../../src/server/store/sqlite/sqlite-store.ts'
import type { LeadStore } from '../../src/server/store/store.ts'
import { defaultLaunch, newLead } from './support/fixtures.ts'
import { plannedPostgresKind, startTestPostgres, type TestPostgres } from './support/postgres.ts'

// leads:access and leads:erase cover the worksheets (issue 45): a client named on a realtor's worksheet gets it in
// their access report and has it erased; a realtor's erasure takes the worksheets they sent.

const root = mkdtempSync(path.join(tmpdir(), 'vip-release-erasure-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

describe.each([
  ['SQLite on disk', 'sqlite'],
  [`PostgreSQL (${plannedPostgresKind()})`, 'postgres'],
] as const)('worksheets in leads:access and leads:erase on %s', (_name, kind) => {
  let pg: TestPostgres | undefined
  let dataDir: string
  let leads: LeadStore
  let release: ReleaseStore & { close?: () => void }
  const env = () => ({
    DATA_DIR: dataDir,
    ...(pg?.url ? { DATABASE_URL: pg.url, SUPPRESSION_SECRET: 'test-suppression-secret-0123456789' } : {}),
  })
  const io = (out: string[]) => ({
    env: env(),
    isTTY: false,
    ask: () => Promise.resolve('no'),
    out: (l: string) => out.push(l),
    err: (l: string) => out.push(l),
  })
  const access = async (email: string): Promise<AccessReport> => {
    const out: string[] = []
    expect(await runLeadsAccess(['--email', email], io(out))).toBe(0)
    return JSON.parse(out.join('\n')) as AccessReport
  }

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(root, `${kind}-`))
    if (kind === 'postgres') {
      pg = await startTestPostgres()
      leads = createPostgresStore(pg.db, { defaultLaunch })
      release = createPostgresRelease(pg.db)
    } else {
      const file = path.join(dataDir, 'leads.sqlite')
      leads = openSqliteStore(file, { defaultLaunch })
      release = openSqliteRelease(file)
    }
    const realtor = await leads.saveLead(
      newLead({ fields: { name: 'Rae Realtor', email: 'rae@example.com', isRealtor: 'yes' } }),
      null,
    )
    for (const client of ['cleo@example.com', 'other@example.com'])
      await release.saveWorksheet(
        {
          launch: defaultLaunch,
          realtorLeadId: realtor.lead.id,
          realtorEmail: 'rae@example.com',
          clientName: client === 'cleo@example.com' ? 'Cleo Client' : 'Otto Other',
          clientEmail: client === 'cleo@example.com' ? 'Cleo@Example.com ' : client,
          clientPhone: '555-555-0142',
          choices: [{ lot: 'Lot 14', model: 'Maple' }],
          depositAccepted: true,
          notes: '',
          receivedAt: new Date().toISOString(),
        },
        () => [],
      )
  })
  afterAll(async () => {
    release.close?.()
    await leads.close()
    await pg?.stop()
  })

  it('prints the worksheets naming a client, and those a realtor sent', async () => {
    const client = await access('cleo@example.com')
    expect(client.registrations).toEqual([])
    expect(client.worksheets.map((w) => w.clientName)).toEqual(['Cleo Client'])
    const realtor = await access('rae@example.com')
    expect(realtor.worksheetsSent.map((w) => w.clientName)).toEqual(['Cleo Client', 'Otto Other'])
  })

  it("erases a client's worksheets though they never registered, and a realtor's with their registration", async () => {
    const out: string[] = []
    expect(await runLeadsErase(['--email', 'CLEO@example.com', '--yes'], io(out))).toBe(0)
    expect(out.join('\n')).toContain('Erased 1 worksheet naming this client.')
    expect((await access('cleo@example.com')).worksheets).toEqual([])
    expect((await release.listWorksheets(defaultLaunch)).map((w) => w.clientName)).toEqual(['Otto Other'])

    expect(await runLeadsErase(['--email', 'rae@example.com', '--yes'], io([]))).toBe(0)
    expect(await release.listWorksheets(defaultLaunch)).toEqual([])
  })
})
