import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import Database from 'better-sqlite3'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { PageConfig } from '../../schema/page-config.ts'
import { startLeadsPageServer } from '../../src/cli/leads-page.ts'
import { parseNodeEnv } from '../../src/server/env.ts'
import { createLeadsPage } from '../../src/server/leads-page/leads-page.ts'
import { decodePosition, encodePosition } from '../../src/server/leads-page/routes/list.ts'
import { leadsPageLaunchOf } from '../../src/server/leads-page/views.ts'
import type { LeadsPageLaunch } from '../../src/server/leads-page/views.ts'
import type { LeadsAuditEntry } from '../../src/server/leads-page/viewers.ts'
import { createPasswordCheck, openSessionStore, type SessionStore } from '../../src/server/leads-page/sessions.ts'
import { createPostgresStore } from '../../src/server/store/postgres/postgres-store.ts'
import { openSqliteStore } from '../../src/server/store/sqlite/sqlite-store.ts'
import type { LeadStore, StoredLead } from '../../src/server/store/store.ts'
import { secondLaunchConfig } from '../fixtures/second-launch.ts'
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

type Harness = {
  store: LeadStore
  sessions: SessionStore
  now: { value: Date }
  page: ReturnType<typeof createLeadsPage>
  audit: LeadsAuditEntry[]
}

function harness(
  store: LeadStore,
  options: { trustProxy?: number; log?: string[]; launches?: LeadsPageLaunch[] } = {},
): Harness {
  const sessions = openSessionStore(path.join(root, `${crypto.randomUUID()}.sqlite`), password)
  const now = { value: new Date('2026-03-02T15:00:00Z') }
  const log = options.log ?? []
  const audit: LeadsAuditEntry[] = []
  const page = createLeadsPage({
    checkPassword: createPasswordCheck(password),
    audit: (entry) => {
      audit.push(entry)
      return Promise.resolve()
    },
    store,
    sessions,
    launches: options.launches ?? [leadsPageLaunchOf(config)],
    timeZone: 'America/Toronto',
    clientIp: () => '203.0.113.7',
    signInCounts: store,
    trustProxy: options.trustProxy ?? 0,
    clock: () => now.value,
    log: { info: (m) => log.push(m), error: (m) => log.push(m) },
  })
  return { store, sessions, now, page, audit }
}

/** A request as a browser on the page's own origin sends it (Host always; Origin on POSTs). */
function send(
  h: Harness,
  target: string,
  init: { method?: string; form?: Record<string, string>; cookie?: string; headers?: Record<string, string> } = {},
) {
  const method = init.method ?? (init.form ? 'POST' : 'GET')
  const headers: Record<string, string> = {
    host: 'leads.example',
    ...(method === 'POST' ? { origin } : {}),
    ...init.headers,
  }
  if (init.cookie) headers.cookie = init.cookie
  if (init.form) headers['content-type'] = 'application/x-www-form-urlencoded'
  return h.page.request(`${origin}${target}`, {
    method,
    headers,
    body: init.form ? new URLSearchParams(init.form).toString() : undefined,
  })
}

/** The session cookie an answer sets (a sign-in also sets the device cookie of the sign-in limits). */
function sessionCookieOf(response: Response): string | undefined {
  return response.headers.getSetCookie().find((cookie) => cookie.startsWith('leads_session='))
}

