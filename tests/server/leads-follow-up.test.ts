import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runStudioInvite } from '../../src/cli/studio-invite.ts'
import { openSqliteStore } from '../../src/server/store/sqlite/sqlite-store.ts'
import { openSqliteStudioStore } from '../../src/studio/server/sqlite-store.ts'
import { defaultLaunch, mailFor, newLead } from './support/fixtures.ts'
import { startServerProcess, writeDist, type ServerProcess } from './support/node-server.ts'
import { startTestReceiver, type TestReceiver } from './support/webhook-receiver.ts'

// Follow-up on the leads page through the real Node server (src/cli/serve.ts) over HTTP, with SQLite on disk and a
// real webhook receiver: Status, Assigned to and Note, each a plain form POST and a redirect; the lead's history;
// the signed lead.updated calls; the filters kept in the session; one person's registrations across launches and
// phone formats.

const leadsPassword = 'a shared team password'
const accountPassword = 'correct horse battery staple'
const secret = 'whsec-test-follow-up'
const note = 'Called Ada: wants a corner unit; call back Friday.'

type Client = { send(target: string, form?: Record<string, string>, origin?: string): Promise<Response> }

/** A browser's cookies against the server: sends this server's Origin on every POST (unless told another). */
function client(server: ServerProcess): Client {
  const cookies = new Map<string, string>()
  return {
    async send(target, form, origin) {
      const headers: Record<string, string> = {}
      if (cookies.size) headers.cookie = [...cookies].map(([k, v]) => `${k}=${v}`).join('; ')
      if (form) {
        headers.origin = origin ?? server.url
        headers['content-type'] = 'application/x-www-form-urlencoded'
      }
      const response = await fetch(`${server.url}${target}`, {
        method: form ? 'POST' : 'GET',
        headers,
        redirect: 'manual',
        body: form ? new URLSearchParams(form) : undefined,
      })
      for (const line of response.headers.getSetCookie()) {
        const pair = line.split(';')[0]!
        const name = pair.slice(0, pair.indexOf('='))
        const value = pair.slice(pair.indexOf('=') + 1)
        if (value === '' || /max-age=0/i.test(line)) cookies.delete(name)
        else cookies.set(name, value)
      }
      return response
    },
  }
}

/** The cards' titles on a list page. */
const cards = (body: string) =>
  [...body.matchAll(/<h2 class="lp-card-title"><a href="\/leads\/lead\/\d+">([^<]+)<\/a>/g)].map((m) => m[1])

