import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest'
import { localAnonKey } from '../../schema/local-defaults.ts'
import { honeypotField } from '../../schema/registration-contract.ts'
import { createApp } from '../../src/server/app.ts'
import { createOutboxWorker, type OutboxWorker } from '../../src/server/delivery/outbox.ts'
import { createSmtpMailer } from '../../src/server/delivery/mailers/smtp-mailer.ts'
import { openSqliteStore, type SqliteLeadStore } from '../../src/server/store/sqlite/sqlite-store.ts'
import { addressKeyOf } from '../../src/server/store/suppression.ts'
import { hmacSha256 } from '../../src/server/store/private-files.ts'
import { unsubscribeSignature } from '../../src/server/delivery/unsubscribe.ts'
import { createWebhookSender } from '../../src/server/delivery/webhook.ts'
import { defaultLaunch, launchSite, readPageConfig, registration } from './support/fixtures.ts'
import { startTestSmtp, type TestSmtp } from './support/smtp.ts'
import { startTestReceiver, type TestReceiver } from './support/webhook-receiver.ts'

// The reply's unsubscribe link (CASL, RFC 8058) against a real SQLite store, SMTP server and webhook receiver.

const page = readPageConfig()
const dir = mkdtempSync(path.join(tmpdir(), 'vip-unsub-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const secret = 'webhook-secret-0123456789abcdef'
const base = 'https://bramblewood.example.com/functions/v1/send-contact-email'
const suppressionSecret = 'suppression-secret-0123456789'

let store: SqliteLeadStore
let smtp: TestSmtp
let crm: TestReceiver
let worker: OutboxWorker
let close: () => Promise<void>
let app: ReturnType<typeof createApp>

beforeEach(async () => {
  store = openSqliteStore(path.join(dir, `${crypto.randomUUID()}.sqlite`), { defaultLaunch })
  smtp = await startTestSmtp()
  crm = await startTestReceiver(secret)
  const mailer = createSmtpMailer({ url: `smtp://127.0.0.1:${smtp.port}`, from: 'no-reply@example.com' })
  const quiet = { info() {}, error() {} }
  worker = createOutboxWorker({ store, mailer, webhook: createWebhookSender({ url: crm.url, secret }), log: quiet })
  app = createApp({
    launches: [
      launchSite(page, {
        notifyEmail: 'sales@example.com',
        links: { secret: 'unsubscribe-secret-0123456789', baseUrl: base },
      }),
    ],
    defaultLaunch: page.launch.slug,
    store,
    anonKeys: [localAnonKey],
    rateLimitPerMinute: 0,
    log: quiet,
    webhook: true,
    suppressionKeyOf: (email) => addressKeyOf(suppressionSecret, email),
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

async function register(email: string, extra: Record<string, unknown> = {}): Promise<string> {
  const body = registration({ email, ...extra })
  const res = await app.request('/functions/v1/send-contact-email', {
    method: 'POST',
    headers: { apikey: localAnonKey, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  expect(res.status).toBe(200)
  return String(body.submissionId)
}

/** The link of the List-Unsubscribe header of the reply to `email`, as a path on the app. */
function linkOf(email: string): string {
  const reply = smtp.received.find((m) => m.rcptTo[0] === email)
  const header = reply?.headers.get('list-unsubscribe')?.[0] ?? ''
  const url = new URL(/^<(.+)>$/.exec(header)![1]!)
  expect(`${url.origin}${url.pathname}`).toBe(`${base}/unsubscribe`)
  // The plain-text body carries the same link for mail programs that show no button.
  expect(reply!.decoded).toContain(url.href)
  return `${url.pathname}${url.search}`
}

async function withdrawnAt(submissionId: string): Promise<string | undefined> {
  return (await store.listLeads(0, 100)).find((l) => l.submissionId === submissionId)?.withdrawnAt
}

describe('unsubscribe link', () => {
  it('shows the confirmation page on GET and records nothing; the button (a POST) records the withdrawal', async () => {
    const id = await register('jane@example.com')
    await worker.deliverDue()
    const link = linkOf('jane@example.com')

    const shown = await app.request(link)
    expect(shown.status).toBe(200)
    expect(shown.headers.get('content-type')).toBe('text/html; charset=utf-8')
    const html = await shown.text()
    expect(html).toContain('Stop messages about Bramblewood Crossing?')
    // The query alone: the browser posts to the address it shows, whatever path a gateway gave the function.
    expect(html).toContain(`<form method="post" action="${new URL(link, 'http://x').search.replace('&', '&amp;')}">`)
    const behindGateway = await app.request(link.replace('/functions/v1/send-contact-email/', '/send-contact-email/'))
    expect(await behindGateway.text()).toContain(`action="?id=`)
    expect(html).not.toMatch(/<script/i)
    // A mail scanner following the link twice changes nothing.
    await app.request(link, { method: 'HEAD' })
    expect(await withdrawnAt(id)).toBeUndefined()

    const done = await app.request(link, { method: 'POST' })
    expect(done.status).toBe(200)
    expect(await done.text()).toContain('You are unsubscribed')
    const at = await withdrawnAt(id)
    expect(at).toMatch(/^\d{4}-\d\d-\d\dT/)
    // Pressing it again keeps the first time.
    await app.request(link, { method: 'POST' })
    expect(await withdrawnAt(id)).toBe(at)
  })

  it("records the mail program's one-click POST (List-Unsubscribe=One-Click)", async () => {
    const id = await register('one.click@example.com')
    await worker.deliverDue()
    const res = await app.request(linkOf('one.click@example.com'), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'List-Unsubscribe=One-Click',
    })
    expect(res.status).toBe(200)
    expect(await withdrawnAt(id)).toBeDefined()
  })

  it('refuses a tampered or cut link and records nothing', async () => {
    const id = await register('jane@example.com')
    const other = await register('other@example.com')
    await worker.deliverDue()
    const link = linkOf('jane@example.com')
    const tampered = link.replace(/sig=([\w-])/, (_, c: string) => `sig=${c === 'A' ? 'B' : 'A'}`)
    const forOther = link.replace(id, () => other)
    for (const bad of [tampered, forOther]) {
      const res = await app.request(bad, { method: 'POST', body: 'List-Unsubscribe=One-Click' })
      expect(res.status).toBe(403)
      expect(await res.text()).toContain('nothing was recorded')
    }
    expect((await app.request(link.replace(/&sig=.*/, ''), { method: 'POST' })).status).toBe(400)
    expect(await withdrawnAt(id)).toBeUndefined()
    expect(await withdrawnAt(other)).toBeUndefined()
  })

  it('sends that address no reply or webhook call afterwards, queued before or registered after', async () => {
    const first = await register('jane@example.com')
    await worker.deliverDue()
    expect(crm.calls).toHaveLength(1)
    const link = linkOf('jane@example.com')
    // A second registration is queued before the withdrawal, a third comes after it (another spelling).
    await register('jane@example.com')
    await app.request(link, { method: 'POST' })
    expect(await withdrawnAt(first)).toBeDefined()
    await register(' JANE@Example.com ')
    smtp.received.length = 0
    crm.calls.length = 0
    await worker.deliverDue()

    expect(smtp.received.map((m) => m.rcptTo[0])).toEqual(['sales@example.com', 'sales@example.com'])
    expect(crm.calls).toEqual([])
    expect(await store.countMessages()).toEqual({ pending: 0, sent: 5, failed: 0, cancelled: 2 })
  })

  it('sends no reply or webhook call to an address that withdrew and was then erased (the suppression list)', async () => {
    await register('gone@example.com')
    await worker.deliverDue()
    await app.request(linkOf('gone@example.com'), { method: 'POST' })
    const erased = await store.eraseLeads({ email: 'gone@example.com' }, (email) =>
      addressKeyOf(suppressionSecret, email),
    )
    expect(erased).toMatchObject({ leads: 1, suppressed: 1 })
    expect(await store.isAddressWithdrawn('gone@example.com')).toBe(false)
    smtp.received.length = 0
    crm.calls.length = 0
    await register('Gone@Example.com')
    await worker.deliverDue()
    expect(smtp.received.map((m) => m.rcptTo[0])).toEqual(['sales@example.com'])
    expect(crm.calls).toEqual([])
  })

  it('sends a lead caught by the honeypot nothing at all: no notification, no reply, no webhook call', async () => {
    const id = await register('bot@example.com', { [honeypotField]: 'https://spam.example' })
    await worker.deliverDue()
    expect((await store.listLeads(0, 10)).find((l) => l.submissionId === id)?.suspectedSpam).toBe(true)
    expect(await store.countMessages()).toEqual({ pending: 0, sent: 0, failed: 0, cancelled: 0 })
    expect(smtp.received).toEqual([])
    expect(crm.calls).toEqual([])
  })
})

describe('HMAC on the request thread (the Node server) and Web Crypto (Deno)', () => {
  it('sign the same unsubscribe link and make the same suppression key', async () => {
    const id = crypto.randomUUID()
    const webLink = await unsubscribeSignature('unsubscribe-secret-0123456789', id)
    expect(await unsubscribeSignature('unsubscribe-secret-0123456789', id, hmacSha256)).toBe(webLink)
    expect(webLink).toMatch(/^[\w-]{43}$/)
    expect(await unsubscribeSignature('another-secret-0123456789ab', id, hmacSha256)).not.toBe(webLink)
    const webKey = await addressKeyOf(suppressionSecret, ' Jane@Example.com ')
    expect(await addressKeyOf(suppressionSecret, 'jane@example.com', hmacSha256)).toBe(webKey)
    expect(webKey).toMatch(/^[0-9a-f]{64}$/)
  })
})