async function signIn(h: Harness): Promise<string> {
  const response = await send(h, '/leads/sign-in', { form: { password } })
  expect(response.status).toBe(303)
  return (sessionCookieOf(response) ?? '').split(';')[0]!
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
    for (const headers of [
      { origin: 'https://evil.example' },
      { origin: 'null' },
      { origin: 'https://leads.example' },
      { origin: '' },
    ]) {
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

  it("sets an HttpOnly, SameSite=Strict session cookie on /leads for 12 hours, Secure only when the visitor's connection is HTTPS", async () => {
    const plain = await send(h, '/leads/sign-in', { form: { password } })
    expect(sessionCookieOf(plain)).toMatch(
      /^leads_session=[\w-]{43}; Max-Age=43200; Path=\/leads; HttpOnly; SameSite=Strict$/,
    )
    // A forged X-Forwarded-Proto counts for nothing without a proxy in front.
    const forged = await send(h, '/leads/sign-in', { form: { password }, headers: { 'x-forwarded-proto': 'https' } })
    expect(forged.headers.getSetCookie().join('\n')).not.toContain('Secure')

    const proxied = harness(store, { trustProxy: 1 })
    const https = await send(proxied, '/leads/sign-in', {
      form: { password },
      headers: { origin: 'https://leads.example', 'x-forwarded-proto': 'https' },
    })
    expect(https.status).toBe(303)
    expect(sessionCookieOf(https)).toMatch(/; Path=\/leads; HttpOnly; Secure; SameSite=Strict$/)
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
    // Shown in one national format, dialled in E.164, whatever way it was typed.
    expect(listed).toContain('<a href="tel:+16475550111">(647) 555-0111</a>')

    const csv = parseCsv((await (await send(h, '/leads/leads.csv', { cookie })).text()).slice(1))
    const nameColumn = csv[0]!.indexOf('name')
    expect(csv.map((row) => row[nameColumn])).toEqual(['name', 'Priya Raman'])

    await send(h, '/leads/search', { form: { text: 'Priya', clear: '1' }, cookie })
    const all = await (await send(h, '/leads', { cookie })).text()
    expect(all).toContain('2</strong> registrations in all.')
  })

  it('marks a lead that withdrew its consent, on the card and in the table', async () => {
    const lead = newLead({
      fields: { name: 'Noor Saleh', email: 'noor@example.com', phone: '416-555-0142', isRealtor: 'no' },
    })
    const { lead: saved } = await store.saveLead(lead, mailFor(lead))
    const db = new Database(file, { fileMustExist: true })
    db.prepare('UPDATE leads SET withdrawn_at = ? WHERE id = ?').run('2026-03-01T17:05:00.000Z', saved.id)
    db.close()
    const cookie = await signIn(h)
    const listed = await (await send(h, '/leads', { cookie })).text()
    expect(
      listed.match(/Unsubscribed <time datetime="2026-03-01T17:05:00.000Z">Mar 1, 2026, 12:05\u00a0p\.m\.<\/time>/g),
    ).toHaveLength(2)
    expect(listed).toContain('Do not contact.')
  })

  it('shows the phase each lead registered in, on the card, in the table and on the lead', async () => {
    const waitlisted = newLead({
      phase: 'sold-out',
      fields: { name: 'Ines Duarte', email: 'ines@example.com', phone: '416-555-0199', isRealtor: 'no' },
    })
    const { lead: saved } = await store.saveLead(waitlisted, mailFor(waitlisted))
    const older = newLead({ createdAt: '2025-05-01T10:00:00.000Z' })
    await store.saveLead(older, mailFor(older))
    const cookie = await signIn(h)
    const listed = await (await send(h, '/leads', { cookie })).text()
    expect(listed).toContain('<div><dt>Phase</dt><dd>Sold out</dd></div>')
    expect(listed).toContain('<th scope="col">Phase</th>')
    // Each row: its phase, then its updates box (none ticked: —).
    expect(listed.match(/<td>(Sold out|—)<\/td>/g)).toEqual([
      '<td>Sold out</td>',
      '<td>—</td>',
      '<td>—</td>',
      '<td>—</td>',
    ])
    expect(await (await send(h, `/leads/lead/${saved.id}`, { cookie })).text()).toContain(
      '<div><dt>Phase</dt><dd>Sold out</dd></div>',
    )
  })

  it("marks a realtor's registration, shows when a person first registered, and links a buyer to the agent they named", async () => {
    const realtor = newLead({
      createdAt: '2026-03-01T15:00:00.000Z',
      fields: {
        name: 'Rita Agent',
        email: 'rita@agents.example.com',
        phone: '416-555-0150',
        isRealtor: 'yes',
        brokerage: 'Example Realty Inc., Brokerage',
        recoNumber: '5550123',
        forClient: 'yes',
      },
    })
    const { lead: agent } = await store.saveLead(realtor, mailFor(realtor))
    const first = newLead({
      createdAt: '2026-03-02T15:00:00.000Z',
      fields: { name: 'Ben Buyer', email: 'ben@example.com', phone: '416-555-0151', isRealtor: 'no' },
    })
    await store.saveLead(first, mailFor(first))
    const again = newLead({
      createdAt: '2026-03-05T15:00:00.000Z',
      fields: {
        name: 'Ben Buyer',
        email: 'ben@example.com',
        phone: '416-555-0151',
        isRealtor: 'no',
        agent: 'rita@agents.example.com',
      },
    })
    const { lead: buyer } = await store.saveLead(again, mailFor(again))
    const cookie = await signIn(h)
    const listed = await (await send(h, '/leads', { cookie })).text()
    expect(listed.match(/<span class="lp-badge lp-badge-realtor">Realtor<\/span>/g)).toHaveLength(1)
    expect(await (await send(h, `/leads/lead/${agent.id}`, { cookie })).text()).toContain(
      '<span class="lp-badge lp-badge-realtor">Realtor</span>',
    )
    const page = await (await send(h, `/leads/lead/${buyer.id}`, { cookie })).text()
    expect(page).not.toContain('lp-badge-realtor')
    expect(page).toContain('<div><dt>First registered</dt><dd><time datetime="2026-03-02T15:00:00.000Z">')
    expect(page).toContain('<h2 id="agent">Their agent</h2>')
    expect(page).toContain(
      `<a href="/leads/lead/${agent.id}">Rita Agent</a> · Example Realty Inc., Brokerage · registered <time datetime="2026-03-01T15:00:00.000Z">`,
    )
  })

  it('marks a lead the honeypot caught as suspected spam', async () => {
    const lead = newLead({
      suspectedSpam: true,
      fields: { name: 'Bot McBotface', email: 'bot@example.com', phone: '416-555-0000', isRealtor: 'no' },
    })
    await store.saveLead(lead, mailFor(lead))
    const cookie = await signIn(h)
    const listed = await (await send(h, '/leads', { cookie })).text()
    expect(listed.match(/<span class="lp-badge lp-badge-spam">Suspected spam<\/span>/g)).toHaveLength(2)
  })

  it('keeps its sessions in an owner-only file', () => {
    const sessionFile = path.join(root, `${crypto.randomUUID()}.sqlite`)
    openSessionStore(sessionFile, password).close()
    expect(statSync(sessionFile).mode & 0o777).toBe(0o600)
  })

  it('escapes what visitors typed, and neutralises formulas in the CSV', async () => {
    const lead = newLead({
      fields: {
        name: '<img src=x onerror=alert(1)>',
        email: 'x@example.com',
        phone: '=HYPERLINK("http://evil")',
        isRealtor: 'no',
      },
    })
    await store.saveLead(lead, mailFor(lead))
    const cookie = await signIn(h)
    const listed = await (await send(h, '/leads', { cookie })).text()
    expect(listed).toContain('&lt;img src=x onerror=alert(1)&gt;')
    expect(listed).not.toContain('<img')
    const csv = parseCsv((await (await send(h, '/leads/leads.csv', { cookie })).text()).slice(1))
    const record = Object.fromEntries(csv[0]!.map((column, i) => [column, csv[1]![i]]))
    expect(record.phone).toBe('\'=HYPERLINK("http://evil")')
  })

  it("logs sign-ins and refusals without the password or anyone's data", async () => {
    const log: string[] = []
    const logged = harness(store, { log })
    await send(logged, '/leads/sign-in', { form: { password: 'maple ridge guess' } })
    const cookie = await signIn(logged)
    await send(logged, '/leads/search', { form: { text: 'Priya' }, cookie })
    // The client's address is logged with a refusal (issue 21: who is guessing), never the password typed.
    expect(log).toEqual(['leads page: sign-in refused, wrong password (client "203.0.113.7")', 'leads page: signed in'])
    logged.sessions.close()
  })

  it('reads paging positions only in its own shape', () => {
    const position = { createdAt: '2026-03-02T15:00:00.123Z', id: 4711 }
    expect(decodePosition(encodePosition(position))).toEqual(position)
    for (const bad of ['', 'abc', '1-2-3', 'ZZ-1', '1-', `${'z'.repeat(12)}-1`, 'jane@example.com'])
      expect(decodePosition(bad)).toBeUndefined()
  })
})
describe('the leads page with several launches (SQLite)', () => {
  const second = JSON.parse(readFileSync(secondLaunchConfig, 'utf8')) as PageConfig
  const launches = [leadsPageLaunchOf(config), leadsPageLaunchOf(second)]
  let store: LeadStore
  let file: string
  let h: Harness
  beforeEach(async () => {
    file = path.join(root, `${crypto.randomUUID()}.sqlite`)
    store = openSqliteStore(file, { defaultLaunch })
    h = harness(store, { launches })
    const leads = [
      newLead({
        createdAt: '2026-03-01T15:00:00.000Z',
        fields: { name: 'Jane Doe', email: 'jane@example.com', phone: '416-555-0100', isRealtor: 'no' },
      }),
      newLead({
        launch: second.launch.slug,
        createdAt: '2026-03-01T16:00:00.000Z',
        fields: {
          name: 'Wen Zhao',
          email: 'wen@example.com',
          phone: '416-555-0101',
          postalCode: 'M4C 1A1',
          isRealtor: 'yes',
        },
      }),
      newLead({
        createdAt: '2026-03-01T17:00:00.000Z',
        fields: { name: 'Old Timer', email: 'old@example.com', phone: '416-555-0102', isRealtor: 'yes' },
      }),
      newLead({
        launch: 'maple-ridge',
        createdAt: '2026-03-01T18:00:00.000Z',
        fields: { name: 'Lucía Fernández', email: 'lucia@example.com', unitType: 'townhouse' },
      }),
    ]
    for (const lead of leads) await store.saveLead(lead, mailFor(lead))
    // Stored before launches were kept: the default launch's.
    const db = new Database(file, { fileMustExist: true })
    db.prepare('UPDATE leads SET launch = NULL WHERE submission_id = ?').run(leads[2]!.submissionId)
    db.close()
  })
  afterEach(async () => {
    h.sessions.close()
    await store.close()
  })

  const headings = (body: string) => [...body.matchAll(/<th scope="col">([^<]*)<\/th>/g)].map((m) => m[1])
  const cards = (body: string) =>
    [...body.matchAll(/<h2 class="lp-card-title"><a href="\/leads\/lead\/\d+">([^<]*)<\/a><\/h2>/g)].map((m) => m[1])
  /** The <dt>/<dd> pairs of the card titled `name`. */
  function cardOf(body: string, name: string): Record<string, string> {
    const card = body
      .slice(body.search(new RegExp(`<h2 class="lp-card-title"><a href="/leads/lead/\\d+">${name}</a></h2>`)))
      .split('</li>')[0]!
    return Object.fromEntries(
      [...card.matchAll(/<dt>([^<]*)<\/dt><dd>(.*?)<\/dd>/g)].map((m): [string, string] => [
        m[1]!,
        m[2]!.replace(/<[^>]+>/g, ''),
      ]),
    )
  }

  it("names every launch, shows each lead's launch, and shows each lead with its own launch's labels and option names", async () => {
    const signInPage = await (await send(h, '/leads')).text()
    expect(signInPage).toContain('Registrations for Bramblewood Crossing and Willowmere Commons, for the sales team.')
    const cookie = await signIn(h)
    const body = await (await send(h, '/leads', { cookie })).text()
    expect(body).toContain('4</strong> registrations in all.')
    expect(cards(body)).toEqual(['Lucía Fernández', 'Old Timer', 'Wen Zhao', 'Jane Doe'])
    expect(headings(body).slice(0, 8)).toEqual([
      'Received',
      'Launch',
      'Full Name',
      'Email',
      'Phone',
      'Are You A Realtor?',
      'Send me news and VIP updates about Bramblewood Crossing (optional)',
      'Postal code (optional)',
    ])
    expect(headings(body)).toContain('unitType')
    expect(cardOf(body, 'Wen Zhao')).toMatchObject({
      Launch: 'Willowmere Commons',
      'Phone number': '(416) 555-0101',
      'Postal code (optional)': 'M4C 1A1',
      'Are you a real estate agent?': 'Yes, I am',
    })
    expect(cardOf(body, 'Old Timer')).toMatchObject({ Launch: 'Bramblewood Crossing', 'Are You A Realtor?': 'Yes' })
    expect(cardOf(body, 'Lucía Fernández')).toMatchObject({ Launch: 'maple-ridge', unitType: 'townhouse' })
    // In the table, each value as its own launch's form names it.
    const wenRow = body.slice(body.lastIndexOf('<tr>', body.lastIndexOf('Wen Zhao'))).split('</tr>')[0]!
    expect(wenRow).toContain('<td>Willowmere Commons</td>')
    expect(wenRow).toContain('<td>Yes, I am</td>')
    expect(body).toMatch(
      /<select id="search-launch" name="launch">\s*<option value="">All launches<\/option>\s*<option value="bramblewood-crossing">Bramblewood Crossing<\/option>\s*<option value="willowmere-commons">Willowmere Commons<\/option>\s*<option value="maple-ridge">maple-ridge<\/option>\s*<\/select>/,
    )
    expect(body).toContain('<label for="search-launch">Launch</label>')
  })

  it('narrows the list and the CSV to one launch, kept in the session (never in an address), the default launch with the leads from before launches', async () => {
    const cookie = await signIn(h)
    const chosen = await send(h, '/leads/search', { form: { text: '', launch: 'willowmere-commons' }, cookie })
    expect(chosen.status).toBe(303)
    expect(chosen.headers.get('location')).toBe('/leads')
    const body = await (await send(h, '/leads', { cookie })).text()
    expect(body).toContain('1</strong> registration for Willowmere Commons.')
    expect(body).toContain('<option value="willowmere-commons" selected>Willowmere Commons</option>')
    expect(cards(body)).toEqual(['Wen Zhao'])
    // That launch's own fields, in its own order and words.
    expect(headings(body).slice(0, 7)).toEqual([
      'Received',
      'Launch',
      'Your name',
      'Phone number',
      'E-mail address',
      'Postal code (optional)',
      'Are you a real estate agent?',
    ])
    expect(body).toContain('Download these as CSV')
    expect(body).toContain('>Show all</button>')
    const csv = parseCsv((await (await send(h, '/leads/leads.csv', { cookie })).text()).slice(1))
    expect(csv.slice(1).map((row) => [row[csv[0]!.indexOf('name')], row[csv[0]!.indexOf('launch')]])).toEqual([
      ['Wen Zhao', 'willowmere-commons'],
    ])
    expect(csv[0]!.slice(csv[0]!.indexOf('suspected_spam') + 1, csv[0]!.indexOf('suspected_spam') + 6)).toEqual([
      'name',
      'phone',
      'email',
      'postalCode',
      'isRealtor',
    ])

    await send(h, '/leads/search', { form: { text: '', launch: defaultLaunch }, cookie })
    const mine = await (await send(h, '/leads', { cookie })).text()
    expect(mine).toContain('2</strong> registrations for Bramblewood Crossing.')
    expect(cards(mine)).toEqual(['Old Timer', 'Jane Doe'])

    await send(h, '/leads/search', { form: { text: 'old', launch: defaultLaunch }, cookie })
    expect(await (await send(h, '/leads', { cookie })).text()).toContain(
      '1</strong> registration for Bramblewood Crossing matches “old”.',
    )
    await send(h, '/leads/search', { form: { text: 'wen', launch: defaultLaunch }, cookie })
    expect(await (await send(h, '/leads', { cookie })).text()).toContain('Nothing matches that search.')

    // A launch that is not there means every launch; "Show all" forgets both the text and the launch.
    await send(h, '/leads/search', { form: { text: '', launch: 'nowhere' }, cookie })
    expect(await (await send(h, '/leads', { cookie })).text()).toContain('4</strong> registrations in all.')
    await send(h, '/leads/search', { form: { text: 'jane', launch: 'maple-ridge' }, cookie })
    expect(await (await send(h, '/leads', { cookie })).text()).toContain(
      '0</strong> registrations for maple-ridge match “jane”.',
    )
    await send(h, '/leads/search', { form: { text: 'jane', launch: 'maple-ridge', clear: '1' }, cookie })
    const all = await (await send(h, '/leads', { cookie })).text()
    expect(all).toContain('4</strong> registrations in all.')
    expect(all).not.toContain('>Show all</button>')
  })

  it('shows no launch filter or column when there is only one launch', async () => {
    const single = harness(store)
    const db = new Database(file, { fileMustExist: true })
    db.prepare(`DELETE FROM outbox`).run()
    db.prepare(`DELETE FROM leads WHERE launch IS NOT NULL AND launch <> ?`).run(defaultLaunch)
    db.close()
    const cookie = await signIn(single)
    const body = await (await send(single, '/leads', { cookie })).text()
    expect(body).toContain('2</strong> registrations in all.')
    expect(body).not.toContain('search-launch')
    expect(headings(body)).toEqual([
      'Received',
      'Full Name',
      'Email',
      'Phone',
      'Are You A Realtor?',
      'Send me news and VIP updates about Bramblewood Crossing (optional)',
      'Status',
      'Assigned to',
      'Consent',
      'UTM source',
      'Notification',
    ])
    expect(body).not.toContain('<dt>Launch</dt>')
    single.sessions.close()
  })
})

