import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { localAnonKey } from '../../schema/local-defaults.ts'
import { createApp } from '../../src/server/app.ts'
import { createOutboxWorker } from '../../src/server/delivery/outbox.ts'
import { createSmtpMailer } from '../../src/server/delivery/mailers/smtp-mailer.ts'
import { openSqliteStore } from '../../src/server/store/sqlite/sqlite-store.ts'
import { defaultLaunch, launchSite, readPageConfig, registration } from './support/fixtures.ts'
import { startTestSmtp, type ReceivedMail } from './support/smtp.ts'

// Issue 21, items 2 and 7: the reply to a registrant is no relay for what a visitor typed, and nothing a visitor wrote
// reaches the team's inbox as a link. The app on real SQLite, its outbox delivered to a real SMTP server on 127.0.0.1.

const page = readPageConfig()
const dir = mkdtempSync(path.join(tmpdir(), 'vip-relay-'))
const cleanups: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const quiet = { info() {}, error() {} }

/** Registers `body` (with these request headers) and returns the messages the SMTP server then received. */
async function registerAndDeliver(
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<{ reply: ReceivedMail; notification: ReceivedMail }> {
  const store = openSqliteStore(path.join(dir, `${crypto.randomUUID()}.sqlite`), { defaultLaunch })
  cleanups.push(() => store.close())
  const app = createApp({
    launches: [
      launchSite(page, {
        notifyEmail: 'sales@example.com',
        links: {
          secret: 'a-test-secret-of-some-length',
          baseUrl: 'https://bramblewood.example.com/functions/v1/send-contact-email',
        },
      }),
    ],
    defaultLaunch: page.launch.slug,
    store,
    anonKeys: [localAnonKey],
    rateLimitPerMinute: 0,
    log: quiet,
  })
  const res = await app.request('http://site.test/functions/v1/send-contact-email', {
    method: 'POST',
    headers: { apikey: localAnonKey, 'content-type': 'application/json', host: 'site.test', ...headers },
    body: JSON.stringify(body),
  })
  expect(res.status).toBe(200)
  const smtp = await startTestSmtp()
  cleanups.push(() => smtp.stop())
  const mailer = createSmtpMailer({
    url: `smtp://127.0.0.1:${smtp.port}`,
    from: 'Bramblewood Crossing <no-reply@example.com>',
  })
  cleanups.push(() => mailer.close?.())
  expect((await createOutboxWorker({ store, mailer, jitter: 0, log: quiet }).deliverDue()).failed).toBe(0)
  const reply = smtp.received.find((m) => m.rcptTo.includes(String(body.email)))!
  const notification = smtp.received.find((m) => m.rcptTo.includes('sales@example.com'))!
  return { reply, notification }
}

describe('the reply to a registrant (issue 21, item 2)', () => {
  it('carries none of the text a visitor typed: a name that is no name is left out, the phone keeps only its digits', async () => {
    const { reply } = await registerAndDeliver(
      registration({ name: 'Visit http://phish.example now', email: 'stranger@example.com', phone: '555.555.0100' }),
    )
    expect(reply.rcptTo).toEqual(['stranger@example.com'])
    const text = `${reply.headers.get('subject')?.join(' ')}\n${reply.decoded}`
    expect(text).not.toMatch(/phish|Visit http/)
    expect(reply.decoded).toMatch(/Hi,\r?\n/)
    expect(reply.decoded).toContain('call you at 555-555-0100 within')
  })

  it('greets a name made of letters, accented ones, spaces, apostrophes and hyphens', async () => {
    const { reply } = await registerAndDeliver(
      registration({ name: "Zoë O'Brien-Côté", email: 'zoe@example.com', phone: '+1 (555) 555-0142' }),
    )
    expect(reply.decoded).toContain("Hi Zoë O'Brien-Côté,")
    expect(reply.decoded).toContain('call you at +1 555-555-0142 within')
  })
})

describe("the team's notification (issue 21, item 7)", () => {
  it('shows no visitor-controlled value as a link: form fields, UTM values and the browser alike', async () => {
    const { notification } = await registerAndDeliver(
      registration({
        name: 'See www.phish.example/login',
        email: 'pat@example.com',
        utm: { utm_source: 'https://phish.example/a', utm_campaign: 'phish.example' },
      }),
      { 'user-agent': 'Mozilla/5.0 visit http://phish.example/x' },
    )
    const text = `${notification.headers.get('subject')?.join(' ')}\n${notification.decoded}`
    expect(text).toContain('phish[.]example')
    expect(text).not.toMatch(/phish\.example|https?:\/\/phish/)
  })
})
