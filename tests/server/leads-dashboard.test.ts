import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { PageConfig } from '../../schema/page-config.ts'
import { createLeadsPage } from '../../src/server/leads-page/leads-page.ts'
import { leadsPageLaunchOf } from '../../src/server/leads-page/views.ts'
import type { LeadsAuditEntry } from '../../src/server/leads-page/viewers.ts'
import { createPasswordCheck, openSessionStore, type SessionStore } from '../../src/server/leads-page/sessions.ts'
import { openSqliteStore } from '../../src/server/store/sqlite/sqlite-store.ts'
import type { LeadStore, NewLead } from '../../src/server/store/store.ts'
import { secondLaunchConfig } from '../fixtures/second-launch.ts'
import { parseCsv } from './support/csv.ts'
import { defaultLaunch, mailFor, newLead, readPageConfig } from './support/fixtures.ts'

// The leads page's dashboard as a Hono app against a real SQLite store: the counts a sales manager asks for each
// morning, as charts with their numbers in tables, and no registrant's data.

const root = mkdtempSync(path.join(tmpdir(), 'vip-leads-dashboard-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

const config = readPageConfig()
const second = JSON.parse(readFileSync(secondLaunchConfig, 'utf8')) as PageConfig
const password = 'correct horse battery staple'
const origin = 'http://leads.example'

type Harness = {
  store: LeadStore
  sessions: SessionStore
  page: ReturnType<typeof createLeadsPage>
  audit: LeadsAuditEntry[]
}

function send(h: Harness, target: string, init: { form?: Record<string, string>; cookie?: string } = {}) {
  const method = init.form ? 'POST' : 'GET'
  const headers: Record<string, string> = {
    host: 'leads.example',
    ...(method === 'POST' ? { origin, 'content-type': 'application/x-www-form-urlencoded' } : {}),
  }
  if (init.cookie) headers.cookie = init.cookie
  return h.page.request(`${origin}${target}`, {
    method,
    headers,
    body: init.form ? new URLSearchParams(init.form).toString() : undefined,
  })
}

async function signIn(h: Harness): Promise<string> {
  const response = await send(h, '/leads/sign-in', { form: { password } })
  expect(response.status).toBe(303)
  return response.headers
    .getSetCookie()
    .find((c) => c.startsWith('leads_session='))!
    .split(';')[0]!
}

/** The text of an HTML fragment: tags out, entities of the page's own texts read, spaces folded. */
const textOf = (fragment: string) =>
  fragment
    .replace(/<[^>]+>/g, ' ')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ')
    .trim()

/** The rows of the table with this caption, each as its cells' texts. */
function tableRows(page: string, caption: string): string[][] {
  const table = page.split('<table').find((part) => part.includes(`<caption>${caption}</caption>`))
  if (!table) throw new Error(`no table "${caption}"`)
  const body = table.slice(table.indexOf('<tbody>'), table.indexOf('</tbody>'))
  return body
    .split('<tr>')
    .slice(1)
    .map((row) =>
      row
        .split(/<t[hd][^>]*>/)
        .slice(1)
        .map(textOf),
    )
}

const person = (name: string, isRealtor: 'yes' | 'no') => ({
  name,
  email: `${name.toLowerCase().replace(/\W/g, '')}@example.com`,
  phone: '416-555-0100',
  isRealtor,
})

describe('the dashboard', () => {
  let store: LeadStore
  let h: Harness
  beforeEach(async () => {
    store = openSqliteStore(path.join(root, `${crypto.randomUUID()}.sqlite`), { defaultLaunch })
    const sessions = openSessionStore(path.join(root, `${crypto.randomUUID()}.sqlite`), password)
    const audit: LeadsAuditEntry[] = []
    const page = createLeadsPage({
      checkPassword: createPasswordCheck(password),
      audit: (entry) => {
        audit.push(entry)
        return Promise.resolve()
      },
      store,
      sessions,
      launches: [leadsPageLaunchOf(config), leadsPageLaunchOf(second)],
      timeZone: 'America/Toronto',
      clientIp: () => '203.0.113.7',
      signInCounts: store,
      trustProxy: 0,
      // 10:00 in Toronto on Monday March 2nd.
      clock: () => new Date('2026-03-02T15:00:00Z'),
      log: { info: () => {}, error: () => {} },
    })
    h = { store, sessions, page, audit }
    const leads: NewLead[] = [
      newLead({
        createdAt: '2026-03-02T06:00:00.000Z',
        fields: person('Ada Lovelace', 'no'),
        utm: { utm_source: 'google' },
      }),
      newLead({
        createdAt: '2026-03-02T14:00:00.000Z',
        fields: person('Grace Hopper', 'yes'),
        utm: { utm_source: 'newsletter', utm_medium: 'email', utm_campaign: 'march-open-house' },
      }),
      // 23:00 on March 1st in Toronto: yesterday for the team, though March 2nd in UTC.
      newLead({
        createdAt: '2026-03-02T04:00:00.000Z',
        fields: person('Alan Turing', 'no'),
        utm: {},
        referrer: 'https://www.facebook.com/',
      }),
      newLead({
        createdAt: '2026-02-10T15:00:00.000Z',
        fields: person('Hedy Lamarr', 'no'),
        utm: { utm_source: 'google' },
      }),
      // More than 30 days ago: not on the dashboard.
      newLead({ createdAt: '2026-01-20T15:00:00.000Z', fields: person('Katherine Johnson', 'no') }),
      newLead({
        launch: second.launch.slug,
        createdAt: '2026-03-02T13:00:00.000Z',
        fields: person('Omar Haddad', 'yes'),
        utm: { utm_source: 'google' },
      }),
    ]
    for (const lead of leads) await store.saveLead(lead, mailFor(lead))
    await store.addVisits([
      { launch: defaultLaunch, day: '2026-03-02', source: 'google', visits: 30, visitors: 20 },
      { launch: defaultLaunch, day: '2026-03-02', source: 'newsletter', visits: 6, visitors: 5 },
      { launch: second.launch.slug, day: '2026-03-02', source: 'google', visits: 10, visitors: 8 },
    ])
  })
  afterEach(async () => {
    h.sessions.close()
    await store.close()
  })

  it('is for signed-in people only', async () => {
    const response = await send(h, '/leads/dashboard')
    expect(response.status).toBe(303)
    expect(response.headers.get('location')).toBe('/leads')
  })

  it("shows today, yesterday and 30 days in the team's time zone, as charts with their numbers, and no registrant's data", async () => {
    const cookie = await signIn(h)
    const list = await (await send(h, '/leads', { cookie })).text()
    expect(list).toContain('<a href="/leads/dashboard" class="lp-tab">Dashboard</a>')
    const response = await send(h, '/leads/dashboard', { cookie })
    expect(response.status).toBe(200)
    expect(response.headers.get('cache-control')).toBe('no-store')
    const page = await response.text()
    expect(page).toContain('<a href="/leads/dashboard" class="lp-tab" aria-current="page">Dashboard</a>')
    for (const name of ['Ada', 'Grace', 'Alan', 'Hedy', 'Omar', '@example.com', '416']) expect(page).not.toContain(name)

    const tiles = [...page.matchAll(/<div class="lp-tile">([\s\S]*?)<\/div>/g)].map((m) => textOf(m[1]!))
    expect(tiles).toEqual([
      'Today 3 registrations 33 visitors · 9.1% registered',
      'Yesterday 1 registration No visits counted',
      // Only the days with counted visits set registrations against visitors.
      'Last 30 days 5 registrations 33 visitors · 9.1% registered',
    ])
    const days = tableRows(page, 'Registrations per day')
    expect(days).toHaveLength(30)
    expect(days[0]).toEqual(['Mon, Mar 2', '3', '1', '33', '9.1%'])
    expect(days[1]).toEqual(['Sun, Mar 1', '1', '0', '0', '—'])
    expect(days.at(-1)![0]).toBe('Sun, Feb 1')
    expect(days.find((d) => d[0] === 'Tue, Feb 10')).toEqual(['Tue, Feb 10', '1', '0', '0', '—'])

    // Each chart is an img named for what it shows.
    const names = [
      ...page.matchAll(
        /<svg class="lp-chart"[^>]*role="img" aria-labelledby="([\w-]+)"[\s\S]*?<title id="\1">([^<]+)<\/title>/g,
      ),
    ].map((m) => m[2])
    expect(names).toEqual([
      'Registrations per day for the last 30 days, Feb 1 to Mar 2: 5 in all',
      'Registrations by source, last 30 days',
      'Realtors and buyers, last 30 days',
      'Registrations of the last 30 days by status',
    ])
    expect(tableRows(page, 'Registrations by source')).toEqual([
      ['google', '3', '28', '11%'],
      ['newsletter', '1', '5', '20%'],
      ['facebook.com', '1', '0', '—'],
    ])
    expect(tableRows(page, 'Realtors and buyers')).toEqual([
      ['Buyers', '3'],
      ['Realtors', '2'],
    ])
    expect(tableRows(page, 'Registrations by status')[0]).toEqual(['New', '5'])
    expect(tableRows(page, 'Registrations from e-mail links, by campaign')).toEqual([
      ['march-open-house', '1', 'Mar 2', 'Mar 2'],
    ])
    expect(h.audit.at(-1)).toMatchObject({ action: 'viewed the dashboard', detail: 'all launches' })
  })

  it("says how the server's e-mail stands: how many wait, the oldest's wait, and a notice when it is behind", async () => {
    const cookie = await signIn(h)
    const mailLine = async () => {
      const page = await (await send(h, '/leads/dashboard', { cookie })).text()
      return /<p id="mail-health" class="([^"]+)">([\s\S]*?)<\/p>/.exec(page)
    }
    // Six notifications queued, the oldest with the lead of January 20th (the page's clock: March 2nd, 15:00 UTC).
    const behind = await mailLine()
    expect(behind?.[1]).toBe('lp-notice lp-notice-error')
    expect(textOf(behind![2]!)).toBe(
      '6 messages wait to be sent; the oldest has waited 41 days. That is longer than usual: the e-mail is falling ' +
        'behind. Tell whoever looks after the server.',
    )
    // All sent, and one more registration a minute and a half ago: waiting, not behind.
    const jobs = await store.claimDueMail(new Date('2026-03-02T15:00:00Z'), 10, 60_000)
    await store.markMailSent(
      jobs.map((job) => job.id),
      new Date('2026-03-02T15:00:00Z'),
    )
    expect(textOf((await mailLine())![2]!)).toBe('No message waits to be sent. Every e-mail has gone out.')
    const recent = newLead({ createdAt: '2026-03-02T14:58:30.000Z', fields: person('Mary Jackson', 'no') })
    await store.saveLead(recent, mailFor(recent))
    const waiting = await mailLine()
    expect(waiting?.[1]).toBe('lp-note')
    expect(textOf(waiting![2]!)).toBe(
      '1 message waits to be sent; the oldest has waited 1 minute. E-mail usually goes within a minute of a registration.',
    )
  })

  it('narrows to the launch chosen, kept in the session with the list, never in the URL', async () => {
    const cookie = await signIn(h)
    const chosen = await send(h, '/leads/dashboard', { cookie, form: { launch: second.launch.slug } })
    expect(chosen.status).toBe(303)
    expect(chosen.headers.get('location')).toBe('/leads/dashboard')
    const page = await (await send(h, '/leads/dashboard', { cookie })).text()
    expect(tableRows(page, 'Registrations per day')[0]).toEqual(['Mon, Mar 2', '1', '0', '8', '13%'])
    expect(tableRows(page, 'Registrations by source')).toEqual([['google', '1', '8', '13%']])
    expect(page).toContain(`<option value="${second.launch.slug}" selected>`)
    // The list shows the same launch.
    const list = await (await send(h, '/leads', { cookie })).text()
    expect(list).toContain('<strong>1</strong> registration for')
    // A launch that is not there means all of them.
    await send(h, '/leads/dashboard', { cookie, form: { launch: 'nowhere' } })
    expect(
      tableRows(await (await send(h, '/leads/dashboard', { cookie })).text(), 'Registrations per day')[0]![1],
    ).toBe('3')
  })

  it('downloads a CSV for people: plain headings, local times, formatted phones, status and assignee, source, launch by name', async () => {
    const cookie = await signIn(h)
    const tricky = newLead({
      createdAt: '2026-03-01T03:30:00.000Z',
      fields: { name: '=Zoë "Zed", Jr.', email: 'zoe@example.org', phone: '6475550111', isRealtor: 'yes' },
      utm: {},
      clickIds: { fbclid: 'x' },
    })
    const saved = await store.saveLead(tricky, mailFor(tricky))
    await store.recordFollowUp({
      leadId: saved.lead.id,
      kind: 'status',
      value: 'Contacted',
      author: 'sam@example.com',
      at: '2026-03-02T15:00:00.000Z',
    })
    await store.recordFollowUp({
      leadId: saved.lead.id,
      kind: 'assignee',
      value: 'sam@example.com',
      author: 'sam@example.com',
      at: '2026-03-02T15:00:00.000Z',
    })
    const list = await (await send(h, '/leads', { cookie })).text()
    expect(list).toContain(
      '<a class="lp-button lp-button-quiet" href="/leads/people.csv" download>Download all as CSV</a>',
    )
    expect(list).toContain('href="/leads/leads.csv" download>All columns (CSV)</a>')

    const response = await send(h, '/leads/people.csv', { cookie })
    expect(response.headers.get('content-disposition')).toBe('attachment; filename="all-launches-leads-2026-03-02.csv"')
    // Read with its byte-order mark kept (Response#text drops it), as Excel reads the file.
    const text = new TextDecoder('utf-8', { ignoreBOM: true }).decode(await response.arrayBuffer())
    expect(text.startsWith('\uFEFF')).toBe(true)
    const [header, ...rows] = parseCsv(text.slice(1))
    expect(header!.slice(0, 10)).toEqual([
      'Received (local time)',
      'Launch',
      'Name',
      'E-mail',
      'Phone',
      'Realtor',
      'Status',
      'Assigned to',
      'Last note',
      'Source',
    ])
    // Then the forms' other fields by their labels: never one with a column of its own (name, e-mail, phone, realtor).
    expect(header).not.toContain('name')
    expect(header).not.toContain('Full Name')
    expect(rows).toHaveLength(7)
    // Newest first, as the list; the leading = is neutralised as a text cell.
    expect(rows.find((row) => row[3] === 'zoe@example.org')!.slice(0, 10)).toEqual([
      '2026-02-28 22:30',
      config.site.name,
      `'=Zoë "Zed", Jr.`,
      'zoe@example.org',
      '(647) 555-0111',
      'Yes',
      'Contacted',
      'sam@example.com',
      '',
      'Meta ads',
    ])
    expect(rows[0]![2]).toBe('Grace Hopper')
    expect(rows.find((row) => row[2] === 'Ada Lovelace')!.slice(0, 10)).toEqual([
      '2026-03-02 01:00',
      config.site.name,
      'Ada Lovelace',
      'adalovelace@example.com',
      '(416) 555-0100',
      'No',
      'New',
      '',
      '',
      'google',
    ])
    expect(rows.find((row) => row[2] === 'Alan Turing')!.slice(0, 2)).toEqual(['2026-03-01 23:00', config.site.name])
    expect(rows.find((row) => row[2] === 'Alan Turing')![9]).toBe('facebook.com')
    expect(rows.find((row) => row[2] === 'Omar Haddad')![1]).toBe(second.site.name)
    expect(h.audit.at(-1)).toMatchObject({
      action: 'downloaded leads as CSV (for people)',
      detail: 'all launches, no search; 7 leads',
    })

    // One launch chosen: its name in the file's, and in its Launch column too (files are forwarded and merged); the
    // full CSV keeps every technical column.
    await send(h, '/leads/search', { cookie, form: { text: '', launch: second.launch.slug } })
    const one = await send(h, '/leads/people.csv', { cookie })
    expect(one.headers.get('content-disposition')).toBe(
      `attachment; filename="${second.launch.slug}-leads-2026-03-02.csv"`,
    )
    const [oneHeader, ...oneRows] = parseCsv(await one.text())
    expect(oneRows.map((row) => row.slice(0, 10))).toEqual([
      [
        '2026-03-02 08:00',
        second.site.name,
        'Omar Haddad',
        'omarhaddad@example.com',
        '(416) 555-0100',
        'Yes',
        'New',
        '',
        '',
        'google',
      ],
    ])
    expect(oneHeader!.length).toBe(oneRows[0]!.length)
    const full = parseCsv(await (await send(h, '/leads/leads.csv', { cookie })).text())
    expect(full[0]).toEqual(
      expect.arrayContaining([
        'id',
        'created_at',
        'submission_id',
        'consent_sha256',
        'utm_source',
        'gclid',
        'user_agent',
      ]),
    )
  })
})
