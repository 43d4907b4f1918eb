import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import Database from 'better-sqlite3'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runStudioInvite } from '../../src/cli/studio-invite.ts'
import { openSqliteStore } from '../../src/server/store/sqlite/sqlite-store.ts'
import { openSqliteStudioStore } from '../../src/studio/server/sqlite-store.ts'
import type { StoredAudit } from '../../src/studio/server/store.ts'
import { parseCsv } from './support/csv.ts'
import { defaultLaunch, mailFor, newLead } from './support/fixtures.ts'
import { startServerProcess, writeDist, type ServerProcess } from './support/node-server.ts'

// The leads page under the studio's sign-in, through the real Node server (src/cli/serve.ts) over HTTP: who sees
// which leads, who is refused, and what the audit log (DATA_DIR/studio.sqlite) says about each look.

const leadsPassword = 'a shared team password'
const password = 'correct horse battery staple'
const otherLaunch = 'maple-ridge'

/** The registrants: their names, addresses and phones must never reach the audit log. */
const people = [
  { name: 'Ada Lovelace', email: 'ada.lovelace@example.com', phone: '555-555-0101', launch: defaultLaunch },
  { name: 'Grace Hopper', email: 'grace.hopper@example.org', phone: '555-555-0102', launch: defaultLaunch },
  { name: 'Hedy Lamarr', email: 'hedy.lamarr@example.com', phone: '555-555-0103', launch: otherLaunch },
]
const personalData = people.flatMap((p) => [p.name, p.email, p.phone, p.name.split(' ')[1]!])

type Project = { root: string; dataDir: string; configFile: string; ids: Map<string, number> }

/**
 * A project with the default launch built and three leads stored in the last days (two of it, one of a launch only the
 * leads name).
 */
async function project(): Promise<Project> {
  const root = mkdtempSync(path.join(tmpdir(), 'vip-leads-accounts-'))
  cpSync('public', path.join(root, 'public'), { recursive: true })
  cpSync('documents', path.join(root, 'documents'), { recursive: true })
  const configFile = path.join(root, 'page.config.json')
  writeFileSync(configFile, readFileSync('page.config.json', 'utf8'))
  writeDist(path.join(root, 'dist'))
  const dataDir = path.join(root, '.data')
  mkdirSync(dataDir, { mode: 0o700 })
  const store = openSqliteStore(path.join(dataDir, 'leads.sqlite'), { defaultLaunch })
  const ids = new Map<string, number>()
  for (const [i, person] of people.entries()) {
    // Within the last few days, so the dashboard (the last 30 days by the server's own clock) counts them.
    const createdAt = new Date(Date.now() - (i + 1) * 86_400_000).toISOString()
    const lead = newLead({
      launch: person.launch,
      createdAt,
      fields: { name: person.name, email: person.email, phone: person.phone, isRealtor: 'no' },
    })
    ids.set(person.name, (await store.saveLead(lead, mailFor(lead))).lead.id)
  }
  await store.close()
  return { root, dataDir, configFile, ids }
}

function serve(p: Project, env: Record<string, string> = {}): Promise<ServerProcess> {
  return startServerProcess({
    DATA_DIR: p.dataDir,
    DIST_DIR: path.join(p.root, 'dist'),
    PAGE_CONFIG: p.configFile,
    ...env,
  })
}

/** `npm run studio:invite`'s code; returns the path of the one-time link it prints. */
async function invite(p: Project, email: string, role: string, launches: string[] = []): Promise<string> {
  const out: string[] = []
  const code = await runStudioInvite(
    ['--email', email, '--role', role, ...launches.flatMap((l) => ['--launch', l])],
    { DATA_DIR: p.dataDir, PORT: '3000', PAGE_CONFIG: p.configFile },
    p.root,
    (l: string) => out.push(l),
    (l: string) => out.push(l),
  )
  expect(code, out.join('\n')).toBe(0)
  return new URL(out.find((line) => line.startsWith('http'))!).pathname
}