describe('follow-up on the leads page (SQLite, Node server, webhook receiver)', () => {
  let root = ''
  let dataDir = ''
  let configFile = ''
  let server: ServerProcess
  let crm: TestReceiver
  const ids = new Map<string, number>()

  beforeAll(async () => {
    root = mkdtempSync(path.join(tmpdir(), 'vip-follow-up-'))
    cpSync('public', path.join(root, 'public'), { recursive: true })
    cpSync('documents', path.join(root, 'documents'), { recursive: true })
    configFile = path.join(root, 'page.config.json')
    // Sam is the launch's roster: the leads page shows the people it names by name.
    const config = JSON.parse(readFileSync('page.config.json', 'utf8')) as { launch: Record<string, unknown> }
    config.launch.roster = [{ name: 'Sam Chen', email: 'sam@example.com' }]
    writeFileSync(configFile, JSON.stringify(config, null, 2))
    writeDist(path.join(root, 'dist'))
    dataDir = path.join(root, '.data')
    mkdirSync(dataDir, { mode: 0o700 })
    const store = openSqliteStore(path.join(dataDir, 'leads.sqlite'), { defaultLaunch })
    const people = [
      {
        key: 'ada',
        launch: defaultLaunch,
        name: 'Ada Lovelace',
        email: 'ada@example.com',
        phone: '(647) 555-0111',
        isRealtor: 'no',
      },
      {
        key: 'ada-again',
        launch: 'maple-ridge',
        name: 'Ada L.',
        email: 'ada.l@example.org',
        phone: '+1 647 555 0111',
        isRealtor: 'no',
      },
      {
        key: 'grace',
        launch: defaultLaunch,
        name: 'Grace Hopper',
        email: 'grace@example.com',
        phone: '416-555-0102',
        isRealtor: 'yes',
      },
    ]
    for (const [i, p] of people.entries()) {
      const lead = newLead({
        launch: p.launch,
        createdAt: `2026-03-0${i + 1}T15:00:00.000Z`,
        fields: { name: p.name, email: p.email, phone: p.phone, isRealtor: p.isRealtor },
      })
      ids.set(p.key, (await store.saveLead(lead, mailFor(lead))).lead.id)
    }
    await store.close()
    crm = await startTestReceiver(secret)
    server = await startServerProcess({
      DATA_DIR: dataDir,
      DIST_DIR: path.join(root, 'dist'),
      PAGE_CONFIG: configFile,
      LEADS_PASSWORD: leadsPassword,
      WEBHOOK_URL: crm.url,
      WEBHOOK_SECRET: secret,
    })
  }, 60_000)

  afterAll(async () => {
    await server?.stop()
    await crm?.stop()
    rmSync(root, { recursive: true, force: true })
  })

  async function signIn(): Promise<Client> {
    const team = client(server)
    expect((await team.send('/leads/sign-in', { password: leadsPassword })).status).toBe(303)
    return team
  }

  it('sets a status and adds a note with one POST each, shows them in the history newest first, and sends a signed lead.updated for each', async () => {
    const team = await signIn()
    const ada = ids.get('ada')!
    const before = await (await team.send(`/leads/lead/${ada}`)).text()
    expect(before).toMatch(/<label for="lead-status">Status<\/label>[\s\S]*<option value="New" selected>New<\/option>/)
    expect(before).toContain('<label for="lead-note">Note</label>')
    expect(before).toContain('No changes or notes yet.')

    const status = await team.send(`/leads/lead/${ada}/status`, { status: 'Contacted' })
    expect(status.status).toBe(303)
    expect(status.headers.get('location')).toBe(`/leads/lead/${ada}`)
    expect((await team.send(`/leads/lead/${ada}/note`, { note })).status).toBe(303)
    // The launch has a roster: its people are the choices, by name (free text only where there is no roster or
    // account).
    expect((await team.send(`/leads/lead/${ada}/assignee`, { assignee: 'Sam Seller' })).status).toBe(400)
    expect((await team.send(`/leads/lead/${ada}/assignee`, { assignee: 'sam@example.com' })).status).toBe(303)

    const after = await (await team.send(`/leads/lead/${ada}`)).text()
    expect(after).toContain('<option value="Contacted" selected>Contacted</option>')
    expect(after).toContain('<option value="sam@example.com" selected>Sam Chen</option>')
    const history = after.slice(after.indexOf('id="history"'))
    const order = ['Assigned to:', note, 'Status:'].map((text) => history.indexOf(text))
    expect(order.every((at) => at > 0)).toBe(true)
    expect(order).toEqual([...order].sort((a, b) => a - b))
    expect(history).toContain('Team password')

    // Refused: a status the launch does not have, a change from another site.
    const wrong = await team.send(`/leads/lead/${ada}/status`, { status: 'Sold twice' })
    expect(wrong.status).toBe(400)
    expect(await wrong.text()).toContain(
      'Choose one of the statuses: New, Contacted, Appointment booked, Purchased, Not interested.',
    )
    expect((await team.send(`/leads/lead/${ada}/note`, { note: 'forged' }, 'https://evil.example.org')).status).toBe(
      403,
    )

    await expect
      .poll(
        () =>
          crm.calls.filter(
            (call) =>
              (
                JSON.parse(call.body) as {
                  type: string
                  data: { change: { kind: string; value: string } } & Record<string, unknown>
                }
              ).type === 'lead.updated',
          ).length,
        { timeout: 15_000 },
      )
      .toBe(3)
    const updates = crm.calls
      .map((call) => ({
        ...call,
        json: JSON.parse(call.body) as {
          type: string
          data: { change: { kind: string; value: string } } & Record<string, unknown>
        },
      }))
      .filter((call) => call.json.type === 'lead.updated')
    expect(updates.every((call) => call.signed)).toBe(true)
    expect(new Set(updates.map((call) => call.headers['webhook-id'])).size).toBe(3)
    const lastUpdate = updates.find((call) => call.json.data.change.kind === 'assignee')!.json.data
    expect(lastUpdate).toMatchObject({
      launch: defaultLaunch,
      status: 'Contacted',
      assignee: 'sam@example.com',
      updatedBy: 'Team password',
      change: { kind: 'assignee', value: 'sam@example.com' },
    })
    expect(updates.find((call) => call.json.data.change.kind === 'note')!.json.data.change.value).toBe(note)
    // Each change is an audit line (the studio's audit log); none holds the note, nor does the server's log.
    const studio = openSqliteStudioStore(path.join(dataDir, 'studio.sqlite'))
    const lines = (await studio.listAudit(1000)).filter((line) => line.detail?.startsWith(`lead ${ada}`))
    studio.close()
    expect(lines.map((line) => line.action)).toEqual(
      expect.arrayContaining(["changed a lead's status", 'added a note to a lead', 'assigned a lead']),
    )
    expect(JSON.stringify(lines)).not.toContain('corner unit')
    expect(server.output()).not.toContain('corner unit')
  })

  it('filters by status, assignee, realtor and dates, kept in the session and never in an address', async () => {
    const team = await signIn()
    await team.send(`/leads/lead/${ids.get('grace')!}/status`, { status: 'Appointment booked' })
    const filtered = await team.send('/leads/search', {
      status: 'Appointment booked',
      assignee: '',
      realtor: '',
      from: '',
      to: '',
      text: '',
    })
    expect(filtered.headers.get('location')).toBe('/leads')
    const list = await (await team.send('/leads')).text()
    expect(cards(list)).toEqual(['Grace Hopper'])
    expect(list).toContain('<option value="Appointment booked" selected>')
    await team.send('/leads/search', { status: 'New', text: '' })
    expect(cards(await (await team.send('/leads')).text())).toEqual(['Ada L.'])
    await team.send('/leads/search', { realtor: 'no', from: '2026-03-02', to: '2026-03-02', text: '' })
    expect(cards(await (await team.send('/leads')).text())).toEqual(['Ada L.'])
    await team.send('/leads/search', { assignee: '(unassigned)', realtor: 'yes', text: '' })
    expect(cards(await (await team.send('/leads')).text())).toEqual(['Grace Hopper'])
    await team.send('/leads/search', { clear: '1' })
    expect(cards(await (await team.send('/leads')).text())).toEqual(['Grace Hopper', 'Ada L.', 'Ada Lovelace'])
  })

  it("finds a phone typed in any format and shows one person's registrations together, marking repeats in the list", async () => {
    const team = await signIn()
    for (const typed of ['+1 647 555 0111', '16475550111', '(647) 555-0111']) {
      await team.send('/leads/search', { text: typed })
      expect(cards(await (await team.send('/leads')).text()), typed).toEqual(['Ada L.', 'Ada Lovelace'])
    }
    await team.send('/leads/search', { clear: '1' })
    const list = await (await team.send('/leads')).text()
    expect(list.match(/Repeat: 1 other registration</g)).toHaveLength(4)
    const page = await (await team.send(`/leads/lead/${ids.get('ada')!}`)).text()
    expect(page).toContain('Same person, other registrations')
    expect(page).toContain(`href="/leads/lead/${ids.get('ada-again')!}"`)
    expect(page).toContain('(647) 555-0111')
    const other = await (await team.send(`/leads/lead/${ids.get('ada-again')!}`)).text()
    expect(other).toContain(`href="/leads/lead/${ids.get('ada')!}"`)
  })

  it("offers the studio's sales accounts to assign (by the roster's name where it has one), and tells an account limited to one launch only how many others there are", async () => {
    const out: string[] = []
    const code = await runStudioInvite(
      ['--email', 'sam@example.com', '--role', 'sales', '--launch', defaultLaunch],
      { DATA_DIR: dataDir, PORT: '3000', PAGE_CONFIG: configFile },
      root,
      (l: string) => out.push(l),
      (l: string) => out.push(l),
    )
    expect(code, out.join('\n')).toBe(0)
    const sam = client(server)
    const link = new URL(out.find((line) => line.startsWith('http'))!).pathname
    expect((await sam.send(link, { password: accountPassword, confirm: accountPassword })).status).toBe(303)
    const page = await (await sam.send(`/leads/lead/${ids.get('ada')!}`)).text()
    expect(page).toMatch(
      /<select id="lead-assignee" name="assignee">[\s\S]*<option value="sam@example.com"( selected)?>Sam Chen<\/option>/,
    )
    expect(page).toContain('Also registered for 1 other launch.')
    expect(page).not.toContain(`href="/leads/lead/${ids.get('ada-again')!}"`)
    expect((await sam.send(`/leads/lead/${ids.get('ada')!}/assignee`, { assignee: 'sam@example.com' })).status).toBe(
      303,
    )
    expect((await sam.send(`/leads/lead/${ids.get('ada')!}/assignee`, { assignee: 'Someone Else' })).status).toBe(400)
    expect((await sam.send(`/leads/lead/${ids.get('ada-again')!}/status`, { status: 'Contacted' })).status).toBe(403)
    // Stored as the e-mail, shown by the roster's name: in the lead's history, the list and the filter's choices.
    const assigned = await (await sam.send(`/leads/lead/${ids.get('ada')!}`)).text()
    expect(assigned.slice(assigned.indexOf('id="history"'))).toContain('<strong>Assigned to:</strong> Sam Chen</p>')
    const list = await (await sam.send('/leads')).text()
    expect(list).toContain('<div><dt>Assigned to</dt><dd>Sam Chen</dd></div>')
    expect(list).toContain('<option value="sam@example.com">Sam Chen</option>')
  })
})
