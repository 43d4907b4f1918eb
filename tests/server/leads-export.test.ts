import { execFile } from 'node:child_process'
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { csvRecord } from '../../src/server/leads-page/leads-csv.ts'
import { createPostgresStore } from '../../src/server/store/postgres/postgres-store.ts'
import { openSqliteStore } from '../../src/server/store/sqlite/sqlite-store.ts'
import type { LeadStore } from '../../src/server/store/store.ts'
import { parseCsv } from './support/csv.ts'
import { secondLaunchDir } from '../fixtures/second-launch.ts'
import { defaultLaunch, mailFor, newLead } from './support/fixtures.ts'
import { plannedPostgresKind, startTestPostgres } from './support/postgres.ts'

const run = promisify(execFile)
const root = mkdtempSync(path.join(tmpdir(), 'vip-export-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

async function seed(store: LeadStore): Promise<void> {
  const leads = [
    newLead({ fields: { name: 'Jane Doe', email: 'jane@example.com', phone: '555-555-0100', isRealtor: 'no' } }),
    newLead({
      fields: {
        name: '=HYPERLINK("http://evil.example","Click")',
        email: 'a,b@example.com',
        phone: '+1 555 555 0100',
        isRealtor: 'yes',
      },
      utm: { utm_source: '@attack', utm_medium: 'cpc', utm_custom: 'x' },
      referrer: '-2+3',
      clickIds: { gclid: 'Cj0KCQ-abc', fbclid: '=cmd' },
      landingPage: '/spring',
      suspectedSpam: true,
      consentReported: '=cmd|calc',
    }),
    newLead({
      fields: { name: 'Line\r\nBreak "quoted"', email: 'c@example.com', phone: '5555550100', isRealtor: 'no' },
      consentText: 'Line one\nline two',
      userAgent: null,
      phase: 'sold-out',
    }),
  ]
  for (const lead of leads) await store.saveLead(lead, lead.suspectedSpam ? null : mailFor(lead))
}

const header = [
  'id',
  'created_at',
  'submission_id',
  'launch',
  'phase',
  'realtor',
  'first_registered_at',
  'suspected_spam',
  'name',
  'email',
  'phone',
  'isRealtor',
  'updates',
  'consent_text',
  'consent_sha256',
  'consent_reported',
  'consent_kind',
  'implied_consent_until',
  'page_url',
  'referrer',
  'landing_page',
  'utm_source',
  'utm_medium',
  'utm_campaign',
  'utm_term',
  'utm_content',
  'utm_custom',
  'gclid',
  'gbraid',
  'wbraid',
  'fbclid',
  'msclkid',
  'user_agent',
  'withdrawn_at',
  'documents_opened',
]

function exportCli(args: string[], env: Record<string, string>, cwd = process.cwd()) {
  return run(process.execPath, ['--import', 'tsx', path.resolve('src/cli/leads-export.ts'), ...args], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    cwd,
  })
}

function checkRows(rows: string[][]): void {
  expect(rows[0]).toEqual(header)
  expect(rows).toHaveLength(4)
  const [, first, hostile, multiline] = rows as [string[], string[], string[], string[]]
  const col = (row: string[], name: string) => row[header.indexOf(name)]
  expect(col(first, 'name')).toBe('Jane Doe')
  expect(rows.slice(1).map((row) => col(row, 'launch'))).toEqual([defaultLaunch, defaultLaunch, defaultLaunch])
  expect(col(first, 'utm_source')).toBe('google')
  expect(col(first, 'created_at')).toBe('2025-06-01T14:30:00.000Z')
  expect(col(first, 'consent_sha256')).toBe('6ac42fa0ae3a14bbbe41fd46fb467154203be57a24ffff181293241be1837a8c')
  expect(col(first, 'consent_reported')).toBe('')
  expect([col(first, 'consent_kind'), col(first, 'implied_consent_until')]).toEqual([
    'implied',
    '2025-12-01T14:30:00.000Z',
  ])
  expect(col(hostile, 'consent_reported')).toBe("'=cmd|calc")
  expect(col(hostile, 'name')).toBe(`'=HYPERLINK("http://evil.example","Click")`)
  expect(col(hostile, 'email')).toBe('a,b@example.com')
  expect(col(hostile, 'phone')).toBe("'+1 555 555 0100")
  expect(col(hostile, 'referrer')).toBe("'-2+3")
  expect(col(hostile, 'utm_source')).toBe("'@attack")
  expect(col(hostile, 'utm_custom')).toBe('x')
  expect(col(hostile, 'suspected_spam')).toBe('yes')
  expect(col(first, 'suspected_spam')).toBe('')
  expect(col(hostile, 'gclid')).toBe('Cj0KCQ-abc')
  expect(col(hostile, 'fbclid')).toBe("'=cmd")
  expect(col(hostile, 'landing_page')).toBe('/spring')
  expect(col(first, 'landing_page')).toBe('/')
  expect(col(multiline, 'name')).toBe('Line\r\nBreak "quoted"')
  expect(col(multiline, 'consent_text')).toBe('Line one\nline two')
  expect(col(multiline, 'user_agent')).toBe('')
  expect(rows.slice(1).map((row) => col(row, 'phase'))).toEqual(['', '', 'sold-out'])
  // Realtors are marked, and every lead carries when its person first registered for the launch.
  expect(rows.slice(1).map((row) => col(row, 'realtor'))).toEqual(['', 'yes', ''])
  expect(col(first, 'first_registered_at')).toBe(col(first, 'created_at'))
}

describe('CSV helpers', () => {
  it('quotes only what needs quoting, doubling quotes, and ends records with CRLF', () => {
    expect(csvRecord(['a', 'b c', 'd,e', 'f"g', 'h\ni', ''])).toBe('a,b c,"d,e","f""g","h\ni",\r\n')
  })

  it.each(['=1+1', '+1', '-1', '@SUM(A1)', '\tx', '\rx'])('neutralises %j', (value) => {
    expect(parseCsv(csvRecord([value, 'x']))).toEqual([[`'${value}`, 'x']])
  })

  it('leaves ordinary text alone', () => {
    expect(csvRecord(['Jane = Doe', 'a-b'])).toBe('Jane = Doe,a-b\r\n')
  })
})

describe('npm run leads:export', () => {
  const dataDir = path.join(root, 'data')
  beforeAll(async () => {
    mkdirSync(dataDir, { recursive: true })
    const store = openSqliteStore(path.join(dataDir, 'leads.sqlite'), { defaultLaunch })
    await seed(store)
    await store.close()
  })

  it('writes every lead from DATA_DIR as RFC 4180 CSV on stdout, formulas neutralised', async () => {
    const { stdout, stderr } = await exportCli([], { DATA_DIR: dataDir })
    checkRows(parseCsv(stdout))
    expect(stderr).toContain('Exported 3 leads.')
  })

  it('writes to a file with --output, and adds a BOM for Excel with --excel', async () => {
    const file = path.join(root, 'out.csv')
    await exportCli(['--output', file, '--excel'], { DATA_DIR: dataDir })
    const text = readFileSync(file, 'utf8')
    expect(text.startsWith('\uFEFF')).toBe(true)
    checkRows(parseCsv(text.slice(1)))
  })

  it('says plainly when DATA_DIR holds no leads database', async () => {
    const error = await exportCli([], { DATA_DIR: path.join(root, 'empty') }).catch(
      (e: { code: number; stderr: string }) => e,
    )
    expect(error).toMatchObject({ code: 1, stderr: expect.stringContaining('No leads database at') as string })
  })

  it.skipIf(plannedPostgresKind() === 'pglite')('exports from PostgreSQL with --database-url', async () => {
    const pg = await startTestPostgres()
    try {
      await seed(createPostgresStore(pg.db, { defaultLaunch }))
      const { stdout } = await exportCli(['--database-url', pg.url!], {})
      checkRows(parseCsv(stdout))
    } finally {
      await pg.stop()
    }
  })
})

/**
 * A project with two launches: this repository's page.config.json (the default launch, bramblewood-crossing), the
 * second launch's fixture as launches/willowmere-commons, and launches/cedar-row whose config is broken.
 */
function projectWithLaunches(): string {
  const dir = path.join(root, 'project')
  mkdirSync(path.join(dir, 'launches'), { recursive: true })
  cpSync('page.config.json', path.join(dir, 'page.config.json'))
  symlinkSync(path.resolve('public'), path.join(dir, 'public'), 'dir')
  symlinkSync(path.resolve('documents'), path.join(dir, 'documents'), 'dir')
  cpSync(secondLaunchDir, path.join(dir, 'launches', 'willowmere-commons'), { recursive: true })
  mkdirSync(path.join(dir, 'launches', 'cedar-row'))
  writeFileSync(path.join(dir, 'launches', 'cedar-row', 'page.config.json'), '{ "configVersion": 2, "launch": ')
  // The command resolves tsx from where it runs.
  symlinkSync(path.resolve('node_modules'), path.join(dir, 'node_modules'), 'dir')
  return dir
}

/** Leads of four launches, one stored before launches were kept, one of a launch whose config is gone. */
async function seedLaunches(store: LeadStore, forgetLaunch: (submissionId: string) => Promise<void>): Promise<void> {
  const leads = [
    newLead({ fields: { name: 'Jane Doe', email: 'jane@example.com', phone: '555-555-0100', isRealtor: 'no' } }),
    newLead({
      launch: 'willowmere-commons',
      fields: {
        name: 'Wen Zhao',
        email: 'wen@example.com',
        phone: '555-555-0101',
        postalCode: 'M4C 1A1',
        isRealtor: 'yes',
      },
    }),
    newLead({ fields: { name: 'Old Timer', email: 'old@example.com', phone: '555-555-0102', isRealtor: 'no' } }),
    newLead({
      launch: 'maple-ridge',
      fields: { name: 'Lucía Fernández', email: 'lucia@example.com', unitType: 'townhouse' },
    }),
    newLead({ launch: 'cedar-row', fields: { name: 'Omar Haddad', email: 'omar@example.com', lotSize: '40 ft' } }),
  ]
  for (const lead of leads) await store.saveLead(lead, mailFor(lead))
  await forgetLaunch(leads[2]!.submissionId)
}

/** The CSV as records by column name, and its form-field columns (between suspected_spam and consent_text). */
function readExport(stdout: string): { fields: string[]; records: Array<Record<string, string>> } {
  const [head, ...rows] = parseCsv(stdout) as [string[], ...string[][]]
  const fields = head.slice(head.indexOf('suspected_spam') + 1, head.indexOf('consent_text'))
  return { fields, records: rows.map((row) => Object.fromEntries(head.map((column, i) => [column, row[i]!]))) }
}

describe('npm run leads:export with several launches', () => {
  const project = projectWithLaunches()
  const dataDir = path.join(project, '.data')
  beforeAll(async () => {
    mkdirSync(dataDir, { recursive: true })
    const file = path.join(dataDir, 'leads.sqlite')
    const store = openSqliteStore(file, { defaultLaunch })
    const Database = (await import('better-sqlite3')).default
    await seedLaunches(store, (id) => {
      const db = new Database(file)
      db.prepare('UPDATE leads SET launch = NULL WHERE submission_id = ?').run(id)
      db.close()
      return Promise.resolve()
    })
    await store.close()
  })

  it("exports every launch with a launch column, the launches' form fields in order (the default launch's first), a broken config noted", async () => {
    const { stdout, stderr } = await exportCli([], { DATA_DIR: dataDir }, project)
    const { fields, records } = readExport(stdout)
    expect(records.map((r) => [r.name, r.launch])).toEqual([
      ['Jane Doe', defaultLaunch],
      ['Wen Zhao', 'willowmere-commons'],
      ['Old Timer', defaultLaunch],
      ['Lucía Fernández', 'maple-ridge'],
      ['Omar Haddad', 'cedar-row'],
    ])
    expect(fields.slice(0, 6)).toEqual(['name', 'email', 'phone', 'isRealtor', 'updates', 'postalCode'])
    expect(fields.slice(-2)).toEqual(['unitType', 'lotSize'])
    expect(records[1]!.postalCode).toBe('M4C 1A1')
    expect(stderr).toMatch(
      /^Note: (\/.*\/)?launches\/cedar-row\/page\.config\.json:1:1: The file is not valid JSON\..* Its leads are exported with the fields they hold\.$/m,
    )
    expect(stderr).toContain('Exported 5 leads.')
  })

  it("exports one launch with --launch, in that launch's own field order", async () => {
    const { stdout, stderr } = await exportCli(['--launch', 'willowmere-commons'], { DATA_DIR: dataDir }, project)
    const { fields, records } = readExport(stdout)
    expect(records.map((r) => [r.name, r.launch, r.postalCode])).toEqual([
      ['Wen Zhao', 'willowmere-commons', 'M4C 1A1'],
    ])
    expect(fields.slice(0, 5)).toEqual(['name', 'phone', 'email', 'postalCode', 'isRealtor'])
    expect(stderr).toContain('Exported 1 lead of willowmere-commons.')
    // One launch is read alone: the broken one is not even looked at.
    expect(stderr).not.toContain('cedar-row')
  })

  it("counts the leads stored before launches as the default launch's", async () => {
    const { stdout } = await exportCli(['--launch', defaultLaunch], { DATA_DIR: dataDir }, project)
    const { fields, records } = readExport(stdout)
    expect(records.map((r) => [r.name, r.launch])).toEqual([
      ['Jane Doe', defaultLaunch],
      ['Old Timer', defaultLaunch],
    ])
    expect(fields).toEqual(['name', 'email', 'phone', 'isRealtor', 'updates'])
  })

  it("exports a launch only the data still names, in the data's own fields", async () => {
    const { stdout } = await exportCli(['--launch=maple-ridge'], { DATA_DIR: dataDir }, project)
    const { fields, records } = readExport(stdout)
    expect(records.map((r) => r.name)).toEqual(['Lucía Fernández'])
    expect(fields).toEqual(['name', 'email', 'unitType'])
  })

  it('names the launches there are when asked for one that is not', async () => {
    const error = await exportCli(['--launch', 'nowhere'], { DATA_DIR: dataDir }, project).catch(
      (e: { code: number; stdout: string; stderr: string }) => e,
    )
    expect(error).toMatchObject({ code: 2, stdout: '' })
    expect((error as { stderr: string }).stderr.trim()).toBe(
      `There is no launch "nowhere" here. The launches are: ${defaultLaunch}, cedar-row, willowmere-commons, maple-ridge.`,
    )
  })

  it.skipIf(plannedPostgresKind() === 'pglite')('does the same from PostgreSQL with DATABASE_URL', async () => {
    const pg = await startTestPostgres()
    try {
      await seedLaunches(createPostgresStore(pg.db, { defaultLaunch }), async (id) => {
        await pg.db.query('UPDATE public.leads SET launch = NULL WHERE submission_id = $1', [id])
      })
      const all = readExport((await exportCli([], { DATABASE_URL: pg.url! }, project)).stdout)
      expect(all.records.map((r) => r.launch)).toEqual([
        defaultLaunch,
        'willowmere-commons',
        defaultLaunch,
        'maple-ridge',
        'cedar-row',
      ])
      expect(all.fields.slice(0, 6)).toEqual(['name', 'email', 'phone', 'isRealtor', 'updates', 'postalCode'])
      const one = readExport((await exportCli(['--launch', defaultLaunch], { DATABASE_URL: pg.url! }, project)).stdout)
      expect(one.records.map((r) => r.name)).toEqual(['Jane Doe', 'Old Timer'])
      const error = await exportCli(['--launch', 'nowhere'], { DATABASE_URL: pg.url! }, project).catch(
        (e: { code: number; stderr: string }) => e,
      )
      expect(error).toMatchObject({ code: 2, stderr: expect.stringContaining('The launches are: ') as string })
    } finally {
      await pg.stop()
    }
  })
})
