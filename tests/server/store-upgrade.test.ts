import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import Database from 'better-sqlite3'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createPostgresStore, type SqlQueryable } from '../../src/server/store/postgres/postgres-store.ts'
import { openSqliteStore } from '../../src/server/store/sqlite/sqlite-store.ts'
import { upgrades } from '../../src/server/store/sqlite/sqlite-schema.ts'
import type { NewLead, StoredLead } from '../../src/server/store/store.ts'
import { defaultLaunch, mailFor, newLead } from './support/fixtures.ts'
import { migrationFiles, plannedPostgresKind, startTestPostgres } from './support/postgres.ts'
import { impliedConsentEnd } from '../../src/server/store/consent.ts'

/** What a lead stored before consent kinds were kept reads as: implied, six months from its inquiry. */
const impliedOf = (lead: { createdAt: string }) => ({
  consentKind: 'implied',
  impliedConsentUntil: impliedConsentEnd(lead.createdAt),
})

// Databases from before launches keep every lead: each is made by the OLD store's own code, taken from git as it was
// shipped (the last commit before the launch column), and then opened by today's store (SQLite: it migrates the file
// on open; PostgreSQL: after the new migration is applied).

/** The last commit whose store had no launch column (schema version 5). */
const oldCommit = '128cd78b13921ff2c00d5f0fdd4dd380d094b37c'

/** What the tests use of an old store (its NewLead had no launch). */
type OldStore = {
  saveLead(
    lead: Omit<NewLead, 'launch'>,
    mail: ReturnType<typeof mailFor> | null,
    more?: unknown[],
  ): Promise<{ lead: Omit<StoredLead, 'launch'> }>
  withdrawLead(submissionId: string, now: Date): Promise<unknown>
  claimDueMail(now: Date, limit: number, leaseMs: number): Promise<Array<{ id: number }>>
  markMailSent(ids: number[], now: Date): Promise<void>
  listLeads(afterId: number, limit: number): Promise<Array<Omit<StoredLead, 'launch'>>>
  close(): Promise<void>
}

