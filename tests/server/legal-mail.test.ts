import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { localAnonKey } from '../../schema/local-defaults.ts'
import type { PageConfig } from '../../schema/page-config.ts'
import { createApp } from '../../src/server/app.ts'
import { createOutboxWorker } from '../../src/server/delivery/outbox.ts'
import { createSmtpMailer } from '../../src/server/delivery/mailers/smtp-mailer.ts'
import { openSqliteStore } from '../../src/server/store/sqlite/sqlite-store.ts'
import { launchSiteOf } from '../../src/server/site/launch-site.ts'
import { functionLaunchOf } from '../../schema/function-launch.ts'
import { secondLaunchConfig } from '../fixtures/second-launch.ts'
import { defaultLaunch, launchSite, readPageConfig, registration } from './support/fixtures.ts'
import { startTestSmtp, type ReceivedMail } from './support/smtp.ts'

// What the law asks of every message (Ontario's TRESA/RECO advertising rules, CASL, PIPEDA): the brokerage's registered
// name in every e-mail the server sends about a registration, and the privacy page linked from every reply. The app
// on real SQLite, its outbox delivered to a real SMTP server on 127.0.0.1.

const page = readPageConfig()
const second = JSON.parse(readFileSync(secondLaunchConfig, 'utf8')) as PageConfig
const dir = mkdtempSync(path.join(tmpdir(), 'vip-legal-mail-'))
const cleanups: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const quiet = { info() {}, error() {} }

/** Registers for `config`'s launch and returns every message the SMTP server then received. */
async function registerAndDeliver(config: PageConfig, body: Record<string, unknown>): Promise<ReceivedMail[]> {
  const store = openSqliteStore(path.join(dir, `${crypto.randomUUID()}.sqlite`), { defaultLaunch })
  cleanups.push(() => store.close())
  const links = {
    secret: 'a-test-secret-of-some-length',
    baseUrl: `${new URL(config.seo.canonicalUrl).origin}/functions/v1/send-contact-email`,
  }
  const app = createApp({
    launches: [launchSite(config, { notifyEmail: 'sales@example.com', links })],
    defaultLaunch: config.launch.slug,
    store,
    anonKeys: [localAnonKey],
    rateLimitPerMinute: 0,
    log: quiet,
  })
  const res = await app.request('http://site.test/functions/v1/send-contact-email', {
    method: 'POST',
    headers: { apikey: localAnonKey, 'content-type': 'application/json', host: 'site.test' },
    body: JSON.stringify({ ...body, launch: config.launch.slug }),
  })
  expect(res.status).toBe(200)
  const smtp = await startTestSmtp()
  cleanups.push(() => smtp.stop())
  const mailer = createSmtpMailer({ url: `smtp://127.0.0.1:${smtp.port}`, from: 'Launch <no-reply@example.com>' })
  cleanups.push(() => mailer.close?.())
  expect((await createOutboxWorker({ store, mailer, jitter: 0, log: quiet }).deliverDue()).failed).toBe(0)
  return smtp.received
}

/** The plain-text part and the HTML part of a received message. */
function parts(mail: ReceivedMail): { text: string; html: string } {
  const html = /<!doctype html>[^]*<\/html>/i.exec(mail.decoded)?.[0] ?? ''
  return { text: mail.decoded.replace(html, ''), html }
}

describe("the brokerage's registered name and the privacy page in every e-mail", () => {
  it('are in the notification to the team and in the reply to the registrant, in text and in HTML', async () => {
    const received = await registerAndDeliver(
      page,
      registration({ name: 'Avery Tremblay', email: 'avery@example.com' }),
    )
    const notification = received.find((m) => m.rcptTo.includes('sales@example.com'))!
    const reply = received.find((m) => m.rcptTo.includes('avery@example.com'))!
    expect(received).toHaveLength(2)
    const brokerage = page.site.brokerage
    for (const mail of [notification, reply]) {
      const { text, html } = parts(mail)
      expect(text).toContain(brokerage)
      expect(html).toContain(brokerage)
    }
    expect(parts(notification).text).toContain(`Sent by the registration page of Bramblewood Crossing, ${brokerage}.`)
    const { text, html } = parts(reply)
    expect(text).toMatch(/\nPrivacy: https:\/\/bramblewood\.example\.com\/privacy\r?\n/)
    expect(html).toContain('<a href="https://bramblewood.example.com/privacy" style="color:#1f3d2b">Privacy</a>')
  })

  it("are in another launch's notification with that launch's own name", async () => {
    const received = await registerAndDeliver(second, {
      name: 'Sam Buyer',
      email: 'sam@example.com',
      phone: '555-555-0199',
      isRealtor: 'no',
    })
    expect(received.map((m) => m.rcptTo)).toEqual([['sales@example.com']])
    const { text, html } = parts(received[0]!)
    expect(second.site.brokerage).toBe('Lakeside Realty Group Inc., Brokerage')
    expect(text).toContain(second.site.brokerage)
    expect(html).toContain(second.site.brokerage)
    expect(text).not.toContain(page.site.brokerage)
  })

  it("link the canonical origin's /privacy from a version built before privacy pages, so its replies still go", () => {
    const { privacy: _none, ...old } = functionLaunchOf(page)
    expect(launchSiteOf(old as ReturnType<typeof functionLaunchOf>).privacy).toEqual({
      url: 'https://bramblewood.example.com/privacy',
      label: 'Privacy',
    })
  })
})
