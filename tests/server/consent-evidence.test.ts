import Database from 'better-sqlite3'
import { createHash } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { localAnonKey } from '../../schema/local-defaults.ts'
import { createApp, type AppDeps } from '../../src/server/app.ts'
import { createOutboxWorker } from '../../src/server/delivery/outbox.ts'
import { createSmtpMailer } from '../../src/server/delivery/mailers/smtp-mailer.ts'
import { openSqliteStore, type SqliteLeadStore } from '../../src/server/store/sqlite/sqlite-store.ts'
import { defaultLaunch, launchSite, readPageConfig, registration } from './support/fixtures.ts'
import { startTestSmtp, type ReceivedMail } from './support/smtp.ts'

// Issue 13: consent evidence that proves something, and no visitor-written address in the team's mail as a link.
// The app on real SQLite, its notification delivered by the outbox to a real SMTP server on 127.0.0.1.

const page = readPageConfig()
const url = 'http://site.test/functions/v1/send-contact-email'
const dir = mkdtempSync(path.join(tmpdir(), 'vip-consent-'))
const cleanups: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const quiet = { info() {}, error() {} }
const shownHash = createHash('sha256').update(page.form.consent, 'utf8').digest('hex')

function setup(overrides: Partial<AppDeps> = {}): {
  store: SqliteLeadStore
  post(body: unknown, headers?: Record<string, string>): Promise<Response>
} {
  const store = openSqliteStore(path.join(dir, `${crypto.randomUUID()}.sqlite`), { defaultLaunch })
  cleanups.push(() => store.close())
  const app = createApp({
    launches: [launchSite(page, { notifyEmail: 'sales@example.com' })],
    defaultLaunch: page.launch.slug,
    store,
    anonKeys: [localAnonKey],
    allowedOrigins: ['https://www.example.com'],
    rateLimitPerMinute: 0,
    log: quiet,
    ...overrides,
  })
  const post = async (body: unknown, headers: Record<string, string> = {}) =>
    app.request(url, {
      method: 'POST',
      headers: { apikey: localAnonKey, 'content-type': 'application/json', host: 'site.test', ...headers },
      body: JSON.stringify(body),
    })
  return { store, post }
}

/** Delivers the store's pending notifications through SMTP and returns what the server received. */
async function deliver(store: SqliteLeadStore): Promise<ReceivedMail[]> {
  const server = await startTestSmtp()
  cleanups.push(() => server.stop())
  const mailer = createSmtpMailer({
    url: `smtp://127.0.0.1:${server.port}`,
    from: 'Bramblewood Crossing <no-reply@example.com>',
  })
  cleanups.push(() => mailer.close?.())
  const worker = createOutboxWorker({ store, mailer, jitter: 0, log: quiet })
  expect((await worker.deliverDue()).failed).toBe(0)
  return server.received
}

