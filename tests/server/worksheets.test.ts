import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { localAnonKey } from '../../schema/local-defaults.ts'
import type { PageConfig } from '../../schema/page-config.ts'
import { createApp } from '../../src/server/app.ts'
import { createOutboxWorker, type OutboxWorker } from '../../src/server/delivery/outbox.ts'
import { createSmtpMailer } from '../../src/server/delivery/mailers/smtp-mailer.ts'
import { createWebhookSender } from '../../src/server/delivery/webhook.ts'
import { defaultWorksheetTexts } from '../../schema/worksheets.ts'
import { allocateLot } from '../../src/server/release/allocation.ts'
import { worksheetUrl } from '../../src/server/delivery/document-links.ts'
import { createPostgresRelease } from '../../src/server/store/postgres/postgres-release.ts'
import { createPostgresStore } from '../../src/server/store/postgres/postgres-store.ts'
import type { LotInput, ReleaseStore } from '../../src/server/store/release.ts'
import { openSqliteRelease } from '../../src/server/store/sqlite/sqlite-release.ts'
import { openSqliteStore } from '../../src/server/store/sqlite/sqlite-store.ts'
import type { LeadStore } from '../../src/server/store/store.ts'
import { backendsOf } from './support/backends.ts'
import { defaultLaunch, launchSite, readPageConfig, registration } from './support/fixtures.ts'
import { startTestSmtp, type TestSmtp } from './support/smtp.ts'
import { startTestReceiver, type TestReceiver } from './support/webhook-receiver.ts'

// The realtors' worksheets (issue 45) through the function's app, against both real stores, a real SMTP server and a
// real webhook receiver, with a clock the test moves: the phase's window, the signed link, the form and its refusals.

type Stores = { leads: LeadStore; release: ReleaseStore }
const backends = backendsOf<[], Stores>({
  sqlite: (file) => ({ leads: openSqliteStore(file, { defaultLaunch }), release: openSqliteRelease(file) }),
  postgres: (db) => ({ leads: createPostgresStore(db, { defaultLaunch }), release: createPostgresRelease(db) }),
  tables: ['outbox', 'leads', 'lots', 'worksheets', 'worksheet_numbers'],
})

const base = 'http://localhost/functions/v1/send-contact-email'
const webhookSecret = 'webhook-secret-0123456789abcdef'
const quiet = { info() {}, error() {} }
const config: PageConfig = {
  ...readPageConfig(),
  launch: { ...readPageConfig().launch, timeZone: 'America/Toronto' },
  phases: {
    current: 'vip',
    list: [{ name: 'vip', worksheets: { opens: '2026-03-14T10:00', closes: '2026-03-16T17:00' } }],
  },
  worksheets: { texts: { depositStructure: '5% on signing, 5% in 30 days, 5% in 90 days.' } },
}
const lots: LotInput[] = [14, 15, 16].map((n) => ({
  lot: `Lot ${n}`,
  release: 'Phase 1',
  models: n === 16 ? ['Birch'] : ['Maple', 'Birch'],
  frontage: '40 ft',
  price: 899900,
  status: 'available',
}))
const realtor = {
  name: 'Rita Agent',
  email: 'rita@agents.example.com',
  isRealtor: 'yes',
  brokerage: 'Example Realty Inc., Brokerage',
  recoNumber: '5550123',
  forClient: 'yes',
}
const opening = new Date('2026-03-14T14:00:00.000Z') // 10:00 in Toronto
const path = (url: string) =>
  `/functions/v1/send-contact-email${new URL(url).pathname.split('/send-contact-email')[1]}${new URL(url).search}`

/** A form's body as a browser sends it. */
const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString()
const formHeaders = {
  'content-type': 'application/x-www-form-urlencoded',
  origin: 'http://localhost',
  host: 'localhost',
}
const choice = (lot: string | null, model: string) =>
  new URLSearchParams(lot === null ? { model } : { lot, model }).toString()
const worksheetForm = {
  clientName: 'Ben Buyer',
  clientEmail: 'ben@example.com',
  clientPhone: '416-555-0199',
  choice1: choice('Lot 14', 'Maple'),
  choice2: choice('Lot 15', 'Birch'),
  choice3: choice(null, 'Birch'),
  deposit: 'yes',
  notes: 'Prefers a south-facing lot.',
}