/** A browser's worth of cookies against one server: sends Origin (this server's, unless told) on every POST. */
function client(server: ServerProcess) {
  const cookies = new Map<string, string>()
  const setCookies: string[] = []
  async function send(
    target: string,
    init: { form?: Record<string, string>; origin?: string; method?: string } = {},
  ): Promise<Response> {
    const method = init.method ?? (init.form ? 'POST' : 'GET')
    const headers: Record<string, string> = {}
    if (cookies.size) headers.cookie = [...cookies].map(([k, v]) => `${k}=${v}`).join('; ')
    if (method !== 'GET') headers.origin = init.origin ?? server.url
    if (init.form) headers['content-type'] = 'application/x-www-form-urlencoded'
    const response = await fetch(`${server.url}${target}`, {
      method,
      headers,
      redirect: 'manual',
      body: init.form ? new URLSearchParams(init.form) : undefined,
    })
    for (const line of response.headers.getSetCookie()) {
      setCookies.push(line)
      const [pair, ...attributes] = line.split(';')
      const [name, value] = [pair!.slice(0, pair!.indexOf('=')), pair!.slice(pair!.indexOf('=') + 1)]
      if (attributes.some((a) => /max-age=0/i.test(a)) || value === '') {
        // A clearing of the same name on another path leaves the one on / alone, as a browser does.
        if (!attributes.some((a) => /path=\/studio$/i.test(a.trim()))) cookies.delete(name)
      } else cookies.set(name, value)
    }
    return response
  }
  return { cookies, setCookies, send }
}
type Client = ReturnType<typeof client>

/** Invites a person, sets their password through the link, and returns the signed-in client and where it landed. */
async function signedIn(
  p: Project,
  server: ServerProcess,
  email: string,
  role: string,
  launches?: string[],
): Promise<{ who: Client; landed: string }> {
  const link = await invite(p, email, role, launches)
  const who = client(server)
  const set = await who.send(link, { form: { password, confirm: password } })
  expect(set.status).toBe(303)
  return { who, landed: set.headers.get('location') ?? '' }
}

async function audit(p: Project): Promise<StoredAudit[]> {
  const store = openSqliteStudioStore(path.join(p.dataDir, 'studio.sqlite'))
  try {
    return (await store.listAudit(10_000)).reverse()
  } finally {
    store.close()
  }
}

/** Every search the leads page keeps (DATA_DIR/leads-page.sqlite), as one text. */
function savedSearches(p: Project): string {
  const db = new Database(path.join(p.dataDir, 'leads-page.sqlite'), { readonly: true })
  try {
    return JSON.stringify(db.prepare('SELECT filter FROM sessions').all())
  } finally {
    db.close()
  }
}

function names(html: string): string[] {
  return people.map((person) => person.name).filter((name) => html.includes(name))
}

function expectNoPersonalData(entries: StoredAudit[]): void {
  const text = JSON.stringify(entries)
  for (const value of personalData) expect(text).not.toContain(value)
}

