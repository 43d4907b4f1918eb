import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import type { Context } from 'hono'
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { PageConfig } from '../../schema/page-config.ts'
import { functionLaunchOf } from '../../schema/function-launch.ts'
import type { AnnouncementMailSettings } from '../../src/server/delivery/announcement.ts'
import { createOutboxWorker } from '../../src/server/delivery/outbox.ts'
import { createSmtpMailer } from '../../src/server/delivery/mailers/smtp-mailer.ts'
import { createUnsubscribeRoutes } from '../../src/server/delivery/unsubscribe.ts'
import type { Mailer } from '../../src/server/delivery/mailer.ts'
import { createLeadsPage } from '../../src/server/leads-page/leads-page.ts'
import { leadsPageLaunchOf } from '../../src/server/leads-page/views.ts'
import { createPasswordCheck, openSessionStore } from '../../src/server/leads-page/sessions.ts'
import type { LeadsAuditEntry, StudioViewer } from '../../src/server/leads-page/viewers.ts'
import { impliedConsentEnd } from '../../src/server/store/consent.ts'
import { openSqliteStore, type SqliteLeadStore } from '../../src/server/store/sqlite/sqlite-store.ts'
import { addressKeyOf } from '../../src/server/store/suppression.ts'
import { secondLaunchConfig } from '../fixtures/second-launch.ts'
import { defaultLaunch, mailFor, newLead, readPageConfig } from './support/fixtures.ts'
import { startTestSmtp, type TestSmtp } from './support/smtp.ts'

// Announcements from the leads page (issue 24, CASL): only registrants who may receive marketing get one (express
// consent, or implied consent not yet six months old by the injectable clock), each through the outbox to a real SMTP
// server on 127.0.0.1 with its own working unsubscribe link; who may send, and the origin check of every POST.

