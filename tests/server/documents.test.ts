import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { localAnonKey } from '../../schema/local-defaults.ts'
import { createApp } from '../../src/server/app.ts'
import { createOutboxWorker, type OutboxWorker } from '../../src/server/delivery/outbox.ts'
import { createSmtpMailer } from '../../src/server/delivery/mailers/smtp-mailer.ts'
import { createWebhookSender } from '../../src/server/delivery/webhook.ts'
import { createLeadsPage } from '../../src/server/leads-page/leads-page.ts'
import { leadsPageLaunchOf } from '../../src/server/leads-page/views.ts'
import { createPasswordCheck, openSessionStore } from '../../src/server/leads-page/sessions.ts'
import { createDocumentFiles } from '../../src/server/site/document-files.ts'
import type { LeadStore } from '../../src/server/store/store.ts'
import { exportLeads } from '../../src/cli/leads-export.ts'
import { leadStoreBackends } from './support/backends.ts'
import { launchSite, readPageConfig, registration } from './support/fixtures.ts'
import { startTestSmtp, type TestSmtp } from './support/smtp.ts'
import { startTestReceiver, type TestReceiver } from './support/webhook-receiver.ts'

// The launch's documents (issue 24, "documents that tell"): the reply's personal links, against both real stores, a
// real
// SMTP server and a real webhook receiver, with a clock the test controls.

const root = path.resolve(import.meta.dirname, '../..')
const page = readPageConfig()
const base = 'https://bramblewood.example.com/functions/v1/send-contact-email'
const webhookSecret = 'webhook-secret-0123456789abcdef'
const priceList = readFileSync(path.join(root, 'documents/price-list.pdf'))
const quiet = { info() {}, error() {} }
const sessionsDir = mkdtempSync(path.join(tmpdir(), 'vip-documents-'))
afterAll(() => rmSync(sessionsDir, { recursive: true, force: true }))

