import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import Database from 'better-sqlite3'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { startLeadsPageServer } from '../../src/cli/leads-page.ts'
import { parseNodeEnv } from '../../src/server/env.ts'
import { createLeadsPage, decodePosition, encodePosition, leadsPageLaunchOf } from '../../src/server/leads-page/leads-page.ts'
import type { LeadsPageLaunch } from '../../src/server/leads-page/views.ts'
import { createPasswordCheck, openSessionStore, type SessionStore } from '../../src/server/leads-page/sessions.ts'
import { createPostgresStore } from '../../src/server/postgres-store.ts'
import { openSqliteStore } from '../../src/server/sqlite-store.ts'
import type { LeadStore, StoredLead } from '../../src/server/store.ts'
import { parseCsv } from './support/csv.ts'
import { defaultLaunch, mailFor, newLead, readPageConfig } from './support/fixtures.ts'
import { plannedPostgresKind, startTestPostgres, type TestPostgres } from './support/postgres.ts'

// The leads page as a Hono app against real stores (SQLite on disk; PostgreSQL for the paging figure): what the
// sales team sees, and what it must never give away.

const root = mkdtempSync(path.join(tmpdir(), 'vip-leads-page-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

const config = readPageConfig()
const password = 'correct horse battery staple'
const origin = 'http://leads.example'

type Harness = { store: LeadStore; sessions: SessionStore; now: { value: Date }; page: ReturnType<typeof createLeadsPage> }

function harness(store: LeadStore, options: { trustProxy?: number; log?: string[]; launches?: LeadsPageLaunch[] } = {}): Harness {
  const sessions = openSessionStore(path.join(root, `${crypto.randomUUID()}.sqlite`))
  const now = { value: new Date('2026-03-02T15:00:00Z') }
  const log = options.log ?? []
  const page = createLeadsPage({
    checkPassword: createPasswordCheck(password),
    store,
    sessions,
    launches: options.launches ?? [leadsPageLaunchOf(config)],
    timeZone: 'America/Toronto',
    clientIp: () => '203.0.113.7',
    trustProxy: options.trustProxy ?? 0,
    clock: () => now.value,
    log: { info: (m) => log.push(m), error: (m) => log.push(m) },
  })
  return { store, sessions, now, page }
}

/** A request as a browser on the page's own origin sends it (Host always; Origin on POSTs). */
function send(h: Harness, target: string, init: { method?: string; form?: Record<string, string>; cookie?: string; headers?: Record<string, string> } = {}) {
  const method = init.method ?? (init.form ? 'POST' : 'GET')
  const headers: Record<string, string> = { host: 'leads.example', ...(method === 'POST' ? { origin } : {}), ...init.headers }
  if (init.cookie) headers.cookie = init.cookie
  if (init.form) headers['content-type'] = 'application/x-www-form-urlencoded'
  return h.page.request(`${origin}${target}`, { method, headers, body: init.form ? new URLSearchParams(init.form).toString() : undefined })
}

async function signIn(h: Harness): Promise<string> {
  const response = await send(h, '/leads/sign-in', { form: { password } })
  expect(response.status).toBe(303)
  const cookie = response.headers.get('set-cookie') ?? ''
  return cookie.split(';')[0]!
}

describe('the leads page (SQLite)', () => {
  let store: LeadStore
  let file: string
  let h: Harness
  beforeEach(() => {
    file = path.join(root, `${crypto.randomUUID()}.sqlite`)
    store = openSqliteStore(file, { defaultLaunch })
    h = harness(store)
  })
  afterEach(async () => {
    h.sessions.close()
    await store.close()
  })

  it('answers no-store and noindex on every page, signed in or not, refused or not', async () => {
    const cookie = await signIn(h)
    const answers = [
      await send(h, '/leads'),
      await send(h, '/leads', { cookie }),
      await send(h, '/leads/leads.css'),
      await send(h, '/leads/leads.csv', { cookie }),
      await send(h, '/leads/leads.csv'),
      await send(h, '/leads/search', { form: { text: 'x' }, cookie }),
      await send(h, '/leads/sign-in', { form: { password: 'wrong' } }),
      await send(h, '/leads/sign-in', { form: { password }, headers: { origin: 'https://evil.example' } }),
      await send(h, '/leads/sign-out', { form: {}, cookie }),
      await send(h, '/leads/'),
    ]
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 303, 303, 401, 403, 200, 301])
    for (const answer of answers) {
      expect(answer.headers.get('cache-control')).toBe('no-store')
      expect(answer.headers.get('x-robots-tag')).toBe('noindex, nofollow')
    }
  })

  it('refuses every POST that does not come from its own origin, before it reads the password or the session', async () => {
    const cookie = await signIn(h)
    for (const headers of [{ origin: 'https://evil.example' }, { origin: 'null' }, { origin: 'https://leads.example' }, { origin: '' }]) {
      const signInAttempt = await send(h, '/leads/sign-in', { form: { password }, headers })
      expect(signInAttempt.status).toBe(403)
      expect(signInAttempt.headers.get('set-cookie')).toBeNull()
      expect(await signInAttempt.text()).toContain('only be sent from the leads page itself')
      expect((await send(h, '/leads/sign-out', { form: {}, cookie, headers })).status).toBe(403)
    }
    // The session survived the forged sign-outs.
    expect(await (await send(h, '/leads', { cookie })).text()).toContain('Registrations')
  })

  it('refuses a form body larger than 4 KiB without reading it', async () => {
    const response = await send(h, '/leads/sign-in', { form: { password: 'x'.repeat(5000) } })
    expect(response.status).toBe(413)
    expect(response.headers.get('set-cookie')).toBeNull()
  })

  it('sets an HttpOnly, SameSite=Strict session cookie on /leads for 12 hours, Secure only when the visitor\'s connection is HTTPS', async () => {
    const plain = await send(h, '/leads/sign-in', { form: { password } })
    expect(plain.headers.get('set-cookie')).toMatch(/^leads_session=[\w-]{43}; Max-Age=43200; Path=\/leads; HttpOnly; SameSite=Strict$/)
    // A forged X-Forwarded-Proto counts for nothing without a proxy in front.
    const forged = await send(h, '/leads/sign-in', { form: { password }, headers: { 'x-forwarded-proto': 'https' } })
    expect(forged.headers.get('set-cookie')).not.toContain('Secure')

    const proxied = harness(store, { trustProxy: 1 })
    const https = await send(proxied, '/leads/sign-in', { form: { password }, headers: { origin: 'https://leads.example', 'x-forwarded-proto': 'https' } })
    expect(https.status).toBe(303)
    expect(https.headers.get('set-cookie')).toMatch(/; Path=\/leads; HttpOnly; Secure; SameSite=Strict$/)
    proxied.sessions.close()
  })

  it('ends a session after 12 hours, and at once on sign-out, even for a copy of the cookie', async () => {
    const cookie = await signIn(h)
    h.now.value = new Date(h.now.value.getTime() + 12 * 3600_000 - 1000)
    expect(await (await send(h, '/leads', { cookie })).text()).toContain('Registrations')
    h.now.value = new Date(h.now.value.getTime() + 1000)
    expect(await (await send(h, '/leads', { cookie })).text()).toContain('Sign in with the team')

    const second = await signIn(h)
    const out = await send(h, '/leads/sign-out', { form: {}, cookie: second })
    expect(out.headers.get('set-cookie')).toMatch(/^leads_session=; Max-Age=0; Path=\/leads/)
    expect(await out.text()).toContain('You are signed out.')
    const replay = await send(h, '/leads', { cookie: second })
    expect(await replay.text()).toContain('Sign in with the team')
    expect((await send(h, '/leads/leads.csv', { cookie: second })).status).toBe(303)
  })

  it('keeps the search text out of every address: POST, kept in the session, then a redirect to /leads', async () => {
    for (const fields of [
      { name: 'Priya Raman', email: 'priya@example.com', phone: '647-555-0111', isRealtor: 'no' },
      { name: 'Omar Haddad', email: 'omar@example.com', phone: '416-555-0199', isRealtor: 'yes' },
    ]) {
      const lead = newLead({ fields, utm: { utm_source: 'facebook' } })
      await store.saveLead(lead, mailFor(lead))
    }
    const cookie = await signIn(h)
    const search = await send(h, '/leads/search', { form: { text: 'Priya' }, cookie })
    expect(search.status).toBe(303)
    expect(search.headers.get('location')).toBe('/leads')
    const listed = await (await send(h, '/leads', { cookie })).text()
    expect(listed).toContain('1</strong> registration matches “Priya”.')
    expect(listed).toContain('Priya Raman')
    expect(listed).not.toContain('Omar Haddad')
    expect(listed).toContain('value="Priya"')
    // Only mailto: and tel: links (which a phone acts on, never requested) carry a person: no link to this site does.
    expect(listed).not.toMatch(/href="\/[^"]*(Priya|priya|647)/)
    expect(listed).toContain('<a href="tel:6475550111">647-555-0111</a>')

    const csv = parseCsv((await (await send(h, '/leads/leads.csv', { cookie })).text()).slice(1))
    const nameColumn = csv[0]!.indexOf('name')
    expect(csv.map((row) => row[nameColumn])).toEqual(['name', 'Priya Raman'])

    await send(h, '/leads/search', { form: { text: 'Priya', clear: '1' }, cookie })
    const all = await (await send(h, '/leads', { cookie })).text()
    expect(all).toContain('2</strong> registrations in all.')
  })

  it('marks a lead that withdrew its consent, on the card and in the table', async () => {
    const lead = newLead({ fields: { name: 'Noor Saleh', email: 'noor@example.com', phone: '416-555-0142', isRealtor: 'no' } })
    const { lead: saved } = await store.saveLead(lead, mailFor(lead))
    const db = new Database(file, { fileMustExist: true })
    db.prepare('UPDATE leads SET withdrawn_at = ? WHERE id = ?').run('2026-03-01T17:05:00.000Z', saved.id)
    db.close()
    const cookie = await signIn(h)
    const listed = await (await send(h, '/leads', { cookie })).text()
    expect(listed.match(/Unsubscribed <time datetime="2026-03-01T17:05:00.000Z">Mar 1, 2026, 12:05\u00a0p\.m\.<\/time>/g)).toHaveLength(2)
    expect(listed).toContain('Do not contact.')
  })

  it('marks a lead the honeypot caught as suspected spam', async () => {
    const lead = newLead({ suspectedSpam: true, fields: { name: 'Bot McBotface', email: 'bot@example.com', phone: '416-555-0000', isRealtor: 'no' } })
    await store.saveLead(lead, mailFor(lead))
    const cookie = await signIn(h)
    const listed = await (await send(h, '/leads', { cookie })).text()
    expect(listed.match(/<span class="lp-badge lp-badge-spam">Suspected spam<\/span>/g)).toHaveLength(2)
  })

  it('keeps its sessions in an owner-only file', () => {
    const sessionFile = path.join(root, `${crypto.randomUUID()}.sqlite`)
    openSessionStore(sessionFile).close()
    expect(statSync(sessionFile).mode & 0o777).toBe(0o600)
  })

  it('escapes what visitors typed, and neutralises formulas in the CSV', async () => {
    const lead = newLead({ fields: { name: '<img src=x onerror=alert(1)>', email: 'x@example.com', phone: '=HYPERLINK("http://evil")', isRealtor: 'no' } })
    await store.saveLead(lead, mailFor(lead))
    const cookie = await signIn(h)
    const listed = await (await send(h, '/leads', { cookie })).text()
    expect(listed).toContain('&lt;img src=x onerror=alert(1)&gt;')
    expect(listed).not.toContain('<img')
    const csv = parseCsv((await (await send(h, '/leads/leads.csv', { cookie })).text()).slice(1))
    const record = Object.fromEntries(csv[0]!.map((column, i) => [column, csv[1]![i]]))
    expect(record.phone).toBe('\'=HYPERLINK("http://evil")')
  })

  it('logs sign-ins and refusals without the password or anyone\'s data', async () => {
    const log: string[] = []
    const logged = harness(store, { log })
    await send(logged, '/leads/sign-in', { form: { password: 'maple ridge guess' } })
    const cookie = await signIn(logged)
    await send(logged, '/leads/search', { form: { text: 'Priya' }, cookie })
    expect(log).toEqual(['leads page: sign-in refused, wrong password', 'leads page: signed in'])
    logged.sessions.close()
  })

  it('reads paging positions only in its own shape', () => {
    const position = { createdAt: '2026-03-02T15:00:00.123Z', id: 4711 }
    expect(decodePosition(encodePosition(position))).toEqual(position)
    for (const bad of ['', 'abc', '1-2-3', 'ZZ-1', '1-', `${'z'.repeat(12)}-1`, 'jane@example.com']) expect(decodePosition(bad)).toBeUndefined()
  })
})