const root = mkdtempSync(path.join(tmpdir(), 'vip-sqlite-upgrade-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

/** Writes `file` as it was at `oldCommit` under `dir`, and the files it imports (relative imports), recursively. */
function checkOut(dir: string, file: string, done = new Set<string>()): void {
  if (done.has(file)) return
  done.add(file)
  const text = execFileSync('git', ['show', `${oldCommit}:${file}`], { encoding: 'utf8' })
  mkdirSync(path.dirname(path.join(dir, file)), { recursive: true })
  writeFileSync(path.join(dir, file), text)
  for (const [, target] of text.matchAll(/^import [^;]*?from '(\.{1,2}\/[^']+)'/gm)) {
    checkOut(dir, path.posix.join(path.posix.dirname(file), target!), done)
  }
}

/** A module of the old code (with what it imports), as it was at `oldCommit`. */
async function loadOldModule<T>(file: string): Promise<T> {
  const dir = path.join(root, 'old-code')
  checkOut(dir, file)
  // Its packages (better-sqlite3) resolve from the old code's folder: lend it this checkout's.
  if (!existsSync(path.join(dir, 'node_modules')))
    symlinkSync(path.resolve('node_modules'), path.join(dir, 'node_modules'), 'dir')
  return (await import(pathToFileURL(path.join(dir, file)).href)) as T
}

const person = (name: string, createdAt: string) =>
  newLead({
    createdAt,
    fields: { name, email: `${name.split(' ')[0]!.toLowerCase()}@example.com`, phone: '416-555-0100', isRealtor: 'no' },
  })

/** A lead as the old code was given one: it knew nothing of launches. */
function withoutLaunch(lead: NewLead): Omit<NewLead, 'launch'> {
  const { launch: _launch, ...rest } = lead
  return rest
}

function userVersion(file: string): number {
  const db = new Database(file, { readonly: true })
  try {
    return db.pragma('user_version', { simple: true }) as number
  } finally {
    db.close()
  }
}

describe('a leads database made by the store before launches, opened by this one', () => {
  const file = path.join(root, 'leads.sqlite')
  const old = [
    person('Ada Lovelace', '2025-05-01T10:00:00.000Z'),
    person('Grace Hopper', '2025-05-02T10:00:00.000Z'),
    person('Alan Turing', '2025-05-03T10:00:00.000Z'),
  ]
  let before: Array<Omit<StoredLead, 'launch'>> = []

  beforeAll(async () => {
    const { openSqliteStore: openOldStore } = await loadOldModule<{ openSqliteStore(file: string): OldStore }>(
      'src/server/sqlite-store.ts',
    )
    const store = openOldStore(file)
    for (const lead of old) await store.saveLead(withoutLaunch(lead), mailFor(lead))
    const [first] = await store.claimDueMail(new Date('2025-06-01T00:00:00Z'), 1, 60_000)
    await store.markMailSent([first!.id], new Date('2025-06-01T00:00:01Z'))
    await store.withdrawLead(old[1]!.submissionId, new Date('2025-06-02T00:00:00Z'))
    before = await store.listLeads(0, 10)
    await store.close()
  }, 60_000)

  it('was made by the old code: schema version 5, no launch column', () => {
    expect(userVersion(file)).toBe(5)
    const db = new Database(file, { readonly: true })
    const columns = (db.pragma('table_info(leads)') as Array<{ name: string }>).map((c) => c.name)
    db.close()
    expect(columns).not.toContain('launch')
    expect(before.map((l) => l.fields.name)).toEqual(['Ada Lovelace', 'Grace Hopper', 'Alan Turing'])
  })

  it("is read as it is, read-only (an export while the old server still runs on it): every lead the default launch's", async () => {
    const store = openSqliteStore(file, { readonly: true, defaultLaunch })
    try {
      expect(await store.listLeads(0, 10)).toEqual(
        before.map((lead) => ({ ...lead, launch: defaultLaunch, ...impliedOf(lead) })),
      )
      expect((await store.listLeads(0, 10, defaultLaunch)).length).toBe(3)
      expect(await store.listLeads(0, 10, 'willowmere-commons')).toEqual([])
      expect((await store.searchLeads({ launch: 'willowmere-commons', limit: 10 })).total).toBe(0)
      expect(await store.countLeadsByLaunch()).toEqual([{ launch: defaultLaunch, leads: 3 }])
    } finally {
      await store.close()
    }
    expect(userVersion(file)).toBe(5)
  })

  it("is upgraded on open: every lead and message kept, each lead the default launch's; new leads keep their own launch", async () => {
    const store = openSqliteStore(file, { defaultLaunch })
    try {
      expect(userVersion(file)).toBe(upgrades.length + 1)
      expect(await store.listLeads(0, 10)).toEqual(
        before.map((lead) => ({
          ...lead,
          launch: defaultLaunch,
          firstRegisteredAt: lead.createdAt,
          ...impliedOf(lead),
        })),
      )
      expect(await store.countMessages()).toEqual({ pending: 2, sent: 1, failed: 0, cancelled: 0 })
      const fresh = person('Katherine Johnson', '2025-06-03T10:00:00.000Z')
      const other = { ...person('Hedy Lamarr', '2025-06-04T10:00:00.000Z'), launch: 'willowmere-commons' }
      for (const lead of [fresh, other]) await store.saveLead(lead, mailFor(lead))

      const names = async (launch?: string) =>
        (await store.searchLeads({ limit: 10, ...(launch ? { launch } : {}) })).leads.map((l) => [
          l.fields.name,
          l.launch,
        ])
      expect(await names(defaultLaunch)).toEqual([
        ['Katherine Johnson', defaultLaunch],
        ['Alan Turing', defaultLaunch],
        ['Grace Hopper', defaultLaunch],
        ['Ada Lovelace', defaultLaunch],
      ])
      expect(await names('willowmere-commons')).toEqual([['Hedy Lamarr', 'willowmere-commons']])
      expect((await names()).length).toBe(5)
      expect((await store.listLeads(0, 10)).find((l) => l.fields.name === 'Grace Hopper')?.withdrawnAt).toBe(
        '2025-06-02T00:00:00.000Z',
      )
      expect(await store.countLeadsByLaunch()).toEqual([
        { launch: defaultLaunch, leads: 4 },
        { launch: 'willowmere-commons', leads: 1 },
      ])
    } finally {
      await store.close()
    }
    // Opened again: nothing more to do, nothing lost.
    const again = openSqliteStore(file, { defaultLaunch })
    expect((await again.listLeads(0, 10)).length).toBe(5)
    await again.close()
    expect(userVersion(file)).toBe(upgrades.length + 1)
  })

  it("lists one launch's leads newest first through its own index", () => {
    const db = new Database(file, { readonly: true })
    try {
      const plan = db
        .prepare(`EXPLAIN QUERY PLAN SELECT id FROM leads WHERE launch = ? ORDER BY created_at DESC, id DESC LIMIT 50`)
        .all('willowmere-commons') as Array<{ detail: string }>
      expect(plan.map((step) => step.detail).join('\n')).toMatch(/USING (COVERING )?INDEX leads_launch_newest/)
      expect(plan.map((step) => step.detail).join('\n')).not.toContain('TEMP B-TREE')
    } finally {
      db.close()
    }
  })
})

describe.skipIf(plannedPostgresKind() === 'pglite')(
  `a PostgreSQL database filled by the store before launches, after the launch migration (${plannedPostgresKind()})`,
  () => {
    it("keeps every lead, each the default launch's; new leads keep their own launch, stored by lead_writer too", async () => {
      const pg = await startTestPostgres()
      try {
        // The schema as it was before 20251220000000: every migration but that one's change.
        const migration = migrationFiles().find((file) => file.endsWith('_leads_launch.sql'))!
        expect(path.basename(migration)).toBe('20251220000000_leads_launch.sql')
        await pg.exec('ALTER TABLE public.leads DROP COLUMN launch')
        // …and before the later first-registered time (20251231000500), which reads the launch: applied again below.
        const firstRegistered = migrationFiles().find((file) => file.endsWith('_lead_first_registered.sql'))!
        await pg.exec(
          'DROP TRIGGER leads_first_registered ON public.leads; ALTER TABLE public.leads DROP COLUMN first_registered_at',
        )
        const { createPostgresStore: createOldStore } = await loadOldModule<{
          createPostgresStore(db: SqlQueryable): OldStore
        }>('src/server/postgres-store.ts')
        const old = createOldStore(pg.db)
        const people = [
          person('Ada Lovelace', '2025-05-01T10:00:00.000Z'),
          person('Grace Hopper', '2025-05-02T10:00:00.000Z'),
        ]
        for (const lead of people) await old.saveLead(withoutLaunch(lead), mailFor(lead))
        await old.withdrawLead(people[1]!.submissionId, new Date('2025-06-02T00:00:00Z'))
        const before = await old.listLeads(0, 10)
        expect(before).toHaveLength(2)

        await pg.exec(readFileSync(migration, 'utf8'))
        // Applied again (a second `supabase db push` of the same file): nothing changes.
        await pg.exec(readFileSync(migration, 'utf8'))
        await pg.exec(readFileSync(firstRegistered, 'utf8'))
        const store = createPostgresStore(pg.db, { defaultLaunch })
        expect(await store.listLeads(0, 10)).toEqual(
          before.map((lead) => ({
            ...lead,
            launch: defaultLaunch,
            firstRegisteredAt: lead.createdAt,
            ...impliedOf(lead),
          })),
        )
        expect(await store.countMessages()).toEqual({ pending: 2, sent: 0, failed: 0, cancelled: 0 })
        const other = { ...person('Hedy Lamarr', '2025-06-04T10:00:00.000Z'), launch: 'willowmere-commons' }
        await pg.session(async (db) => {
          await db.query('SET ROLE lead_writer')
          try {
            await createPostgresStore(db, { defaultLaunch }).saveLead(other, mailFor(other))
          } finally {
            await db.query('RESET ROLE')
          }
        })
        const names = async (launch: string) =>
          (await store.searchLeads({ launch, limit: 10 })).leads.map((l) => l.fields.name)
        expect(await names(defaultLaunch)).toEqual(['Grace Hopper', 'Ada Lovelace'])
        expect(await names('willowmere-commons')).toEqual(['Hedy Lamarr'])
        const { rows } = await pg.db.query(`SELECT indexdef FROM pg_indexes WHERE indexname = 'leads_launch_newest'`)
        expect(rows).toEqual([{ indexdef: expect.stringContaining('(launch, created_at, id)') }])
      } finally {
        await pg.stop()
      }
    }, 60_000)
  },
)
