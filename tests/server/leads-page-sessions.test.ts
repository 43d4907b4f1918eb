import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { Hono } from 'hono'
import pg from 'pg'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { leadsPageLaunchOf } from '../../src/server/leads-page/views.ts'
import { mountLeadsPage } from '../../src/server/leads-page/mount-leads-page.ts'
import { createPostgresSessionStore, erasePostgresSearchesFor } from '../../src/server/leads-page/postgres-sessions.ts'
import {
  emptyFilter,
  eraseSearchesFor,
  openSessionStore,
  type LeadsFilter,
  type SessionStore,
} from '../../src/server/leads-page/sessions.ts'
import { createPostgresStore } from '../../src/server/store/postgres/postgres-store.ts'
import { backendsOf } from './support/backends.ts'
import { defaultLaunch, mailFor, newLead, readPageConfig } from './support/fixtures.ts'
import { plannedPostgresKind, startTestPostgres, type TestPostgres } from './support/postgres.ts'

const password = 'correct horse battery staple'
const now = new Date('2026-03-02T15:00:00.000Z')
const later = (ms: number) => new Date(now.getTime() + ms)
const hour = 3_600_000
const backends = backendsOf<[password: string], SessionStore>({
  sqlite: (file, password) => openSessionStore(file, password),
  postgres: (db, password) => createPostgresSessionStore(db, password),
  tables: ['leads_page_sessions', 'leads_page_settings'],
})

/** What the search text of every stored session is now, as the table holds it (for erasure). */
async function storedTexts(backend: (typeof backends)[number]): Promise<string[]> {
  if (backend.kind === 'sqlite') {
    const Database = (await import('better-sqlite3')).default
    const db = new Database(backend.file(), { readonly: true })
    try {
      return (
        db.prepare("SELECT json_extract(filter, '$.text') AS text FROM sessions ORDER BY text").all() as Array<{
          text: string
        }>
      ).map((r) => r.text)
    } finally {
      db.close()
    }
  }
  const { rows } = await backend
    .postgres()
    .db.query("SELECT filter->>'text' AS text FROM public.leads_page_sessions ORDER BY filter->>'text' COLLATE \"C\"")
  return (rows as Array<{ text: string }>).map((r) => r.text)
}

describe.each(backends)("the leads page's sessions", (backend) => {
  let sessions: SessionStore
  beforeAll(() => backend.setup(), 60_000)
  afterAll(() => backend.teardown())
  beforeEach(async () => {
    sessions = await backend.fresh(password)
    return () => sessions.close()
  })
  const erase = (address: string) =>
    backend.kind === 'sqlite'
      ? eraseSearchesFor(backend.file(), address)
      : erasePostgresSearchesFor(backend.postgres().db, address)

  describe(backend.name, () => {
    it('finds a session by its token until it expires or ends, with an empty filter at first', async () => {
      const token = await sessions.create(now, 12 * hour)
      expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/)
      expect(await sessions.find(token, later(1))).toEqual({ expiresAt: later(12 * hour), filter: emptyFilter })
      expect(await sessions.find(token, later(12 * hour))).toBeUndefined()
      expect(await sessions.find(`${token}x`, later(1))).toBeUndefined()
      const other = await sessions.create(now, hour)
      expect(other).not.toBe(token)
      await sessions.end(token)
      expect(await sessions.find(token, later(1))).toBeUndefined()
      expect(await sessions.find(other, later(1))).toBeDefined()
    })

    it('keeps the filter a session saved, whole, and forgets expired sessions when a new one starts', async () => {
      const token = await sessions.create(now, hour)
      const filter: LeadsFilter = {
        text: 'Jane',
        launch: 'maple-ridge',
        status: 'contacted',
        assignee: 'alex@example.com',
        realtor: 'yes',
        from: '2026-03-01',
        to: '2026-03-02',
      }
      await sessions.saveFilter(token, filter)
      expect((await sessions.find(token, later(1)))?.filter).toEqual(filter)
      await sessions.saveFilter(token, { ...emptyFilter, realtor: 'no' })
      expect((await sessions.find(token, later(1)))?.filter).toEqual({ ...emptyFilter, realtor: 'no' })
      await sessions.create(later(hour), hour)
      expect(await storedTexts(backend)).toHaveLength(1)
    })

    it("keeps a studio account's filter under its session's key, never as a session a cookie finds", async () => {
      expect(await sessions.accountFilter('studio-session-hash', now)).toEqual(emptyFilter)
      await sessions.saveAccountFilter(
        'studio-session-hash',
        { ...emptyFilter, text: 'Priya', launch: 'maple-ridge' },
        now,
        hour,
      )
      await sessions.saveAccountFilter('another-session', { ...emptyFilter, text: 'Wen' }, now, hour)
      expect(await sessions.accountFilter('studio-session-hash', later(1))).toEqual({
        ...emptyFilter,
        text: 'Priya',
        launch: 'maple-ridge',
      })
      await sessions.saveAccountFilter('studio-session-hash', { ...emptyFilter, text: 'Lucía' }, later(2), hour)
      expect((await sessions.accountFilter('studio-session-hash', later(hour + 1))).text).toBe('Lucía')
      expect(await sessions.accountFilter('another-session', later(hour))).toEqual(emptyFilter)
      expect(await sessions.find('studio-session-hash', later(3))).toBeUndefined()
    })

    it("signs everyone out when opened with another password, keeping the studio accounts' filters; a second server with the same one sees them", async () => {
      const token = await sessions.create(now, hour)
      await sessions.saveAccountFilter('studio-session-hash', { ...emptyFilter, text: 'Priya' }, now, hour)
      const sameServerElsewhere = await backend.reopen(password)
      expect(await sameServerElsewhere.find(token, later(1))).toMatchObject({ filter: emptyFilter })
      const made = await sameServerElsewhere.create(now, hour)
      expect(await sessions.find(made, later(1))).toBeDefined()
      sameServerElsewhere.close()

      const changed = await backend.reopen('a new team password')
      expect(await changed.find(token, later(1))).toBeUndefined()
      expect(await changed.find(made, later(1))).toBeUndefined()
      expect((await changed.accountFilter('studio-session-hash', later(1))).text).toBe('Priya')
      const fresh = await changed.create(now, hour)
      expect(await changed.find(fresh, later(1))).toBeDefined()
      changed.close()
      // Back to the old password: the old sessions were deleted for good, and the other password's too.
      const back = await backend.reopen(password)
      expect(await back.find(token, later(1))).toBeUndefined()
      expect(await back.find(fresh, later(1))).toBeUndefined()
      back.close()
    })

    it('erases an address from every search that holds it, in any letter case, and keeps the rest of each filter', async () => {
      const a = await sessions.create(now, hour)
      const b = await sessions.create(now, hour)
      const c = await sessions.create(now, hour)
      await sessions.saveFilter(a, { ...emptyFilter, text: 'Ada@Example.com', launch: 'maple-ridge' })
      await sessions.saveFilter(b, { ...emptyFilter, text: 'kim@example.com' })
      await sessions.saveFilter(c, { ...emptyFilter, text: 'Ada Access' })
      await sessions.saveAccountFilter(
        'studio-session-hash',
        { ...emptyFilter, text: 'see ada@example.com' },
        now,
        hour,
      )
      expect(await erase(' ada@EXAMPLE.com ')).toBe(2)
      expect((await sessions.find(a, later(1)))?.filter).toEqual({ ...emptyFilter, launch: 'maple-ridge' })
      expect((await sessions.accountFilter('studio-session-hash', later(1))).text).toBe('')
      expect(await storedTexts(backend)).toEqual(['', '', 'Ada Access', 'kim@example.com'])
      expect(await erase('ada@example.com')).toBe(0)
    })
  })
})