/** The backends the paging figure is measured on. */
const backends: Array<{ name: string; open(): Promise<{ store: LeadStore; close(): Promise<void> }> }> = [
  {
    name: 'SQLite on disk',
    async open() {
      const store = openSqliteStore(path.join(root, 'paging.sqlite'), { defaultLaunch })
      return { store, close: () => store.close() }
    },
  },
  {
    name: `PostgreSQL (${plannedPostgresKind()})`,
    async open() {
      const pg: TestPostgres = await startTestPostgres()
      await pg.reset()
      return { store: createPostgresStore(pg.db, { defaultLaunch }), close: () => pg.stop() }
    },
  },
]

describe.each(backends)('the leads page among 5,000 leads ($name)', (backend) => {
  let opened: { store: LeadStore; close(): Promise<void> }
  let h: Harness
  /** The names newest first, as the store ordered them: by time, then id (concurrent saves take ids in any order). */
  let newestFirst: string[] = []
  beforeAll(async () => {
    opened = await backend.open()
    const saved: StoredLead[] = []
    const start = Date.parse('2026-01-01T00:00:00Z')
    for (let chunk = 0; chunk < 10; chunk++) {
      await Promise.all(
        Array.from({ length: 500 }, (_, i) => {
          const n = chunk * 500 + i
          // Every tenth lead shares its millisecond with the one before: the id must break the tie.
          const lead = newLead({
            createdAt: new Date(start + (n - (n % 10 === 9 ? 1 : 0)) * 60_000).toISOString(),
            fields: { name: `Lead ${n}`, email: `lead${n}@example.com`, phone: `416-555-${String(n).padStart(4, '0')}`, isRealtor: n % 3 === 0 ? 'yes' : 'no' },
          })
          return opened.store.saveLead(lead, mailFor(lead)).then((result) => saved.push(result.lead))
        }),
      )
    }
    newestFirst = saved
      .sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.id - a.id)
      .map((lead) => String(lead.fields.name))
    h = harness(opened.store)
  }, 120_000)
  afterAll(async () => {
    h?.sessions.close()
    await opened?.close()
  })

  it('pages through all of them 50 at a time, newest first, each page as quick as the first', async () => {
    const cookie = await signIn(h)
    const seen: string[] = []
    const times: number[] = []
    let target = '/leads'
    for (;;) {
      const started = performance.now()
      const response = await send(h, target, { cookie })
      const body = await response.text()
      times.push(performance.now() - started)
      expect(response.status).toBe(200)
      const names = [...body.matchAll(/<h2 class="lp-card-title">(Lead \d+)<\/h2>/g)].map((m) => m[1]!)
      expect(names.length).toBe(seen.length + 50 <= 5000 ? 50 : 5000 - seen.length)
      seen.push(...names)
      const older = /href="\/leads\?older=([^"]+)"/.exec(body)?.[1]
      if (!older) break
      target = `/leads?older=${older}`
    }
    const medianOf = (list: number[]) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)]!
    const sorted = [...times].sort((a, b) => a - b)
    const median = medianOf(times)
    const last = times.at(-1)!
    console.log(
      `leads page (${backend.name}): a page of 50 among 5,000 leads in ${median.toFixed(1)} ms (median of ${times.length}), first ${times[0]!.toFixed(1)} ms, last ${last.toFixed(1)} ms, slowest ${sorted.at(-1)!.toFixed(1)} ms`,
    )
    expect(seen).toEqual(newestFirst)
    expect(median).toBeLessThan(100)
    // Keyset paging: the last pages cost what the first ones do (an OFFSET would read up to 4,950 rows to skip them).
    expect(medianOf(times.slice(-10))).toBeLessThan(Math.max(3 * medianOf(times.slice(0, 10)), 50))
  })

  it('finds one lead among 5,000 by phone number, and downloads all 5,000 as CSV', async () => {
    const cookie = await signIn(h)
    await send(h, '/leads/search', { form: { text: '(416) 555 4321' }, cookie })
    const started = performance.now()
    const body = await (await send(h, '/leads', { cookie })).text()
    const searchMs = performance.now() - started
    expect([...body.matchAll(/<h2 class="lp-card-title">(Lead \d+)<\/h2>/g)].map((m) => m[1])).toEqual(['Lead 4321'])
    await send(h, '/leads/search', { form: { text: '', clear: '1' }, cookie })
    const csvStarted = performance.now()
    const rows = parseCsv((await (await send(h, '/leads/leads.csv', { cookie })).text()).slice(1))
    const csvMs = performance.now() - csvStarted
    console.log(`leads page (${backend.name}): search among 5,000 in ${searchMs.toFixed(1)} ms; CSV of 5,000 in ${csvMs.toFixed(0)} ms`)
    expect(rows).toHaveLength(5001)
    const nameColumn = rows[0]!.indexOf('name')
    expect(rows.slice(1).map((row) => row[nameColumn])).toEqual(newestFirst)
    expect(searchMs).toBeLessThan(1000)
  })
})