describe.each(backends)('the worksheet page on $name', (backend) => {
  let stores: Stores
  let smtp: TestSmtp
  let crm: TestReceiver
  let worker: OutboxWorker
  let app: ReturnType<typeof createApp>
  let makeApp: (rateLimitPerMinute: number) => ReturnType<typeof createApp>
  let now: Date
  let logged: string[]
  let close: () => Promise<void>
  beforeAll(() => backend.setup(), 60_000)
  afterAll(() => backend.teardown())
  beforeEach(async () => {
    stores = await backend.fresh()
    smtp = await startTestSmtp()
    crm = await startTestReceiver(webhookSecret)
    now = new Date('2026-03-01T15:00:00.000Z')
    logged = []
    const clock = () => now
    const mailer = createSmtpMailer({ url: `smtp://127.0.0.1:${smtp.port}`, from: 'no-reply@example.com' })
    const webhook = createWebhookSender({ url: crm.url, secret: webhookSecret })
    worker = createOutboxWorker({ store: stores.leads, mailer, webhook, clock, log: quiet })
    await stores.release.importLots(defaultLaunch, lots, now.toISOString())
    makeApp = (rateLimitPerMinute) =>
      createApp({
        launches: [
          launchSite(config, {
            notifyEmail: 'sales@example.com',
            links: { secret: 'unsubscribe-secret-0123456789', baseUrl: base },
            worksheets: true,
          }),
        ],
        defaultLaunch,
        store: stores.leads,
        release: stores.release,
        clock,
        anonKeys: [localAnonKey],
        rateLimitPerMinute,
        log: { info: (message) => logged.push(message), error: (message) => logged.push(message) },
        webhook: true,
      })
    app = makeApp(0)
    close = async () => {
      await worker.stop()
      await mailer.close?.()
      await smtp.stop()
      await crm.stop()
      await stores.leads.close()
      ;(stores.release as { close?: () => void }).close?.()
    }
  })
  afterEach(() => close())

  /** Registers, delivers the outbox, and returns the worksheet link of the reply to `email` (undefined: none). */
  async function register(fields: Record<string, unknown>): Promise<string | undefined> {
    const res = await app.request('/functions/v1/send-contact-email', {
      method: 'POST',
      headers: { apikey: localAnonKey, 'content-type': 'application/json' },
      body: JSON.stringify(registration(fields)),
    })
    expect(res.status).toBe(200)
    await worker.deliverDue()
    // The newest mail to this address that carries the link: the outbox sends side by side, so an earlier worksheet's
    // confirmation to the same realtor may arrive after this reply.
    const links = smtp.received
      .filter((m) => m.rcptTo[0]?.toLowerCase() === String(fields.email).toLowerCase())
      .map((m) => /^Send a worksheet: (\S+)$/m.exec(m.decoded)?.[1])
    const link = links.at(-1) ?? links.filter(Boolean).at(-1)
    return link && path(link)
  }

  const get = (url: string) => app.request(url, { headers: { host: 'localhost' } })
  const post = (url: string, fields: Record<string, string>, headers: Record<string, string> = formHeaders) =>
    app.request(url, { method: 'POST', headers, body: form(fields) })

  it("links a realtor's reply (not a buyer's) to a page of their own clients that no changed link opens", async () => {
    const link = (await register(realtor))!
    expect(link).toMatch(/^\/functions\/v1\/send-contact-email\/worksheets\?id=[0-9a-f-]{36}&sig=[\w-]{43}$/)
    expect(await register({ name: 'Ben Buyer', email: 'ben@example.com', agent: 'rita agent' })).toBeUndefined()
    await register({ name: 'Carla Client', email: 'carla@example.com', agent: 'Someone Else' })

    const page = await get(link)
    expect(page.status).toBe(200)
    expect(page.headers.get('content-security-policy')).toMatch(/^default-src 'none'; style-src 'sha256-/)
    expect(page.headers.get('referrer-policy')).toBe('same-origin')
    const html = await page.text()
    expect(html).toContain('<li>Ben Buyer · ben@example.com · 555-555-0100</li>')
    expect(html).not.toContain('Carla Client')
    expect(html).toContain('Worksheets are closed now. They open on March 14, 2026 at 10:00')

    const sig = new URL(`http://x${link}`).searchParams.get('sig')!
    const at = link.indexOf(sig) + 10
    const changed = `${link.slice(0, at)}${link[at] === 'A' ? 'B' : 'A'}${link.slice(at + 1)}`
    const forged = await get(changed)
    expect(forged.status).toBe(403)
    const forgedHtml = await forged.text()
    expect(forgedHtml).toContain('This link does not work')
    expect(forgedHtml).not.toMatch(/Rita|Ben Buyer|ben@example.com/)
    expect((await get(link.replace(/id=[0-9a-f]/, 'id=z'))).status).toBe(404)
    expect((await get('/functions/v1/send-contact-email/worksheets')).status).toBe(404)
  })

  it('is closed outside the window, and takes a worksheet with the server time and number inside it', async () => {
    const link = (await register(realtor))!
    const closed = await post(link, worksheetForm)
    expect(closed.status).toBe(403)
    expect(await closed.text()).toContain('They open on March 14, 2026 at 10:00')
    expect(await stores.release.listWorksheets(defaultLaunch)).toEqual([])

    now = new Date(opening.getTime() + 5 * 60_000)
    await register({ name: 'Ben Buyer', email: 'ben@example.com', agent: realtor.email.toUpperCase() })
    const open = await (await get(link)).text()
    expect(open).toContain('<datalist id="ws-clients"><option value="Ben Buyer"></option>')
    // The form posts to the page's own address, whatever path the server saw it under.
    expect(open).toMatch(/<form method="post" action="\?id=[0-9a-f-]{36}&amp;sig=[\w-]{43}"/)
    const before = smtp.received.length
    const sent = await post(link, { ...worksheetForm, receivedAt: '2020-01-01T00:00:00.000Z', number: '99' })
    expect(sent.status).toBe(303)
    const stored = await stores.release.listWorksheets(defaultLaunch)
    expect(stored).toHaveLength(1)
    expect(stored[0]).toMatchObject({
      number: 1,
      receivedAt: now.toISOString(),
      clientName: 'Ben Buyer',
      realtorEmail: realtor.email,
      depositAccepted: true,
      choices: [
        { lot: 'Lot 14', model: 'Maple' },
        { lot: 'Lot 15', model: 'Birch' },
        { lot: null, model: 'Birch' },
      ],
    })
    // Relative (the query alone), so that behind Supabase's gateway it keeps the address the browser posted to.
    const location = sent.headers.get('location')!
    expect(location).toMatch(/^\?id=[0-9a-f-]{36}&sig=[\w-]{43}&sent=1$/)
    const back = await get(`${link.split('?')[0]}${location}`)
    const html = await back.text()
    expect(html).toContain('Worksheet 1 received')
    expect(html).toContain('Waiting for allocation')

    await worker.deliverDue()
    const mails = smtp.received.slice(before)
    expect(mails.map((m) => m.rcptTo[0]).sort()).toEqual(['coop@example.com', realtor.email])
    for (const mail of mails) {
      expect(mail.headers.get('subject')).toEqual([`${config.site.name}: worksheet 1 for Ben Buyer received`])
      expect(mail.decoded).toContain('1. Lot 14 — Maple')
      expect(mail.decoded).toContain('3. Any lot — Birch')
    }
    const calls = crm.calls.map((call) => JSON.parse(call.body) as { type: string; data: Record<string, unknown> })
    const received = calls.find((call) => call.type === 'worksheet.received')!
    expect(received.data).toMatchObject({ worksheet: 1, launch: defaultLaunch, receivedAt: now.toISOString() })
    expect(crm.calls.every((call) => call.signed)).toBe(true)
  })

  it('refuses a post from another site or none, and a form to correct keeps every typed value', async () => {
    const link = (await register(realtor))!
    now = new Date(opening.getTime() + 60_000)
    const other = await post(link, worksheetForm, { ...formHeaders, origin: 'https://attacker.example' })
    expect(other.status).toBe(403)
    const { origin: _origin, ...noOrigin } = formHeaders
    expect((await post(link, worksheetForm, noOrigin)).status).toBe(403)
    expect(await stores.release.listWorksheets(defaultLaunch)).toEqual([])

    const typed = { ...worksheetForm, clientName: '<b>Ben</b> & "Co"', clientEmail: 'not an address', deposit: '' }
    const refused = await post(link, typed)
    expect(refused.status).toBe(400)
    const html = await refused.text()
    expect(html).toContain('value="&lt;b&gt;Ben&lt;/b&gt; &amp; &quot;Co&quot;"')
    expect(html).toContain('value="not an address"')
    expect(html).toContain('Prefers a south-facing lot.</textarea>')
    expect(html).toContain(`<option value="${choice('Lot 15', 'Birch').replace('&', '&amp;')}" selected>`)
    expect(html).toContain('Enter the client&#39;s e-mail address')
    expect(html).toContain('Accept the deposit structure to send the worksheet.')
    expect(html).not.toContain('<b>Ben</b>')
    expect(await stores.release.listWorksheets(defaultLaunch)).toEqual([])
  })

  it('shows each realtor only their own worksheets', async () => {
    const rita = (await register(realtor))!
    const sam = (await register({ ...realtor, name: 'Sam Seller', email: 'sam@agents.example.com' }))!
    now = new Date(opening.getTime() + 60_000)
    expect((await post(rita, worksheetForm)).status).toBe(303)
    expect(
      (await post(sam, { ...worksheetForm, clientName: 'Dana Doe', clientEmail: 'dana@example.com' })).status,
    ).toBe(303)
    const ritaPage = await (await get(rita)).text()
    expect(ritaPage).toContain('Worksheet 1: Ben Buyer')
    expect(ritaPage).not.toContain('Dana Doe')
    const samPage = await (await get(sam)).text()
    expect(samPage).toContain('Worksheet 2: Dana Doe')
    expect(samPage).not.toContain('Ben Buyer')
  })

  it("refuses a buyer's own signed link, and sends over the rate limit, keeping the typed values", async () => {
    const buyer = crypto.randomUUID()
    await register({ name: 'Ben Buyer', email: 'ben@example.com', submissionId: buyer })
    const links = { secret: 'unsubscribe-secret-0123456789', baseUrl: base }
    const buyersLink = await get(path(await worksheetUrl(links, buyer)))
    expect(buyersLink.status).toBe(404)
    expect(await buyersLink.text()).not.toContain('Ben Buyer')

    const link = (await register(realtor))!
    now = new Date(opening.getTime() + 60_000)
    const limited = makeApp(3)
    const statuses: number[] = []
    let last: Response | undefined
    for (let i = 0; i < 5; i++) {
      last = await limited.request(link, { method: 'POST', headers: formHeaders, body: form(worksheetForm) })
      statuses.push(last.status)
    }
    expect(statuses).toEqual([303, 303, 303, 429, 429])
    const html = await last!.text()
    expect(html).toContain('Too many worksheets at once')
    expect(html).toContain('value="Ben Buyer"')
    expect(await stores.release.listWorksheets(defaultLaunch)).toHaveLength(3)
  })

  it("shows the realtor their worksheet's outcome, and mails it in the config's words", async () => {
    const link = (await register(realtor))!
    now = new Date(opening.getTime() + 60_000)
    expect((await post(link, worksheetForm)).status).toBe(303)
    const [sheet] = await stores.release.listWorksheets(defaultLaunch)
    const texts = { ...defaultWorksheetTexts, allocatedText: 'Yours: {lot} as {model} at {price}, for {client}.' }
    const deps = { release: stores.release, clock: () => now, siteName: config.site.name, texts }
    const decided = await allocateLot(
      deps,
      defaultLaunch,
      { worksheetId: sheet!.id, lot: 'Lot 14', model: 'Maple' },
      'sam',
    )
    expect(decided).toEqual({ ok: true })
    expect(await (await get(link)).text()).toContain('Allocated: Lot 14 (Maple)')
    await worker.deliverDue()
    const outcome = smtp.received.find((m) => m.headers.get('subject')?.[0]?.endsWith(': allocated'))!
    expect(outcome.rcptTo).toEqual([realtor.email])
    expect(outcome.headers.get('subject')).toEqual([`${config.site.name}: worksheet 1 for Ben Buyer: allocated`])
    expect(outcome.decoded).toContain('Yours: Lot 14 as Maple at $899,900, for Ben Buyer.')
    expect(outcome.decoded).toContain(defaultWorksheetTexts.allocatedNext)
  })

  it('gives a realtor who registers again (asking for the link again) a link to the same page', async () => {
    const first = (await register(realtor))!
    await register({ name: 'Ben Buyer', email: 'ben@example.com', agent: 'Rita Agent' })
    now = new Date(opening.getTime() + 60_000)
    expect((await post(first, worksheetForm)).status).toBe(303)
    const again = (await register({ ...realtor, email: 'RITA@Agents.example.com' }))!
    expect(again).not.toBe(first)
    const html = await (await get(again)).text()
    expect(html).toContain('Worksheet 1: Ben Buyer')
    expect(html).toContain('<li>Ben Buyer · ben@example.com · 555-555-0100</li>')
    expect((await post(again, { ...worksheetForm, clientName: 'Dana Doe' })).status).toBe(303)
    const sheets = await stores.release.listWorksheets(defaultLaunch)
    expect(new Set(sheets.map((w) => w.realtorLeadId)).size).toBe(1)
  })

  describe('asking for the link again', () => {
    const request = '/functions/v1/send-contact-email/worksheets/link'
    const linkMails = () => smtp.received.filter((m) => m.headers.get('subject')?.[0]?.endsWith('your worksheet link'))
    const linkOf = (mail: { decoded: string }) => path(/^Send a worksheet: (\S+)$/m.exec(mail.decoded)![1]!)

    it('mails a realtor their own link at the registered address, with one answer for every address', async () => {
      const link = (await register(realtor))!
      await register({ name: 'Ben Buyer', email: 'ben@example.com', agent: 'Rita Agent' })
      const forged = await (await get(link.replace(/sig=./, 'sig=0'))).text()
      expect(forged).toContain('<a href="worksheets/link">Ask for your worksheet link</a>')

      const page = await get(request)
      expect(page.status).toBe(200)
      expect(page.headers.get('cache-control')).toBe('no-store')
      const html = await page.text()
      expect(html).toContain('<label for="email">Your e-mail</label>')
      expect(html).toContain(`action="?launch=${defaultLaunch}"`)

      const asked = await post(`${request}?launch=${defaultLaunch}`, { email: ' RITA@agents.example.com ' })
      expect(asked.status).toBe(200)
      const answer = await asked.text()
      expect(answer).toContain('Check your inbox')
      await worker.deliverDue()
      expect(linkMails()).toHaveLength(1)
      const mail = linkMails()[0]!
      expect(mail.rcptTo).toEqual([realtor.email])
      expect(mail.headers.get('subject')).toEqual([`${config.site.name}: your worksheet link`])
      expect(linkOf(mail)).toBe(link)
      expect((await get(linkOf(mail))).status).toBe(200)

      // A stranger learns nothing: a buyer's address, an unknown one and the realtor's again get the same page.
      for (const email of ['ben@example.com', 'nobody@example.com', realtor.email]) {
        const again = await post(`${request}?launch=${defaultLaunch}`, { email })
        expect(again.status).toBe(200)
        expect(await again.text()).toBe(answer)
      }
      await worker.deliverDue()
      expect(linkMails()).toHaveLength(1)
      expect(logged.join('\n')).not.toMatch(/rita@|ben@|nobody@/i)

      now = new Date(now.getTime() + 11 * 60_000)
      expect((await post(request, { email: realtor.email })).status).toBe(200)
      await worker.deliverDue()
      expect(linkMails()).toHaveLength(2)
    })

    it('refuses an address that is not one, a post from another site and a launch not served', async () => {
      const wrong = await post(request, { email: 'rita-at-agents' })
      expect(wrong.status).toBe(400)
      const html = await wrong.text()
      expect(html).toContain('<p class="e" id="email-error">Enter your e-mail address, like name@example.com.</p>')
      expect(html).toContain('value="rita-at-agents" aria-invalid="true"')
      const from = { ...formHeaders, origin: 'http://attacker.localhost' }
      expect((await post(request, { email: realtor.email }, from)).status).toBe(403)
      expect((await get(`${request}?launch=elsewhere`)).status).toBe(404)
      expect((await app.request(request, { method: 'PUT' })).status).toBe(405)
    })

    it('sends one link when ten requests for one realtor arrive at once', async () => {
      await register(realtor)
      const answers = await Promise.all(Array.from({ length: 10 }, async () => post(request, { email: realtor.email })))
      expect(answers.map((answer) => answer.status)).toEqual(Array(10).fill(200))
      await worker.deliverDue()
      expect(linkMails()).toHaveLength(1)
      // One e-mail asked for a lead in ten minutes, whichever kind: fresh document links wait too (the race itself is
      // proven on both stores in documents.test.ts, through the same statement).
      const lead = (await stores.release.realtorOfAddress(defaultLaunch, defaultLaunch, realtor.email))!
      const fresh = {
        to: realtor.email,
        subject: 's',
        text: 't',
        html: '<p>t</p>',
        messageId: '<m@x>',
        idempotencyKey: 'k',
      }
      expect(await stores.leads.queueDocumentsReply(lead.id, fresh, now, new Date(now.getTime() - 600_000))).toBe(false)
    })

    it('sends nothing when the launch has no worksheet window open or ahead', async () => {
      await register(realtor)
      now = new Date('2026-03-17T12:00:00.000Z')
      expect((await post(request, { email: realtor.email })).status).toBe(200)
      await worker.deliverDue()
      expect(linkMails()).toHaveLength(0)
    })
  })
})
