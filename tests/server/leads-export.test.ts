import { execFile } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { csvRecord } from '../../src/server/leads-csv.ts'
import { createPostgresStore } from '../../src/server/postgres-store.ts'
import { openSqliteStore } from '../../src/server/sqlite-store.ts'
import type { LeadStore } from '../../src/server/store.ts'
import { parseCsv } from './support/csv.ts'
import { defaultLaunch, mailFor, newLead } from './support/fixtures.ts'
import { plannedPostgresKind, startTestPostgres } from './support/postgres.ts'

const run = promisify(execFile)
const root = mkdtempSync(path.join(tmpdir(), 'vip-export-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

async function seed(store: LeadStore): Promise<void> {
  const leads = [
    newLead({ fields: { name: 'Jane Doe', email: 'jane@example.com', phone: '555-555-0100', isRealtor: 'no' } }),
    newLead({
      fields: { name: '=HYPERLINK("http://evil.example","Click")', email: 'a,b@example.com', phone: '+1 555 555 0100', isRealtor: 'yes' },
      utm: { utm_source: '@attack', utm_medium: 'cpc', utm_custom: 'x' },
      referrer: '-2+3',
      clickIds: { gclid: 'Cj0KCQ-abc', fbclid: '=cmd' },
      landingPage: '/spring',
      suspectedSpam: true,
      consentReported: '=cmd|calc',
    }),
    newLead({ fields: { name: 'Line\r\nBreak "quoted"', email: 'c@example.com', phone: '5555550100', isRealtor: 'no' }, consentText: 'Line one\nline two', userAgent: null }),
  ]
  for (const lead of leads) await store.saveLead(lead, lead.suspectedSpam ? null : mailFor(lead))
}

const header = [
  'id', 'created_at', 'submission_id', 'launch', 'suspected_spam', 'name', 'email', 'phone', 'isRealtor', 'consent_text', 'consent_sha256',
  'consent_reported', 'page_url', 'referrer', 'landing_page', 'utm_source', 'utm_medium', 'utm_campaign', 'utm_term', 'utm_content',
  'utm_custom', 'gclid', 'gbraid', 'wbraid', 'fbclid', 'msclkid', 'user_agent', 'withdrawn_at',
]

function exportCli(args: string[], env: Record<string, string>) {
  return run(process.execPath, ['--import', 'tsx', 'src/cli/leads-export.ts', ...args], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
  })
}

function checkRows(rows: string[][]): void {
  expect(rows[0]).toEqual(header)
  expect(rows).toHaveLength(4)
  const [, first, hostile, multiline] = rows as [string[], string[], string[], string[]]
  const col = (row: string[], name: string) => row[header.indexOf(name)]
  expect(col(first, 'name')).toBe('Jane Doe')
  expect(col(first, 'utm_source')).toBe('google')
  expect(col(first, 'created_at')).toBe('2025-06-01T14:30:00.000Z')
  expect(col(first, 'consent_sha256')).toBe('6ac42fa0ae3a14bbbe41fd46fb467154203be57a24ffff181293241be1837a8c')
  expect(col(first, 'consent_reported')).toBe('')
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
    const error = await exportCli([], { DATA_DIR: path.join(root, 'empty') }).catch((e: { code: number; stderr: string }) => e)
    expect(error).toMatchObject({ code: 1, stderr: expect.stringContaining('No leads database at') })
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