describe('the leads page with LEADS_PASSWORD and studio accounts (real server)', () => {
  let p: Project
  let server: ServerProcess
  beforeAll(async () => {
    p = await project()
    server = await serve(p, { LEADS_PASSWORD: leadsPassword })
  }, 60_000)
  afterAll(async () => {
    await server?.stop()
    rmSync(p.root, { recursive: true, force: true })
  })

  it("keeps LEADS_PASSWORD working as before, and audits its looks in the studio's log before the studio has any account", async () => {
    expect(server.output()).toContain('Leads page: on')
    const team = client(server)
    const form = await (await team.send('/leads')).text()
    expect(form).toContain('name="password"')
    // No account yet: nothing to sign in to but the shared password.
    expect(form).not.toContain('/studio/sign-in')
    expect((await team.send('/leads/sign-in', { form: { password: 'not the password' } })).status).toBe(401)
    const signIn = await team.send('/leads/sign-in', { form: { password: leadsPassword } })
    expect(signIn.status).toBe(303)
    expect(team.cookies.has('leads_session')).toBe(true)
    expect(names(await (await team.send('/leads')).text())).toEqual(people.map((person) => person.name))
    expect((await team.send('/leads/search', { form: { text: 'Lovelace', launch: '' } })).status).toBe(303)
    expect(names(await (await team.send('/leads')).text())).toEqual(['Ada Lovelace'])
    const csv = parseCsv(await (await team.send('/leads/leads.csv')).text())
    expect(csv.slice(1).map((row) => row[csv[0]!.indexOf('name')])).toEqual(['Ada Lovelace'])
    const lead = await team.send(`/leads/lead/${p.ids.get('Hedy Lamarr')}`)
    expect(lead.status).toBe(200)
    expect(await lead.text()).toContain('hedy.lamarr@example.com')

    const entries = await audit(p)
    const who = 'shared leads password from 127.0.0.1'
    expect(entries.filter((e) => e.action === 'viewed the leads list').map((e) => [e.who, e.detail])).toEqual([
      [who, 'the newest page; all launches, no search; 3 of 3 shown'],
      [who, 'the newest page; all launches, with a search (its text is not recorded); 1 of 1 shown'],
    ])
    expect(entries.filter((e) => e.action === 'downloaded leads as CSV').map((e) => [e.who, e.detail])).toEqual([
      [who, 'all launches, with a search (its text is not recorded); 1 leads'],
    ])
    expect(entries.filter((e) => e.action === 'viewed a lead').map((e) => [e.who, e.launch, e.detail])).toEqual([
      [who, otherLaunch, `lead ${p.ids.get('Hedy Lamarr')}`],
    ])
    expectNoPersonalData(entries)
  })

  it('gives a sales account the leads with no second password: it lands on /leads after signing in at /studio', async () => {
    const { who: sales, landed } = await signedIn(p, server, 'sally.sales@example.com', 'sales')
    expect(landed).toBe('/leads')
    // The studio's session cookie goes to /leads: its path is /.
    expect(sales.setCookies.find((line) => line.startsWith('studio_session=') && !/max-age=0/i.test(line))).toMatch(
      /; Path=\/(;|$)/,
    )
    const list = await sales.send('/leads')
    expect(list.status).toBe(200)
    const html = await list.text()
    expect(names(html)).toEqual(people.map((person) => person.name))
    expect(html).not.toContain('name="password"')
    // A sales account has no studio link on the page; the studio gives it only the way here.
    expect(html).not.toContain('href="/studio/"')
    // Signing in again through the studio's form lands on /leads too.
    const again = client(server)
    const signIn = await again.send('/studio/sign-in', { form: { email: 'sally.sales@example.com', password } })
    expect(signIn.status).toBe(303)
    expect(signIn.headers.get('location')).toBe('/leads')
    expect((await again.send('/leads/leads.csv')).status).toBe(200)
    const entries = (await audit(p)).filter((e) => e.who === 'sally.sales@example.com')
    expect(entries.map((e) => e.action)).toEqual([
      'accepted invitation',
      'viewed the leads list',
      'sign-in',
      'downloaded leads as CSV',
    ])
    expect(entries.at(-1)!.detail).toBe('all launches, no search; 3 leads')
    // The form without a session now offers the accounts' sign-in beside the password.
    expect(await (await client(server).send('/leads')).text()).toContain('href="/studio/sign-in"')
  })

  it("keeps an account limited to one launch to that launch's leads: list, counts, CSV, and 403 for another launch's lead", async () => {
    const { who: limited } = await signedIn(p, server, 'lim.ited@example.com', 'sales', [defaultLaunch])
    const html = await (await limited.send('/leads')).text()
    expect(names(html)).toEqual(['Ada Lovelace', 'Grace Hopper'])
    expect(html).toContain('<strong>2</strong> registrations in all.')
    // Choosing the other launch by a forged form changes nothing.
    await limited.send('/leads/search', { form: { text: '', launch: otherLaunch } })
    expect(names(await (await limited.send('/leads')).text())).toEqual(['Ada Lovelace', 'Grace Hopper'])
    await limited.send('/leads/search', { form: { text: 'Lamarr', launch: '' } })
    expect(names(await (await limited.send('/leads')).text())).toEqual([])
    await limited.send('/leads/search', { form: { text: '', clear: '1' } })
    const csv = parseCsv(await (await limited.send('/leads/leads.csv')).text())
    expect(csv.slice(1).map((row) => row[csv[0]!.indexOf('launch')])).toEqual([defaultLaunch, defaultLaunch])
    expect(JSON.stringify(csv)).not.toContain('Hedy')

    const hedy = p.ids.get('Hedy Lamarr')!
    const refused = await limited.send(`/leads/lead/${hedy}`)
    expect(refused.status).toBe(403)
    const refusedText = await refused.text()
    expect(refusedText).not.toContain('Hedy')
    expect(refusedText).toContain('launch your account is not given')
    const own = await limited.send(`/leads/lead/${p.ids.get('Ada Lovelace')}`)
    expect(own.status).toBe(200)
    expect(await own.text()).toContain('ada.lovelace@example.com')
    expect((await limited.send('/leads/lead/99999')).status).toBe(404)

    const entries = (await audit(p)).filter((e) => e.who === 'lim.ited@example.com')
    expect(
      entries.filter((e) => e.action !== 'accepted invitation').map((e) => [e.action, e.launch ?? '', e.detail]),
    ).toEqual([
      [
        'viewed the leads list',
        '',
        `the newest page; the account's launches (${defaultLaunch}), no search; 2 of 2 shown`,
      ],
      [
        'viewed the leads list',
        '',
        `the newest page; the account's launches (${defaultLaunch}), no search; 2 of 2 shown`,
      ],
      [
        'viewed the leads list',
        '',
        `the newest page; the account's launches (${defaultLaunch}), with a search (its text is not recorded); 0 of 0 shown`,
      ],
      ['downloaded leads as CSV', '', `the account's launches (${defaultLaunch}), no search; 2 leads`],
      ['refused a lead of a launch the account is not given', otherLaunch, `lead ${hedy}`],
      ['viewed a lead', defaultLaunch, `lead ${p.ids.get('Ada Lovelace')}`],
    ])
    expectNoPersonalData(await audit(p))
  })

  it("keeps an account limited to one launch off another launch's dashboard and people CSV, even by a forged choice", async () => {
    const { who: limited } = await signedIn(p, server, 'dash.limited@example.com', 'sales', [defaultLaunch])
    const perDay = (page: string) => /Registrations per day for the last \d+ days[^:]*: (\d+) in all/.exec(page)?.[1]
    // Its own launches: the two leads of the default launch (the third lead is another launch's).
    const own = await (await limited.send('/leads/dashboard')).text()
    expect(perDay(own)).toBe('2')
    expect(own).not.toContain(`value="${otherLaunch}"`)
    // Choosing the other launch by a forged form falls back to the account's launches.
    const forged = await limited.send('/leads/dashboard', { form: { launch: otherLaunch } })
    expect(forged.status).toBe(303)
    const after = await (await limited.send('/leads/dashboard')).text()
    expect(perDay(after)).toBe('2')
    expect(after).not.toContain(`value="${otherLaunch}"`)
    const people = parseCsv(await (await limited.send('/leads/people.csv')).text())
    expect(people.length).toBe(3)
    expect(JSON.stringify(people)).not.toContain('Hedy')
    // An account with every launch sees the three leads: the probe above can tell the difference.
    const { who: everyone } = await signedIn(p, server, 'dash.all@example.com', 'sales')
    expect(perDay(await (await everyone.send('/leads/dashboard')).text())).toBe('3')
  })

  it('refuses a request with no session, from another origin, or with a session that ended, was voided or whose account was removed', async () => {
    const nobody = client(server)
    for (const target of ['/leads/leads.csv', `/leads/lead/${p.ids.get('Ada Lovelace')}`]) {
      const response = await nobody.send(target)
      expect(response.status).toBe(303)
      expect(response.headers.get('location')).toBe('/leads')
    }
    expect(names(await (await nobody.send('/leads')).text())).toEqual([])

    const { who: owner } = await signedIn(p, server, 'olivia.owner@example.com', 'owner')
    const { who: editor } = await signedIn(p, server, 'eddie.editor@example.com', 'editor')
    const { who: removed } = await signedIn(p, server, 'remy.removed@example.com', 'sales')
    const { who: demoted } = await signedIn(p, server, 'dana.demoted@example.com', 'sales')
    for (const who of [owner, editor, removed, demoted])
      expect(names(await (await who.send('/leads')).text())).toHaveLength(3)
    // An editor and an owner get a way back to the studio.
    expect(await (await editor.send('/leads')).text()).toContain('href="/studio/"')

    // Another origin: refused before anything is read, and the session lives on.
    for (const target of ['/leads/search', '/leads/sign-out', '/leads/sign-in']) {
      const forged = await editor.send(target, {
        form: { text: 'Ada', password: leadsPassword },
        origin: 'http://evil.localhost',
      })
      expect(forged.status).toBe(403)
      expect(forged.headers.getSetCookie()).toEqual([])
    }
    expect(names(await (await editor.send('/leads')).text())).toHaveLength(3)

    // Ended at the studio: the cookie the browser still holds gets the sign-in.
    const stale = new Map(editor.cookies)
    expect((await editor.send('/studio/sign-out', { form: {} })).status).toBe(200)
    editor.cookies.clear()
    for (const [k, v] of stale) editor.cookies.set(k, v)
    const afterSignOut = await (await editor.send('/leads')).text()
    expect(names(afterSignOut)).toEqual([])
    expect(afterSignOut).toContain('name="password"')
    expect((await editor.send('/leads/leads.csv')).status).toBe(303)

    // Ended on the leads page itself: the studio session goes too.
    const ownerCookies = new Map(owner.cookies)
    expect((await owner.send('/leads/sign-out', { form: {} })).status).toBe(200)
    for (const [k, v] of ownerCookies) owner.cookies.set(k, v)
    expect(names(await (await owner.send('/leads')).text())).toEqual([])
    expect((await owner.send('/studio/api/me')).status).toBe(401)

    // Removed, or given another role, by an owner: their sessions end at once.
    const { who: boss } = await signedIn(p, server, 'bea.boss@example.com', 'owner')
    const json = {
      'content-type': 'application/json',
      origin: server.url,
      cookie: [...boss.cookies].map(([k, v]) => `${k}=${v}`).join('; '),
    }
    expect(
      (await fetch(`${server.url}/studio/api/people/remy.removed%40example.com`, { method: 'DELETE', headers: json }))
        .status,
    ).toBe(200)
    expect(
      (
        await fetch(`${server.url}/studio/api/people/dana.demoted%40example.com`, {
          method: 'PUT',
          headers: json,
          body: JSON.stringify({ role: 'sales', launches: [defaultLaunch] }),
        })
      ).status,
    ).toBe(200)
    for (const who of [removed, demoted]) {
      expect(names(await (await who.send('/leads')).text())).toEqual([])
      expect((await who.send(`/leads/lead/${p.ids.get('Ada Lovelace')}`)).status).toBe(303)
    }

    // The owner reads every look in the studio's Audit log.
    const log = (await (
      await fetch(`${server.url}/studio/api/audit?limit=1000`, { headers: json })
    ).json()) as StoredAudit[]
    const looks = log.filter((e) => /leads|lead/.test(e.action))
    expect(new Set(looks.map((e) => e.who))).toEqual(
      new Set([
        'shared leads password from 127.0.0.1',
        'sally.sales@example.com',
        'lim.ited@example.com',
        'olivia.owner@example.com',
        'eddie.editor@example.com',
        'remy.removed@example.com',
        'dana.demoted@example.com',
        'dash.limited@example.com',
      ]),
    )
    expectNoPersonalData(log)
  })
})