/** The backends the paging figure is measured on. */
const backends: Array<{ name: string; open(): Promise<{ store: LeadStore; close(): Promise<void> }> }> = [
  {
    name: 'SQLite on disk',
    open() {
      const store = openSqliteStore(path.join(root, 'paging.sqlite'), { defaultLaunch })
      return Promise.resolve({ store, close: () => store.close() })
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
            fields: {
              name: `Lead ${n}`,
              email: `lead${n}@example.com`,
              phone: `416-555-${String(n).padStart(4, '0')}`,
              isRealtor: n % 3 === 0 ? 'yes' : 'no',
            },
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
      const names = [
        ...body.matchAll(/<h2 class="lp-card-title"><a href="\/leads\/lead\/\d+">(Lead \d+)<\/a><\/h2>/g),
      ].map((m) => m[1]!)
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
    // How fast a page is, is a figure of npm run bench (bench/dashboard.ts, 20,000 leads), not a limit here: a limit in
    // milliseconds fails by chance on a loaded machine (a median of 157 ms beside three busy processes). Keyset paging
    // is what holds on any machine: the last pages cost what the first ones do (an OFFSET would read up to 4,950 rows
    // to skip them).
    expect(medianOf(times.slice(-10))).toBeLessThan(Math.max(3 * medianOf(times.slice(0, 10)), 50))
  })

  it('finds one lead among 5,000 by phone number, and downloads all 5,000 as CSV', async () => {
    const cookie = await signIn(h)
    await send(h, '/leads/search', { form: { text: '(416) 555 4321' }, cookie })
    const started = performance.now()
    const body = await (await send(h, '/leads', { cookie })).text()
    const searchMs = performance.now() - started
    expect(
      [...body.matchAll(/<h2 class="lp-card-title"><a href="\/leads\/lead\/\d+">(Lead \d+)<\/a><\/h2>/g)].map(
        (m) => m[1],
      ),
    ).toEqual(['Lead 4321'])
    await send(h, '/leads/search', { form: { text: '', clear: '1' }, cookie })
    const csvStarted = performance.now()
    const rows = parseCsv((await (await send(h, '/leads/leads.csv', { cookie })).text()).slice(1))
    const csvMs = performance.now() - csvStarted
    console.log(
      `leads page (${backend.name}): search among 5,000 in ${searchMs.toFixed(1)} ms; CSV of 5,000 in ${csvMs.toFixed(0)} ms`,
    )
    expect(rows).toHaveLength(5001)
    const nameColumn = rows[0]!.indexOf('name')
    expect(rows.slice(1).map((row) => row[nameColumn])).toEqual(newestFirst)
  })
})