// Two Node servers on one PostgreSQL, each with its own pool, as openLeadsPageSessions gives them (the pool of
// DATABASE_URL).
describe.skipIf(plannedPostgresKind() === 'pglite')('the leads page mounted on two servers over one PostgreSQL', () => {
  let database: TestPostgres
  let pools: pg.Pool[] = []
  let dataDir: string
  beforeAll(async () => {
    database = await startTestPostgres()
    pools = [0, 1].map(() => new pg.Pool({ connectionString: database.url!, max: 3 }))
    // A server's pool hears of its connections closing when the test's PostgreSQL stops; the server logs it
    // (node-store.ts).
    for (const pool of pools) pool.on('error', () => {})
    dataDir = mkdtempSync(path.join(tmpdir(), 'vip-leads-two-'))
  }, 60_000)
  afterAll(async () => {
    await Promise.all(pools.map((pool) => pool.end()))
    await database?.stop()
    rmSync(dataDir, { recursive: true, force: true })
  })

  function site(pool: pg.Pool): Hono {
    const app = new Hono()
    mountLeadsPage(app, {
      dataDir,
      pool,
      password,
      studio: undefined,
      store: createPostgresStore(pool, { defaultLaunch }),
      launches: [leadsPageLaunchOf(readPageConfig())],
      timeZone: 'America/Toronto',
      trustProxy: 0,
      clientIp: () => '203.0.113.7',
    })
    return app
  }

  it('keeps a session made on one valid on the other, with its search, and ends it on both at sign-out; nothing in DATA_DIR', async () => {
    const lead = newLead({
      fields: { name: 'Priya Patel', email: 'priya@example.com', phone: '416-555-0142', isRealtor: 'no' },
    })
    await createPostgresStore(database.db, { defaultLaunch }).saveLead(lead, mailFor(lead))
    const [a, b] = pools.map(site) as [Hono, Hono]
    const post = (app: Hono, target: string, form: Record<string, string>, cookie = '') =>
      app.request(`http://leads.example${target}`, {
        method: 'POST',
        headers: {
          host: 'leads.example',
          origin: 'http://leads.example',
          'content-type': 'application/x-www-form-urlencoded',
          ...(cookie ? { cookie } : {}),
        },
        body: new URLSearchParams(form).toString(),
      })
    const get = (app: Hono, cookie: string) =>
      app.request('http://leads.example/leads', { headers: { host: 'leads.example', cookie } })

    const signedIn = await post(a, '/leads/sign-in', { password })
    expect(signedIn.status).toBe(303)
    const cookie = signedIn.headers
      .getSetCookie()
      .find((c) => c.startsWith('leads_session='))!
      .split(';')[0]!
    expect(await (await get(b, cookie)).text()).toContain('Priya Patel')
    expect((await post(b, '/leads/search', { text: 'nobody by this name' }, cookie)).status).toBe(303)
    const onA = await (await get(a, cookie)).text()
    expect(onA).toContain('value="nobody by this name"')
    expect(onA).not.toContain('Priya Patel')
    await post(a, '/leads/sign-out', {}, cookie)
    expect(await (await get(b, cookie)).text()).not.toContain('nobody by this name')
    expect((await database.db.query('SELECT count(*)::int AS n FROM public.leads_page_sessions')).rows).toEqual([
      { n: 0 },
    ])
    expect(existsSync(path.join(dataDir, 'leads-page.sqlite'))).toBe(false)
  })
})