describe('consent evidence', () => {
  const hostile = {
    consentText: 'Visit https://evil.example',
    pageUrl: 'https://evil.example/x',
    referrer: 'https://evil.example/landing',
  }

  it("stores the launch's own consent text and its SHA-256, the browser's differing text apart, and no foreign page", async () => {
    const { store, post } = setup()
    const res = await post(registration(hostile))
    expect(res.status).toBe(200)
    const [lead] = await store.listLeads(0, 10)
    expect(lead).toMatchObject({
      consentText: page.form.consent,
      consentSha256: shownHash,
      consentReported: 'Visit https://evil.example',
      pageUrl: null,
    })
    expect(shownHash).toMatch(/^[0-9a-f]{64}$/)
  })

  it('keeps no reported text when the browser sent the same note, or none', async () => {
    const { store, post } = setup()
    await post(registration({ consentText: `  ${page.form.consent.replaceAll(' ', '  \n')} ` }))
    await post(registration({ consentText: undefined }))
    const leads = await store.listLeads(0, 10)
    expect(leads.map((l) => [l.consentText, l.consentSha256, l.consentReported])).toEqual([
      [page.form.consent, shownHash, null],
      [page.form.consent, shownHash, null],
    ])
  })

  it("puts no link to the visitor's addresses in the team's mail, text or HTML", async () => {
    const { store, post } = setup()
    expect((await post(registration(hostile))).status).toBe(200)
    const [mail, ...others] = await deliver(store)
    expect(others).toEqual([])
    for (const body of [mail!.raw, mail!.decoded]) {
      expect(body).not.toContain('https://evil.example')
      expect(body).not.toMatch(/evil\.example/i)
      // The only links a mail program could follow would be mailto:/tel: ones; there are none today.
      for (const [anchor] of body.matchAll(/<a\s[^>]*>/gi)) expect(anchor).toMatch(/href="(mailto|tel):/i)
    }
    // The referrer is still shown, as a host nobody can click; the page, which was not ours, is not.
    expect(mail!.decoded).toContain('Referrer: evil[.]example')
    expect(mail!.decoded).toContain('Page: —')
    expect(mail!.decoded).toContain(`Consent shown: ${page.form.consent}`)
    expect(mail!.decoded).toMatch(/<th[^>]*>Referrer<\/th><td[^>]*>evil\[\.\]example<\/td>/)
  })

  it('shows a direct visit as direct, and a page of ours by its path, dots defanged', async () => {
    const { store, post } = setup()
    await post(registration({ referrer: '', pageUrl: 'http://site.test/go.evil.example?x=1' }))
    const [mail] = await deliver(store)
    expect(mail!.decoded).toContain('Referrer: direct')
    expect(mail!.decoded).toContain('Page: /go[.]evil[.]example')
    expect(mail!.decoded).not.toMatch(/evil\.example/)
  })
})

describe('page address', () => {
  it.each([
    [
      'the same origin, without query or fragment',
      'http://site.test/thanks?email=jane@example.com#top',
      'http://site.test/thanks',
    ],
    [
      'an allowed origin, path kept',
      'https://www.example.com/homes/45-foot?utm_source=x',
      'https://www.example.com/homes/45-foot',
    ],
    ['an allowed origin, credentials dropped', 'https://user:secret@www.example.com/', 'https://www.example.com/'],
    ['another site', 'https://evil.example/x', null],
    ['a look-alike host', 'https://www.example.com.evil.example/', null],
    ['the same host on another port', 'http://site.test:8080/', null],
    ['not a web address', 'javascript:alert(1)', null],
    ['not an address at all', 'somewhere', null],
  ])('keeps %s as %j, and the registration succeeds', async (_, pageUrl, stored) => {
    const { store, post } = setup()
    expect((await post(registration({ pageUrl }))).status).toBe(200)
    expect((await store.listLeads(0, 10))[0]?.pageUrl).toBe(stored)
  })

  it('keeps no page of another site when every origin may call (*)', async () => {
    const { store, post } = setup({ allowedOrigins: ['*'] })
    const res = await post(registration({ pageUrl: 'https://anywhere.example/p' }), {
      origin: 'https://anywhere.example',
    })
    expect(res.status).toBe(200)
    await post(registration({ pageUrl: 'http://site.test/p' }))
    expect((await store.listLeads(0, 10)).map((l) => l.pageUrl)).toEqual([null, 'http://site.test/p'])
  })
})

describe('SQLite upgrade', () => {
  it('adds the consent columns to an older database, its leads keeping no fingerprint', async () => {
    const file = path.join(dir, `${crypto.randomUUID()}.sqlite`)
    await openSqliteStore(file, { defaultLaunch }).close()
    // The shape before consent evidence (user_version 3), with a lead stored then.
    const db = new Database(file)
    db.exec(
      'ALTER TABLE leads DROP COLUMN consent_sha256; ALTER TABLE leads DROP COLUMN consent_reported; PRAGMA user_version = 3',
    )
    db.prepare(
      `INSERT INTO leads (submission_id, created_at, fields, consent_text) VALUES (?, ?, '{}', 'what the browser sent')`,
    ).run(crypto.randomUUID(), '2025-06-01T14:30:00.000Z')
    db.close()
    const store = openSqliteStore(file, { defaultLaunch })
    cleanups.push(() => store.close())
    const [old] = await store.listLeads(0, 10)
    expect(old).toMatchObject({ consentText: 'what the browser sent', consentSha256: null, consentReported: null })
  })
})