describe.each(leadStoreBackends())('document links', (backend) => {
  let store: LeadStore
  let smtp: TestSmtp
  let crm: TestReceiver
  let worker: OutboxWorker
  let app: ReturnType<typeof createApp>
  let now: Date
  let close: () => Promise<void>
  beforeAll(() => backend.setup(), 60_000)
  afterAll(() => backend.teardown())
  beforeEach(async () => {
    store = await backend.fresh()
    smtp = await startTestSmtp()
    crm = await startTestReceiver(webhookSecret)
    now = new Date('2026-03-02T15:00:00.000Z')
    const clock = () => now
    const mailer = createSmtpMailer({ url: `smtp://127.0.0.1:${smtp.port}`, from: 'no-reply@example.com' })
    worker = createOutboxWorker({
      store,
      mailer,
      webhook: createWebhookSender({ url: crm.url, secret: webhookSecret }),
      clock,
      log: quiet,
    })
    app = createApp({
      launches: [
        launchSite(page, {
          notifyEmail: 'sales@example.com',
          links: { secret: 'unsubscribe-secret-0123456789', baseUrl: base },
        }),
      ],
      defaultLaunch: page.launch.slug,
      store,
      clock,
      anonKeys: [localAnonKey],
      rateLimitPerMinute: 0,
      log: quiet,
      webhook: true,
      documentFiles: createDocumentFiles((slug) =>
        slug === page.launch.slug ? path.join(root, 'page.config.json') : undefined,
      ),
    })
    close = async () => {
      await worker.stop()
      await mailer.close?.()
      await smtp.stop()
      await crm.stop()
      await store.close()
    }
  })
  afterEach(() => close())

  /** Registers `email`, delivers the outbox, and returns the reply's links by document title (as paths on the app). */
  async function register(email: string): Promise<{ id: string; links: Map<string, string> }> {
    const body = registration({ email })
    const res = await app.request('/functions/v1/send-contact-email', {
      method: 'POST',
      headers: { apikey: localAnonKey, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })
    expect(res.status).toBe(200)
    await worker.deliverDue()
    return { id: String(body.submissionId), links: linksIn(email, 0) }
  }

  /** The document links of the `n`th message to `email`. */
  function linksIn(email: string, n: number): Map<string, string> {
    const mail = smtp.received.filter((m) => m.rcptTo[0] === email)[n]
    expect(mail, `message ${n} to ${email}`).toBeDefined()
    const links = new Map<string, string>()
    for (const match of mail!.decoded.matchAll(/^- ([^:\n]+): (https:\/\/\S+)$/gm)) {
      const url = new URL(match[2]!)
      if (url.href.startsWith(`${base}/documents/`))
        links.set(
          match[1]!,
          `/functions/v1/send-contact-email${url.pathname.slice('/functions/v1/send-contact-email'.length)}${url.search}`,
        )
    }
    return links
  }

  async function leadPageHtml(leadId: number): Promise<string> {
    const sessions = openSessionStore(path.join(sessionsDir, `${crypto.randomUUID()}.sqlite`), 'a shared team password')
    try {
      const leads = createLeadsPage({
        checkPassword: createPasswordCheck('a shared team password'),
        audit: async () => {},
        store,
        sessions,
        launches: [leadsPageLaunchOf(page)],
        timeZone: 'America/Toronto',
        clientIp: () => '203.0.113.7',
        signInCounts: store,
        trustProxy: 0,
        log: quiet,
      })
      const origin = 'http://leads.example'
      const signedIn = await leads.request(`${origin}/leads/sign-in`, {
        method: 'POST',
        headers: { host: 'leads.example', origin, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ password: 'a shared team password' }).toString(),
      })
      const cookie = signedIn.headers
        .getSetCookie()
        .find((c) => c.startsWith('leads_session='))!
        .split(';')[0]!
      const res = await leads.request(`${origin}/leads/lead/${leadId}`, { headers: { host: 'leads.example', cookie } })
      expect(res.status).toBe(200)
      return await res.text()
    } finally {
      sessions.close()
    }
  }

  describe(backend.name, () => {
    it('downloads the exact PDF from the reply, logs one opening shown on the lead, in the export and to the CRM', async () => {
      const { id, links } = await register('ada@example.com')
      expect([...links.keys()]).toEqual(['Price list', 'Floor plans'])
      const link = links.get('Price list')!
      expect(link).not.toContain('example.com?')
      expect(decodeURIComponent(link)).not.toContain('ada@')
      now = new Date('2026-03-03T15:04:05.000Z')
      const res = await app.request(link)
      expect(res.status).toBe(200)
      expect(res.headers.get('content-type')).toBe('application/pdf')
      expect(res.headers.get('cache-control')).toBe('no-store')
      expect(res.headers.get('x-robots-tag')).toBe('noindex')
      expect(Buffer.from(await res.arrayBuffer()).equals(priceList)).toBe(true)

      const lead = (await store.findLead(id))!
      expect(await store.documentOpeningsOf([lead.id])).toEqual([
        {
          leadId: lead.id,
          document: 'price-list',
          title: 'Price list',
          count: 1,
          first: '2026-03-03T15:04:05.000Z',
          last: '2026-03-03T15:04:05.000Z',
        },
      ])
      const html = await leadPageHtml(lead.id)
      expect(html).toMatch(
        /<ul aria-labelledby="documents">\s*<li>Price list: opened once, last <time datetime="2026-03-03T15:04:05.000Z">/,
      )

      let csv = ''
      await exportLeads(store, ['name', 'email'], (chunk) => void (csv += chunk))
      expect(csv).toContain('Price list: 1 (last 2026-03-03T15:04:05.000Z)')

      await worker.deliverDue()
      const opened = crm.calls
        .map((call) => JSON.parse(call.body) as { type: string; data: Record<string, unknown> })
        .filter((call) => call.type === 'document.opened')
      expect(opened).toHaveLength(1)
      expect(opened[0]!.data).toMatchObject({
        submissionId: id,
        launch: page.launch.slug,
        document: 'price-list',
        title: 'Price list',
        openedAt: '2026-03-03T15:04:05.000Z',
      })
      expect(crm.calls.every((call) => call.signed)).toBe(true)
      expect(JSON.stringify(opened[0])).not.toContain('ada@')
    })

    it('refuses a link with one character changed (403 or 404) and logs nothing', async () => {
      const { id, links } = await register('bea@example.com')
      const link = links.get('Floor plans')!
      const sig = link.indexOf('sig=') + 4
      const changes = [
        link.slice(0, sig) + (link[sig] === 'A' ? 'B' : 'A') + link.slice(sig + 1),
        link.replace(/exp=(\d)/, (_, d: string) => `exp=${(Number(d) + 1) % 10}`),
        link.replace('floor-plans', 'floor-planz'),
      ]
      for (const changed of changes) {
        const res = await app.request(changed)
        expect([403, 404], changed).toContain(res.status)
        expect(res.headers.get('content-type')).toContain('text/html')
        expect(await res.text()).not.toMatch(/^\s+at /m)
      }
      const lead = (await store.findLead(id))!
      expect(await store.documentOpeningsOf([lead.id])).toEqual([])
      expect((await store.listMessages({ leadId: lead.id, limit: 50 })).map((m) => m.kind).sort()).toEqual([
        'notification',
        'reply',
        'webhook',
      ])
    })

    it('answers an expired link with a page whose button queues one fresh-link e-mail, whose link works', async () => {
      const { id, links } = await register('cy@example.com')
      now = new Date(now.getTime() + 31 * 86_400_000)
      const expired = await app.request(links.get('Price list')!)
      expect(expired.status).toBe(410)
      const page = await expired.text()
      expect(page).toContain('This link no longer works')
      expect(page).toContain('<form method="post"')
      expect(page).not.toContain('cy@example.com')
      const lead = (await store.findLead(id))!
      expect(await store.documentOpeningsOf([lead.id])).toEqual([])

      const asked = await app.request(links.get('Price list')!, { method: 'POST' })
      expect(asked.status).toBe(200)
      expect(await asked.text()).toContain('Check your inbox')
      const again = await app.request(links.get('Price list')!, { method: 'POST' })
      expect(again.status).toBe(200)
      const replies = (await store.listMessages({ leadId: lead.id, limit: 50 })).filter((m) => m.kind === 'reply')
      expect(replies).toHaveLength(2)

      await worker.deliverDue()
      const fresh = linksIn('cy@example.com', 1)
      expect(smtp.received.filter((m) => m.rcptTo[0] === 'cy@example.com')).toHaveLength(2)
      const res = await app.request(fresh.get('Price list')!)
      expect(res.status).toBe(200)
      expect(Buffer.from(await res.arrayBuffer()).equals(priceList)).toBe(true)
    })

    it('queues one fresh-link e-mail when the button is pressed many times at once, on one server or two', async () => {
      const { id, links } = await register('dee@example.com')
      now = new Date(now.getTime() + 31 * 86_400_000)
      const lead = (await store.findLead(id))!
      const ask = () => app.request(links.get('Price list')!, { method: 'POST' })
      // A second server on the same database (on SQLite, another connection to the same file).
      const other = await backend.reopen()
      try {
        const mail = {
          to: 'dee@example.com',
          subject: 'Your fresh links',
          text: 'The links.',
          html: '<p>The links.</p>',
          messageId: '<fresh-links@example.com>',
          idempotencyKey: 'fresh-links',
        }
        const notBefore = new Date(now.getTime() - 60_000)
        const all = () =>
          Promise.all([
            ...Array.from({ length: 12 }, ask),
            ...Array.from({ length: 12 }, () => other.queueDocumentsReply(lead.id, mail, now, notBefore)),
          ])
        // On PostgreSQL the requests are made to meet: the outbox is locked against writes until all of them wait on
        // it, then released, so they check at the same moment (SQLite's one write lock lets one writer at a time).
        const answers =
          backend.kind === 'postgres'
            ? await backend.postgres().session(async (db) => {
                await db.query('BEGIN')
                await db.query('LOCK TABLE public.outbox IN SHARE ROW EXCLUSIVE MODE')
                const asked = all()
                // Asked on this session's own connection: the others are the pool's, each holding a waiting request.
                const waiting = async () =>
                  Number(
                    (
                      (await db.query(`SELECT count(*) AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock'`))
                        .rows[0] as { n: string }
                    ).n,
                  )
                for (let tries = 0; tries < 100 && (await waiting()) < 8; tries++)
                  await new Promise((r) => setTimeout(r, 20))
                await db.query('COMMIT')
                return asked
              })
            : await all()
        const statuses = answers.filter((a): a is Response => a instanceof Response).map((a) => a.status)
        expect(statuses).toEqual(Array.from({ length: 12 }, () => 200))
      } finally {
        await other.close()
      }
      const replies = (await store.listMessages({ leadId: lead.id, limit: 50 })).filter((m) => m.kind === 'reply')
      // The registration's reply, and one fresh-link reply.
      expect(replies).toHaveLength(2)
    })
  })
})