const root = mkdtempSync(path.join(tmpdir(), 'vip-announce-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

const config = readPageConfig()
const second = JSON.parse(readFileSync(secondLaunchConfig, 'utf8')) as PageConfig
const origin = 'http://leads.example'
const functionBase = 'http://site.example/functions/v1/send-contact-email'
const secret = 'an unsubscribe secret of the test'
const suppressionSecret = 'a suppression secret of the test'
const quiet = { info() {}, error() {} }

const accounts: Record<string, StudioViewer> = {
  owner: { email: 'olive@example.com', role: 'owner', sessionKey: 'owner' },
  editor: { email: 'editor@example.com', role: 'editor', sessionKey: 'editor' },
  manager: { email: 'manager@example.com', role: 'sales', sessionKey: 'manager' },
  limited: { email: 'sam.sales@example.com', role: 'sales', launches: [defaultLaunch], sessionKey: 'limited' },
  otherEditor: {
    email: 'lee@example.com',
    role: 'editor',
    launches: ['willowmere-commons'],
    sessionKey: 'other-editor',
  },
}

function mailOf(page: PageConfig): AnnouncementMailSettings {
  const contract = functionLaunchOf(page)
  return {
    reply: contract.reply!,
    links: { secret, baseUrl: functionBase },
    siteName: contract.site.name,
    brokerage: contract.site.brokerage,
    siteEmail: contract.site.email,
    privacy: contract.privacy,
  }
}

type Harness = {
  store: SqliteLeadStore
  smtp: TestSmtp
  now: { value: Date }
  audit: LeadsAuditEntry[]
  send(
    account: string | undefined,
    target: string,
    form?: Record<string, string>,
    headers?: Record<string, string>,
  ): Promise<Response>
  deliver(): Promise<void>
}

let h: Harness
const cleanups: Array<() => Promise<void> | void> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

beforeEach(async () => {
  const store = openSqliteStore(path.join(root, `${crypto.randomUUID()}.sqlite`), { defaultLaunch })
  cleanups.push(() => store.close())
  const smtp = await startTestSmtp()
  cleanups.push(() => smtp.stop())
  const mailer: Mailer = createSmtpMailer({
    url: `smtp://127.0.0.1:${smtp.port}`,
    from: 'Bramblewood Crossing <no-reply@example.com>',
  })
  cleanups.push(() => mailer.close?.())
  const sessions = openSessionStore(path.join(root, `${crypto.randomUUID()}.sqlite`), '')
  cleanups.push(() => sessions.close())
  const now = { value: new Date('2026-11-26T15:00:00.000Z') }
  const audit: LeadsAuditEntry[] = []
  const worker = createOutboxWorker({ store, mailer, clock: () => now.value, jitter: 0, log: quiet })
  const page = createLeadsPage({
    studio: {
      hasAccounts: async () => true,
      viewerOf: async (c: Context) => accounts[c.req.header('x-test-account') ?? ''],
      signOut: async () => {},
      signInPath: '/studio/sign-in',
    },
    audit: async (entry) => void audit.push(entry),
    store,
    sessions,
    launches: [leadsPageLaunchOf(config), leadsPageLaunchOf(second)],
    timeZone: 'America/Toronto',
    clientIp: () => '203.0.113.7',
    signInCounts: store,
    trustProxy: 0,
    clock: () => now.value,
    log: quiet,
    announcements: {
      mailOf: (slug) =>
        slug === defaultLaunch ? mailOf(config) : slug === 'willowmere-commons' ? mailOf(second) : undefined,
      suppressionKeyOf: (email) => addressKeyOf(suppressionSecret, email),
    },
  })
  const send: Harness['send'] = async (account, target, form, headers = {}) =>
    page.request(`${origin}${target}`, {
      method: form ? 'POST' : 'GET',
      headers: {
        host: 'leads.example',
        ...(form ? { origin, 'content-type': 'application/x-www-form-urlencoded' } : {}),
        ...(account ? { 'x-test-account': account } : {}),
        ...headers,
      },
      body: form ? new URLSearchParams(form).toString() : undefined,
    })
  const deliver = async () => {
    const report = await worker.deliverDue()
    expect(report.failed).toBe(0)
  }
  h = { store, smtp, now, audit, send, deliver }
})

/** Stores a lead of the default launch made at `createdAt`, with express or implied consent. */
async function lead(email: string, createdAt: string, consentKind: 'express' | 'implied') {
  const stored = newLead({
    createdAt,
    consentKind,
    impliedConsentUntil: impliedConsentEnd(createdAt),
    fields: { name: 'Pat Example', email, phone: '555-555-0100', isRealtor: 'no' },
  })
  return (await h.store.saveLead(stored, mailFor(stored))).lead
}

const announcement = {
  launch: defaultLaunch,
  subject: 'VIP access opens Saturday at 10',
  text: 'VIP access opens Saturday at 10.\n\n<b>Bring</b> this e-mail: https://evil.example/x',
}

describe("announcements to a launch's list", () => {
  it('go at most once a day to a launch without an owner confirming; the audit log names who sent each', async () => {
    await lead('ada@example.com', '2026-01-10T10:00:00.000Z', 'express')
    await h.deliver()
    h.smtp.received.length = 0
    const sendAs = (account: string, subject: string, extra: Record<string, string> = {}) =>
      h.send(account, '/leads/announcements', {
        ...announcement,
        subject,
        key: crypto.randomUUID(),
        action: 'send',
        ...extra,
      })

    expect((await sendAs('editor', 'First news')).status).toBe(303)
    // The attack: the same editor again and again, each time with a new key.
    for (const subject of ['Second news', 'Third news']) {
      const again = await sendAs('editor', subject)
      expect(again.status).toBe(403)
      expect(await again.text()).toContain('A second one needs an owner of the studio')
    }
    // A sales manager is refused the same way; an owner is asked to confirm, and then may.
    expect((await sendAs('manager', 'Manager news')).status).toBe(403)
    const unconfirmed = await sendAs('owner', 'Owner news')
    expect(unconfirmed.status).toBe(403)
    expect(await unconfirmed.text()).toContain('<input type="checkbox" name="confirm" value="yes">')
    expect((await sendAs('owner', 'Owner news', { confirm: 'yes' })).status).toBe(303)
    // An editor's "confirm" counts for nothing.
    expect((await sendAs('editor', 'Fourth news', { confirm: 'yes' })).status).toBe(403)

    await h.deliver()
    expect(h.smtp.received.map((m) => m.headers.get('subject')![0])).toEqual(['First news', 'Owner news'])
    const sends = h.audit.filter((entry) => entry.action === 'sent an announcement')
    expect(sends.map((entry) => entry.who)).toEqual(['editor@example.com', 'olive@example.com'])
    expect(sends[1]!.detail).toContain('sent by olive@example.com (a second within a day, confirmed by this owner)')

    // The next day, one goes again without confirming.
    h.now.value = new Date(h.now.value.getTime() + 24 * 3_600_000 + 1_000)
    expect((await sendAs('editor', 'Next day news')).status).toBe(303)

    // Two senders at the same second, each with a new key, a day later again: one goes, the other is refused.
    h.now.value = new Date(h.now.value.getTime() + 24 * 3_600_000 + 1_000)
    const together = await Promise.all([sendAs('editor', 'Race A'), sendAs('manager', 'Race B')])
    expect(together.map((answer) => answer.status).sort()).toEqual([303, 403])
    const raced = (await h.store.listAnnouncements(undefined)).filter((a) => a.subject.startsWith('Race'))
    expect(raced).toHaveLength(1)
  })

  it('reach exactly the express and the recent implied registrant at a real SMTP server, each with a working unsubscribe', async () => {
    const express = await lead('ada@example.com', '2026-01-10T10:00:00.000Z', 'express')
    const recent = await lead('grace@example.org', '2026-09-01T10:00:00.000Z', 'implied')
    await lead('hedy@example.com', '2026-05-20T10:00:00.000Z', 'implied') // implied consent ended 20 November 2026
    await h.deliver() // the three notifications to the sales team
    h.smtp.received.length = 0

    const preview = await h.send('editor', '/leads/announcements', { ...announcement, action: 'preview' })
    expect(preview.status).toBe(200)
    const previewHtml = await preview.text()
    expect(previewHtml).toContain('It would go to 2 registrants')
    expect(previewHtml).toContain('&lt;b&gt;Bring&lt;/b&gt;')

    const test = await h.send('editor', '/leads/announcements', { ...announcement, action: 'test' })
    expect(test.status).toBe(200)
    expect(await test.text()).toContain('A test copy is on its way to editor@example.com')
    await h.deliver()
    expect(h.smtp.received.map((m) => m.rcptTo)).toEqual([['editor@example.com']])
    expect(h.smtp.received[0]!.headers.get('subject')).toEqual(['[Test] VIP access opens Saturday at 10'])
    h.smtp.received.length = 0

    const sent = await h.send('editor', '/leads/announcements', { ...announcement, action: 'send' })
    expect(sent.status).toBe(303)
    expect(sent.headers.get('location')).toBe('/leads/announcements?queued=2')
    await h.deliver()
    expect(h.smtp.received.flatMap((m) => m.rcptTo).sort()).toEqual(['ada@example.com', 'grace@example.org'])
    for (const mail of h.smtp.received) {
      expect(mail.headers.get('subject')).toEqual(['VIP access opens Saturday at 10'])
      expect(mail.headers.get('list-unsubscribe-post')).toEqual(['List-Unsubscribe=One-Click'])
      // What the team typed stays text: escaped in the HTML part, never a link of theirs.
      expect(mail.decoded).toContain('&lt;b&gt;Bring&lt;/b&gt;')
      expect(mail.decoded).not.toContain('href="https://evil.example')
      expect(mail.decoded).toContain(config.site.brokerage)
    }
    // Each link works: its page offers the button, and the mail program's one-click POST records the withdrawal.
    const unsubscribe = createUnsubscribeRoutes(['/functions/v1/send-contact-email'], {
      store: h.store,
      secrets: [secret],
      textsFor: async () => ({ texts: config.reply!.unsubscribe, siteName: config.site.name, lang: 'en' }),
      clock: () => h.now.value,
      log: quiet,
    })
    const linkOf = (to: string) =>
      /^<(.+)>$/.exec(h.smtp.received.find((m) => m.rcptTo.includes(to))!.headers.get('list-unsubscribe')![0]!)![1]!
    for (const to of ['ada@example.com', 'grace@example.org']) {
      expect(h.smtp.received.find((m) => m.rcptTo.includes(to))!.decoded).toContain(linkOf(to))
      const page = await unsubscribe.request(linkOf(to))
      expect(page.status).toBe(200)
      expect(await page.text()).toContain(config.reply!.unsubscribe.button)
    }
    const oneClick = await unsubscribe.request(linkOf('grace@example.org'), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'List-Unsubscribe=One-Click',
    })
    expect(oneClick.status).toBe(200)
    expect((await h.store.findLead(recent.submissionId))!.withdrawnAt).toBeDefined()

    // The page lists it with how many it went to; each lead's history shows it.
    const listed = await (await h.send('editor', '/leads/announcements?queued=2')).text()
    expect(listed).toContain('The announcement is on its way to 2 registrants.')
    expect(listed).toContain(
      '<strong>VIP access opens Saturday at 10</strong> · Bramblewood Crossing</p>\n<p class="lp-announcement-count">Went to 2 registrants</p>',
    )
    expect(listed).toMatch(/<\/time> · editor@example\.com<\/p>/)
    const history = await (await h.send('editor', `/leads/lead/${express.id}`)).text()
    expect(history).toContain('Announcement (sent):</strong> VIP access opens Saturday at 10')
    expect(history).toContain('<dt>Consent</dt><dd>Express</dd>')

    // A second announcement (the next day: one a day is the limit) goes only to the one who did not unsubscribe.
    h.smtp.received.length = 0
    h.now.value = new Date(h.now.value.getTime() + 25 * 3_600_000)
    expect(
      (
        await h.send('manager', '/leads/announcements', {
          ...announcement,
          subject: 'Doors open at 10',
          action: 'send',
        })
      ).headers.get('location'),
    ).toBe('/leads/announcements?queued=1')
    await h.deliver()
    expect(h.smtp.received.flatMap((m) => m.rcptTo)).toEqual(['ada@example.com'])
  })

  it("sends a form once however often it is posted (a double click, two at once, a reload), the key being the form's", async () => {
    await lead('ada@example.com', '2026-10-01T10:00:00.000Z', 'express')
    const page = await (await h.send('editor', '/leads/announcements')).text()
    const key = /<input type="hidden" name="key" value="([0-9a-f-]{36})">/.exec(page)?.[1]
    expect(key).toBeDefined()
    const form = { ...announcement, key: key!, action: 'send' }
    const answers = await Promise.all([
      h.send('editor', '/leads/announcements', form),
      h.send('editor', '/leads/announcements', form),
    ])
    const again = await h.send('editor', '/leads/announcements', form)
    for (const answer of [...answers, again])
      expect(answer.headers.get('location')).toBe('/leads/announcements?queued=1')
    expect((await h.store.listAnnouncements(undefined)).map((a) => a.key)).toEqual([key])
    h.smtp.received.length = 0
    await h.deliver()
    expect(
      h.smtp.received.filter((m) => m.headers.get('subject')?.[0] === announcement.subject).flatMap((m) => m.rcptTo),
    ).toEqual(['ada@example.com'])
    // Another form (another key) is another announcement.
    const second = await (await h.send('editor', '/leads/announcements')).text()
    expect(/name="key" value="([0-9a-f-]{36})"/.exec(second)?.[1]).not.toBe(key)
  })

  it('sends no marketing to a lead whose implied consent ended, by the clock, and none to a suppressed address', async () => {
    const recent = await lead('grace@example.org', '2026-09-01T10:00:00.000Z', 'implied')
    await h.store.suppressAddress(await addressKeyOf(suppressionSecret, 'ada@example.com'))
    await lead('ada@example.com', '2026-10-01T10:00:00.000Z', 'express')
    // Six months and a moment after Grace's inquiry: her implied consent has ended.
    h.now.value = new Date(new Date(impliedConsentEnd(recent.createdAt)).getTime() + 1)
    const refused = await h.send('editor', '/leads/announcements', { ...announcement, action: 'send' })
    expect(refused.status).toBe(400)
    expect(await refused.text()).toContain('No registrant of this launch may receive marketing now: nothing was sent.')
    expect(await h.store.listAnnouncements(undefined)).toEqual([])
    expect(await h.store.listLeadAnnouncements(recent.id)).toEqual([])
    const lead_ = await (await h.send('editor', `/leads/lead/${recent.id}`)).text()
    expect(lead_).toContain('<dt>Consent</dt><dd>Implied until 1 March 2027</dd>')
  })

  it('lets no limited sales account send, no account send to a launch it is not given, and no other origin post', async () => {
    await lead('ada@example.com', '2026-10-01T10:00:00.000Z', 'express')
    const limited = await h.send('limited', '/leads/announcements', { ...announcement, action: 'send' })
    expect(limited.status).toBe(403)
    expect(await limited.text()).toContain(
      'Announcements are sent by an owner or editor, or by a sales account given every launch.',
    )
    expect((await h.send('limited', '/leads/announcements')).status).toBe(403)
    const otherLaunch = await h.send('otherEditor', '/leads/announcements', { ...announcement, action: 'send' })
    expect(otherLaunch.status).toBe(403)
    expect(await otherLaunch.text()).toContain('You may not send to that launch')
    // Cross-site forms: no Origin, or another site's, are refused before anything is read.
    expect(
      (
        await h.send(
          'editor',
          '/leads/announcements',
          { ...announcement, action: 'send' },
          { origin: 'https://evil.example' },
        )
      ).status,
    ).toBe(403)
    const noOrigin = await fetchWithoutOrigin()
    expect(noOrigin).toBe(403)
    expect(await h.store.listAnnouncements(undefined)).toEqual([])
    expect(h.audit.map((entry) => entry.action)).toContain(
      'refused an announcement to a launch the account is not given',
    )
  })
})

describe('announcements and the shared team password', () => {
  it('are refused to whoever signed in with LEADS_PASSWORD (no person to name)', async () => {
    const sessions = openSessionStore(path.join(root, `${crypto.randomUUID()}.sqlite`), 'a shared team password')
    cleanups.push(() => sessions.close())
    const page = createLeadsPage({
      checkPassword: createPasswordCheck('a shared team password'),
      audit: async () => {},
      store: h.store,
      sessions,
      launches: [leadsPageLaunchOf(config)],
      timeZone: 'America/Toronto',
      clientIp: () => '203.0.113.7',
      signInCounts: h.store,
      trustProxy: 0,
      log: quiet,
      announcements: {
        mailOf: () => mailOf(config),
        suppressionKeyOf: (email) => addressKeyOf(suppressionSecret, email),
      },
    })
    const post = (target: string, form: Record<string, string>, cookie = '') =>
      page.request(`${origin}${target}`, {
        method: 'POST',
        headers: { host: 'leads.example', origin, cookie, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(form).toString(),
      })
    const signedIn = await post('/leads/sign-in', { password: 'a shared team password' })
    const cookie = signedIn.headers
      .getSetCookie()
      .find((c) => c.startsWith('leads_session='))!
      .split(';')[0]!
    await lead('ada@example.com', '2026-10-01T10:00:00.000Z', 'express')
    const refused = await post('/leads/announcements', { ...announcement, action: 'send' }, cookie)
    expect(refused.status).toBe(403)
    expect(await refused.text()).toContain('not with the shared team password')
    expect(await h.store.listAnnouncements(undefined)).toEqual([])
  })
})

/** A POST that carries no Origin header at all (a form posted from elsewhere by an old browser, or a script). */
async function fetchWithoutOrigin(): Promise<number> {
  const response = await h.send('editor', '/leads/announcements', { ...announcement, action: 'send' }, { origin: '' })
  return response.status
}