describe(`npm run leads:page: the leads page alone, reading PostgreSQL (${plannedPostgresKind()})`, () => {
  it('signs in and lists the leads a Supabase-style database holds, and answers 404 for anything else', async () => {
    const pg = await startTestPostgres()
    try {
      await pg.reset()
      const store = createPostgresStore(pg.db, { defaultLaunch })
      for (const name of ['Wen Zhao', 'Lucía Fernández']) {
        const lead = newLead({ fields: { name, email: 'someone@example.com', phone: '416-555-0100', isRealtor: 'no' } })
        await store.saveLead(lead, mailFor(lead))
      }
      await pg.db.query(`UPDATE public.leads SET withdrawn_at = '2026-03-01T17:05:00Z' WHERE fields->>'name' = 'Wen Zhao'`)
      const parsed = parseNodeEnv({ LEADS_PASSWORD: password, PORT: '0', HOST: '127.0.0.1', DATA_DIR: path.join(root, 'leads-page-pg') })
      if (!parsed.ok) throw new Error(parsed.problems.join('\n'))
      const server = await startLeadsPageServer([leadsPageLaunchOf(config)], parsed.config, store)
      try {
        const signIn = await fetch(`${server.url}/leads/sign-in`, {
          method: 'POST',
          headers: { origin: server.url, 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ password }),
          redirect: 'manual',
        })
        expect(signIn.status).toBe(303)
        const cookie = (signIn.headers.get('set-cookie') ?? '').split(';')[0]!
        const list = await fetch(`${server.url}/leads`, { headers: { cookie } })
        expect(list.headers.get('content-security-policy')).toContain("default-src 'self'")
        const body = await list.text()
        expect(body).toContain('2</strong> registrations in all.')
        expect(body.indexOf('Lucía Fernández')).toBeLessThan(body.indexOf('Wen Zhao'))
        expect(body).toContain('Unsubscribed <time datetime="2026-03-01T17:05:00.000Z">')
        expect((await fetch(`${server.url}/functions/v1/send-contact-email`, { method: 'POST' })).status).toBe(404)
        expect((await fetch(`${server.url}/`, { redirect: 'manual' })).headers.get('location')).toBe('/leads')
      } finally {
        await server.close()
      }
    } finally {
      await pg.stop()
    }
  }, 60_000)
})
