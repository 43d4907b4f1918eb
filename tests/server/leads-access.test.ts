import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { runLeadsAccess, type AccessReport } from '../../src/cli/leads-access.ts'
import { createPostgresSessionStore } from '../../src/server/leads-page/postgres-sessions.ts'
import { emptyFilter, openSessionStore } from '../../src/server/leads-page/sessions.ts'
import { createPostgresStore } from '../../src/server/store/postgres/postgres-store.ts'
import { openSqliteStore } from '../../src/server/store/sqlite/sqlite-store.ts'
import { defaultLaunch, mailFor, newLead } from './support/fixtures.ts'
import { plannedPostgresKind, startTestPostgres } from './support/postgres.ts'

// Issue 21, item 12: `npm run leads:access -- --email ADDRESS` gives one person everything held about them, from the
// same places `npm run leads:erase` erases.

const root = mkdtempSync(path.join(tmpdir(), 'vip-access-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

describe('npm run leads:access', () => {
  it("prints the person's registrations with their messages, .eml copies and saved searches, and nobody else's", async () => {
    const dataDir = path.join(root, 'data')
    mkdirSync(path.join(dataDir, 'outbox'), { recursive: true })
    const store = openSqliteStore(path.join(dataDir, 'leads.sqlite'), { defaultLaunch })
    const theirs = [
      newLead({ fields: { name: 'Ada Access', email: 'ada@example.com', phone: '555-555-0101', isRealtor: 'no' } }),
      newLead({ fields: { name: 'Ada Access', email: 'ADA@example.com', phone: '555-555-0101', isRealtor: 'yes' } }),
    ]
    const other = newLead({
      fields: { name: 'Kim Kept', email: 'kim@example.com', phone: '555-555-0102', isRealtor: 'no' },
    })
    for (const lead of [...theirs, other]) await store.saveLead(lead, mailFor(lead))
    await store.close()
    writeFileSync(path.join(dataDir, 'outbox', 'one.eml'), 'To: sales@example.com\r\n\r\nEmail: ada@example.com\r\n')
    writeFileSync(path.join(dataDir, 'outbox', 'two.eml'), 'To: sales@example.com\r\n\r\nEmail: kim@example.com\r\n')
    const sessions = openSessionStore(path.join(dataDir, 'leads-page.sqlite'), 'a team password')
    await sessions.saveFilter(await sessions.create(new Date(), 60_000), { ...emptyFilter, text: 'Ada@Example.com' })
    sessions.close()

    const out: string[] = []
    const err: string[] = []
    const code = await runLeadsAccess(['--email', 'ada@example.com'], {
      env: { DATA_DIR: dataDir },
      out: (l) => out.push(l),
      err: (l) => err.push(l),
    })
    expect({ code, err }).toEqual({ code: 0, err: [] })
    const report = JSON.parse(out.join('\n')) as AccessReport
    expect(report.registrations.map((r) => r.submissionId)).toEqual(theirs.map((l) => l.submissionId))
    expect(report.registrations[1]).toMatchObject({
      fields: theirs[1]!.fields,
      consentText: theirs[1]!.consentText,
      userAgent: 'Mozilla/5.0 (test)',
    })
    expect(report.registrations[0]!.messages).toEqual([
      expect.objectContaining({ kind: 'notification', status: 'pending' }),
    ])
    expect(report.emlCopies).toEqual(['one.eml'])
    expect(report.savedSearches).toBe(1)
    expect(out.join('\n')).not.toContain('kim@example.com')
  })

  it.skipIf(plannedPostgresKind() === 'pglite')(
    'counts the searches saved in PostgreSQL when the leads and the sessions are kept there',
    async () => {
      const pg = await startTestPostgres()
      try {
        const lead = newLead({
          fields: { name: 'Ada Access', email: 'ada@example.com', phone: '555-555-0101', isRealtor: 'no' },
        })
        await createPostgresStore(pg.db, { defaultLaunch }).saveLead(lead, mailFor(lead))
        const sessions = createPostgresSessionStore(pg.db, 'a team password')
        await sessions.saveFilter(await sessions.create(new Date(), 60_000), {
          ...emptyFilter,
          text: 'ADA@example.com',
        })
        await sessions.saveAccountFilter('studio-session', { ...emptyFilter, text: 'ada@example' }, new Date(), 60_000)
        await sessions.saveFilter(await sessions.create(new Date(), 60_000), { ...emptyFilter, text: 'Kim' })
        const out: string[] = []
        const err: string[] = []
        const code = await runLeadsAccess(['--email', 'ada@example.com'], {
          env: { DATA_DIR: path.join(root, 'none'), DATABASE_URL: pg.url! },
          out: (l) => out.push(l),
          err: (l) => err.push(l),
        })
        expect({ code, err }).toEqual({ code: 0, err: [] })
        const report = JSON.parse(out.join('\n')) as AccessReport
        expect(report.registrations.map((r) => r.submissionId)).toEqual([lead.submissionId])
        expect(report.savedSearches).toBe(1)
      } finally {
        await pg.stop()
      }
    },
  )

  it('explains a call without an address', async () => {
    const err: string[] = []
    expect(await runLeadsAccess([], { env: { DATA_DIR: root }, out: () => {}, err: (l) => err.push(l) })).toBe(2)
    expect(err.join('\n')).toContain('--email needs an e-mail address')
  })
})