describe(`npm run leads:page: the leads page alone, reading PostgreSQL (${plannedPostgresKind()})`, () => {
  it('signs in and lists the leads a Supabase-style database holds, of every launch and of one, and answers 404 for anything else', async () => {
    const pg = await startTestPostgres()
    try {
      await pg.reset()
      const store = createPostgresStore(pg.db, { defaultLaunch })
      for (const name of ['Wen Zhao', 'Lucía Fernández']) {
        const lead = newLead({ fields: { name, email: 'someone@example.com', phone: '416-555-0100', isRealtor: 'no' } })
        await store.saveLead(lead, mailFor(lead))
      }
      await pg.db.query(
        `UPDATE public.leads SET withdrawn_at = '2026-03-01T17:05:00Z' WHERE fields->>'name' = 'Wen Zhao'`,
      )
      const second = JSON.parse(readFileSync(secondLaunchConfig, 'utf8')) as PageConfig
      const elsewhere = newLead({
        launch: second.launch.slug,
        fields: { name: 'Omar Haddad', email: 'omar@example.com', phone: '416-555-0199', isRealtor: 'yes' },
      })
      await store.saveLead(elsewhere, mailFor(elsewhere))
      const parsed = parseNodeEnv({
        LEADS_PASSWORD: password,
        PORT: '0',
        HOST: '127.0.0.1',
        DATA_DIR: path.join(root, 'leads-page-pg'),
      })
      if (!parsed.ok) throw new Error(parsed.problems.join('\n'))
      const server = await startLeadsPageServer(
        [leadsPageLaunchOf(config), leadsPageLaunchOf(second)],
        parsed.config,
        store,
      )
      try {
        const signIn = await fetch(`${server.url}/leads/sign-in`, {
          method: 'POST',
          headers: { origin: server.url, 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ password }),
          redirect: 'manual',
        })
        expect(signIn.status).toBe(303)
        const cookie = (sessionCookieOf(signIn) ?? '').split(';')[0]!
        const list = await fetch(`${server.url}/leads`, { headers: { cookie } })
        expect(list.headers.get('content-security-policy')).toContain("default-src 'self'")
        const body = await list.text()
        expect(body).toContain('3</strong> registrations in all.')
        expect(body.indexOf('Lucía Fernández')).toBeLessThan(body.indexOf('Wen Zhao'))
        expect(body).toContain('<dt>Launch</dt><dd>Willowmere Commons</dd>')
        expect(body).toContain('<dt>Are you a real estate agent?</dt><dd>Yes, I am</dd>')
        const narrowed = await fetch(`${server.url}/leads/search`, {
          method: 'POST',
          headers: { origin: server.url, cookie, 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ text: '', launch: config.launch.slug }),
          redirect: 'manual',
        })
        expect(narrowed.status).toBe(303)
        expect(await (await fetch(`${server.url}/leads`, { headers: { cookie } })).text()).toContain(
          '2</strong> registrations for Bramblewood Crossing.',
        )
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

describe('npm run leads:page: X-Forwarded-Host and -Proto only from the proxy TRUST_PROXY counts (issue 21, item 6)', () => {
  it('ignores them from any other peer, and believes them from a trusted proxy', async () => {
    const store = openSqliteStore(path.join(root, `${crypto.randomUUID()}.sqlite`), { defaultLaunch })
    /** The leads page alone, with TRUST_PROXY=1 and these proxies; 127.0.0.1 (this test) is one of them or not. */
    async function start(trustedProxies: string) {
      const parsed = parseNodeEnv({
        LEADS_PASSWORD: password,
        PORT: '0',
        HOST: '127.0.0.1',
        TRUST_PROXY: '1',
        TRUSTED_PROXIES: trustedProxies,
        DATA_DIR: path.join(root, crypto.randomUUID()),
      })
      if (!parsed.ok) throw new Error(parsed.problems.join('\n'))
      return startLeadsPageServer([leadsPageLaunchOf(config)], parsed.config, store)
    }
    const signIn = (url: string, headers: Record<string, string>) =>
      fetch(`${url}/leads/sign-in`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
        body: new URLSearchParams({ password }),
        redirect: 'manual',
      })
    const forged = {
      origin: 'https://leads.example',
      'x-forwarded-host': 'leads.example',
      'x-forwarded-proto': 'https',
    }
    try {
      const direct = await start('10.0.0.0/8')
      try {
        // A peer that is not the proxy cannot make a post from another origin pass as the page's own…
        expect((await signIn(direct.url, forged)).status).toBe(403)
        // …nor be taken for HTTPS: the page's own post over plain HTTP signs in, with a cookie that is not Secure.
        const plain = await signIn(direct.url, { origin: direct.url, 'x-forwarded-proto': 'https' })
        expect(plain.status).toBe(303)
        expect(sessionCookieOf(plain)).toMatch(/^leads_session=/)
        expect(sessionCookieOf(plain)).not.toMatch(/;\s*Secure/i)
      } finally {
        await direct.close()
      }
      const behindProxy = await start('loopback')
      try {
        const proxied = await signIn(behindProxy.url, forged)
        expect(proxied.status).toBe(303)
        expect(sessionCookieOf(proxied)).toMatch(/;\s*Secure/i)
      } finally {
        await behindProxy.close()
      }
    } finally {
      await store.close()
    }
  })
})