describe('the leads page without LEADS_PASSWORD (real server)', () => {
  let p: Project
  let server: ServerProcess
  beforeAll(async () => {
    p = await project()
    server = await serve(p)
  }, 60_000)
  afterAll(async () => {
    await server?.stop()
    rmSync(p.root, { recursive: true, force: true })
  })

  it("is the site's 404 until the studio has an account; then a person without a session is sent to the studio's sign-in", async () => {
    expect(server.output()).toContain('Leads page: off')
    const nobody = client(server)
    expect((await nobody.send('/leads')).status).toBe(404)
    // The site's own answer to a form post to a page, as before the leads page existed.
    expect((await nobody.send('/leads/sign-in', { form: { password: leadsPassword } })).status).toBe(405)
    expect(nobody.cookies.size).toBe(0)
    const { who: sales } = await signedIn(p, server, 'sam.sales@example.com', 'sales')
    const away = await nobody.send('/leads')
    expect(away.status).toBe(303)
    expect(away.headers.get('location')).toBe('/studio/sign-in')
    // No password to try: the form post signs nobody in.
    const tried = await nobody.send('/leads/sign-in', { form: { password: leadsPassword } })
    expect(tried.status).toBe(303)
    expect(nobody.cookies.size).toBe(0)
    expect(names(await (await sales.send('/leads')).text())).toHaveLength(3)
    // The account's search is kept server-side (never in an address), and goes at Sign out.
    await sales.send('/leads/search', { form: { text: 'Lovelace', launch: '' } })
    expect(names(await (await sales.send('/leads')).text())).toEqual(['Ada Lovelace'])
    expect(savedSearches(p)).toContain('Lovelace')
    expect((await sales.send('/leads/sign-out', { form: {} })).status).toBe(200)
    expect(savedSearches(p)).not.toContain('Lovelace')
    expect((await sales.send('/leads')).status).toBe(303)
    expect((await audit(p)).filter((e) => e.action === 'viewed the leads list').map((e) => e.who)).toEqual([
      'sam.sales@example.com',
      'sam.sales@example.com',
    ])
  })
})
