import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import type { Hono } from 'hono'
import { afterAll, beforeEach, describe, expect, it } from 'vitest'
import { localAnonKey } from '../../schema/local-defaults.ts'
import type { PageConfig } from '../../schema/page-config.ts'
import { createApp, type AppDeps } from '../../src/server/app.ts'
import type { LaunchSiteOptions } from '../../src/server/site/launch-site.ts'
import { openSqliteStore, type SqliteLeadStore } from '../../src/server/store/sqlite/sqlite-store.ts'
import type { OutboxJob } from '../../src/server/store/store.ts'
import { secondLaunchConfig } from '../fixtures/second-launch.ts'
import { finished, launchSite, readPageConfig, registration } from './support/fixtures.ts'

// Two launches served by one app: the repository's (bramblewood-crossing, https://bramblewood.example.com, e-mail
// vip@example.com) and the second launch's fixture (willowmere-commons, https://willowmere.example.org, e-mail
// hello@example.org, with a postalCode field the first one does not have).

const first = readPageConfig()
const second = JSON.parse(readFileSync(secondLaunchConfig, 'utf8')) as PageConfig
const firstOrigin = 'https://bramblewood.example.com'
const secondOrigin = 'https://willowmere.example.org'
const fnPath = '/functions/v1/send-contact-email'
const dir = mkdtempSync(path.join(tmpdir(), 'vip-launches-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const quiet = { info() {}, error() {} }

let store: SqliteLeadStore
let now: Date
beforeEach(() => {
  store = openSqliteStore(path.join(dir, `${crypto.randomUUID()}.sqlite`), { defaultLaunch: 'bramblewood-crossing' })
  now = new Date('2025-06-01T14:30:00.000Z')
  return () => store.close()
})

// The Node server's host routing, as launch-hosts.ts gives it: each launch on its own hosts.
const hosts: Record<string, string> = {
  'bramblewood.example.com': 'bramblewood-crossing',
  'bramblewood-crossing.localhost:3000': 'bramblewood-crossing',
  'willowmere.example.org': 'willowmere-commons',
  'willowmere-commons.localhost:3000': 'willowmere-commons',
}

function makeApp(overrides: Partial<AppDeps> = {}, options: LaunchSiteOptions = {}): Hono {
  return createApp({
    launches: [launchSite(first, options), launchSite(second, options)],
    defaultLaunch: 'bramblewood-crossing',
    store,
    clock: () => now,
    anonKeys: [localAnonKey],
    allowedOrigins: [],
    rateLimitPerMinute: 0,
    log: quiet,
    webhook: true,
    ...overrides,
  })
}

const nodeApp = (options: LaunchSiteOptions = {}) => makeApp({ launchOfHost: (host) => hosts[host] }, options)

function post(app: Hono, body: Record<string, unknown>, headers: Record<string, string>) {
  return app.request(`http://fn.test${fnPath}`, {
    method: 'POST',
    headers: {
      apikey: localAnonKey,
      'content-type': 'application/json',
      'user-agent': 'Mozilla/5.0 (test)',
      ...headers,
    },
    body: JSON.stringify(body),
  })
}

/** The messages queued with the leads, claimed from the real store as the outbox worker would. */
async function queued(): Promise<OutboxJob[]> {
  return store.claimDueMail(new Date(now.getTime() + 1000), 100, 60_000)
}

async function notificationsTo(): Promise<string[]> {
  return (await queued()).flatMap((job) => (job.kind === 'notification' ? [job.mail.to] : []))
}

async function webhookLaunches(): Promise<string[]> {
  return (await queued()).flatMap((job) =>
    job.kind === 'webhook' ? [(JSON.parse(job.webhook.body) as { data: { launch: string } }).data.launch] : [],
  )
}

describe('send-contact-email with two launches: which launch a registration is for', () => {
  it('files a same-origin registration into the launch its host serves, named or not', async () => {
    const app = nodeApp()
    const unnamed = await post(app, registration({ postalCode: 'N0N 0B0' }), {
      host: 'willowmere-commons.localhost:3000',
      origin: 'http://willowmere-commons.localhost:3000',
    })
    expect(unnamed.status).toBe(200)
    const named = await post(app, registration({ launch: 'bramblewood-crossing' }), {
      host: 'bramblewood.example.com',
      origin: 'https://bramblewood.example.com',
    })
    expect(named.status).toBe(200)
    expect(await webhookLaunches()).toEqual(['willowmere-commons', 'bramblewood-crossing'])
    expect((await store.listLeads(0, 10)).map((lead) => lead.launch)).toEqual([
      'willowmere-commons',
      'bramblewood-crossing',
    ])
  })

  it('refuses with 403 a page of one launch that names another launch, whatever its host or IP', async () => {
    const app = nodeApp()
    const res = await post(app, registration({ launch: 'bramblewood-crossing' }), {
      host: 'willowmere.example.org',
      origin: 'https://willowmere.example.org',
    })
    expect(res.status).toBe(403)
    expect(await res.json()).toEqual({
      error:
        'A page at https://willowmere.example.org cannot register for launch "bramblewood-crossing": it is not one of that launch\'s addresses.',
    })
    // Any other host (an IP address) is the default launch's on the Node server: it cannot file into the other one.
    const byIp = await post(app, registration({ launch: 'willowmere-commons' }), {
      host: '203.0.113.7:3000',
      origin: 'http://203.0.113.7:3000',
    })
    expect(byIp.status).toBe(403)
    expect(
      (await post(app, registration(), { host: '203.0.113.7:3000', origin: 'http://203.0.113.7:3000' })).status,
    ).toBe(200)
    expect(await store.listLeads(0, 10)).toHaveLength(1)
    expect(await webhookLaunches()).toEqual(['bramblewood-crossing'])
  })

  it('files a cross-origin registration (the hosted function) by the launch whose origins the page is on', async () => {
    const app = makeApp()
    expect(
      (
        await post(app, registration({ launch: 'willowmere-commons' }), {
          host: 'project.supabase.co',
          origin: secondOrigin,
        })
      ).status,
    ).toBe(200)
    expect((await post(app, registration(), { host: 'project.supabase.co', origin: secondOrigin })).status).toBe(200)
    expect((await post(app, registration(), { host: 'project.supabase.co', origin: firstOrigin })).status).toBe(200)
    const other = await post(app, registration({ launch: 'willowmere-commons' }), {
      host: 'project.supabase.co',
      origin: firstOrigin,
    })
    expect(other.status).toBe(403)
    expect(await webhookLaunches()).toEqual(['willowmere-commons', 'willowmere-commons', 'bramblewood-crossing'])
  })

  it('lets an origin in ALLOWED_ORIGINS (or *) register for any launch it names, and the default launch when it names none', async () => {
    const app = makeApp({ allowedOrigins: ['http://127.0.0.1:5173'] })
    const dev = { host: 'project.supabase.co', origin: 'http://127.0.0.1:5173' }
    expect((await post(app, registration({ launch: 'willowmere-commons' }), dev)).status).toBe(200)
    expect((await post(app, registration(), dev)).status).toBe(200)
    const any = makeApp({ allowedOrigins: ['*'] })
    expect(
      (
        await post(any, registration({ launch: 'willowmere-commons' }), {
          host: 'fn.test',
          origin: 'https://anywhere.example',
        })
      ).status,
    ).toBe(200)
    expect(await webhookLaunches()).toEqual(['willowmere-commons', 'bramblewood-crossing', 'willowmere-commons'])
  })

  it('answers a launch no config has with a plain 400, and stores nothing', async () => {
    const res = await post(makeApp({ allowedOrigins: ['*'] }), registration({ launch: 'maple-ridge' }), {
      host: 'fn.test',
      origin: secondOrigin,
    })
    expect(res.status).toBe(400)
    expect(await res.json()).toEqual({ error: 'There is no launch "maple-ridge" here.' })
    const odd = await post(makeApp(), registration({ launch: 42 }), { host: 'fn.test', origin: secondOrigin })
    expect(odd.status).toBe(400)
    expect(await store.listLeads(0, 10)).toEqual([])
  })

  it('files an Origin-less call (curl, a server) by its Host on the Node server, and into any launch it names on Supabase', async () => {
    expect(
      (await post(nodeApp(), registration({ launch: 'willowmere-commons' }), { host: 'bramblewood.example.com' }))
        .status,
    ).toBe(403)
    expect((await post(nodeApp(), registration(), { host: 'willowmere.example.org' })).status).toBe(200)
    expect(
      (await post(makeApp(), registration({ launch: 'willowmere-commons' }), { host: 'project.supabase.co' })).status,
    ).toBe(200)
    expect((await post(makeApp(), registration(), { host: 'project.supabase.co' })).status).toBe(200)
    expect(await webhookLaunches()).toEqual(['willowmere-commons', 'willowmere-commons', 'bramblewood-crossing'])
  })
})

describe("send-contact-email with two launches: everything after the choice is that launch's", () => {
  it("validates with the launch's own schema: a field only launch B has is dropped for A and stored for B", async () => {
    const app = makeApp()
    expect(
      (
        await post(app, registration({ postalCode: 'N0N 0B0', launch: 'bramblewood-crossing' }), {
          host: 'fn.test',
          origin: firstOrigin,
        })
      ).status,
    ).toBe(200)
    expect(
      (
        await post(app, registration({ postalCode: 'N0N 0B0', launch: 'willowmere-commons' }), {
          host: 'fn.test',
          origin: secondOrigin,
        })
      ).status,
    ).toBe(200)
    const [a, b] = await store.listLeads(0, 10)
    expect([a!.launch, b!.launch]).toEqual(['bramblewood-crossing', 'willowmere-commons'])
    expect(a!.fields).not.toHaveProperty('postalCode')
    expect(a!.fields).not.toHaveProperty('launch')
    expect(b!.fields).toMatchObject({ postalCode: 'N0N 0B0' })
    expect(b!.fields).not.toHaveProperty('launch')
  })

  it("answers with the launch's own messages: B's phone needs 10 characters, A's 7", async () => {
    const app = makeApp()
    const a = await post(app, registration({ phone: '5550100' }), { host: 'fn.test', origin: firstOrigin })
    expect(a.status).toBe(200)
    const b = await post(app, registration({ phone: '5550100' }), { host: 'fn.test', origin: secondOrigin })
    expect(b.status).toBe(400)
    const messages = second.form.messages as Record<string, Record<string, string>>
    expect(((await b.json()) as { errors: Record<string, string> }).errors.phone).toBe(messages.phone!.minLength)
  })

  it("stores each launch's consent note, and notifies each launch's own address", async () => {
    const app = makeApp()
    await post(app, registration({ consentText: undefined }), { host: 'fn.test', origin: firstOrigin })
    await post(app, registration({ consentText: undefined }), { host: 'fn.test', origin: secondOrigin })
    const [a, b] = await store.listLeads(0, 10)
    expect([a!.consentText, b!.consentText]).toEqual([first.form.consent, second.form.consent])
    expect(await notificationsTo()).toEqual(['vip@example.com', 'hello@example.org'])
  })

  it("notifies the launch's launch.notifyEmail when it has one", async () => {
    const withAddress = { ...second, launch: { ...second.launch, notifyEmail: 'willowmere-leads@example.org' } }
    const app = makeApp({ launches: [launchSite(first), launchSite(withAddress)] })
    await post(app, registration(), { host: 'fn.test', origin: secondOrigin })
    expect(await notificationsTo()).toEqual(['willowmere-leads@example.org'])
  })

  it("sends every launch's notification to NOTIFY_EMAIL when it is set", async () => {
    const app = makeApp({}, { notifyEmail: 'everything@example.com' })
    await post(app, registration(), { host: 'fn.test', origin: firstOrigin })
    await post(app, registration(), { host: 'fn.test', origin: secondOrigin })
    expect(await notificationsTo()).toEqual(['everything@example.com', 'everything@example.com'])
  })

  it('names the launch and its development in the webhook payload', async () => {
    await post(makeApp(), registration(), { host: 'fn.test', origin: secondOrigin })
    const [job] = (await queued()).filter((j) => j.kind === 'webhook')
    const payload = JSON.parse(job!.kind === 'webhook' ? job!.webhook.body : '{}') as { data: Record<string, unknown> }
    expect(payload.data).toMatchObject({ launch: 'willowmere-commons', site: 'Willowmere Commons' })
  })

  it("keeps the page address of a launch's own origin", async () => {
    await post(makeApp(), registration({ pageUrl: `${secondOrigin}/?utm_source=x` }), {
      host: 'fn.test',
      origin: secondOrigin,
    })
    expect((await store.listLeads(0, 10))[0]!.pageUrl).toBe(`${secondOrigin}/`)
  })
})

describe('send-contact-email with two launches: the form without JavaScript', () => {
  const formPageOf = (name: string) =>
    `<html><body><h1>${name}</h1><form action="${fnPath}" method="post"><input id="inline_phone" type="tel" aria-describedby="inline_phone__error" name="phone" value=""/><p id="inline_phone__error" class="err"></p><input type="hidden" name="launch" value="x"/></form></body></html>`

  function postForm(app: Hono, fields: Record<string, string>, origin: string) {
    return app.request(`http://fn.test${fnPath}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', host: 'fn.test', origin, referer: `${origin}/` },
      body: new URLSearchParams(fields).toString(),
    })
  }
  const filled = {
    name: 'Jane Doe',
    email: 'jane@example.com',
    phone: '555-555-0100',
    isRealtor: 'no',
    hp_leave_empty: '',
  }

  it("files a plain post by its hidden launch input and sends it to that launch's thanks page", async () => {
    const app = makeApp()
    const res = await postForm(app, { ...filled, postalCode: 'N0N 0B0', launch: 'willowmere-commons' }, secondOrigin)
    expect(res.status).toBe(303)
    expect(res.headers.get('location')).toBe(`${secondOrigin}/registered.html`)
    expect((await store.listLeads(0, 10))[0]!.fields).toMatchObject({ postalCode: 'N0N 0B0' })
    expect(await webhookLaunches()).toEqual(['willowmere-commons'])
    expect((await postForm(app, { ...filled, launch: 'willowmere-commons' }, firstOrigin)).status).toBe(403)
  })

  it("answers fields to correct with that launch's own form page", async () => {
    const app = makeApp({
      launches: [
        launchSite(first, { formPageHtml: formPageOf('Bramblewood') }),
        launchSite(second, { formPageHtml: formPageOf('Willowmere') }),
      ],
    })
    const res = await postForm(app, { ...filled, phone: '5550100', launch: 'willowmere-commons' }, secondOrigin)
    expect(res.status).toBe(400)
    const html = await res.text()
    expect(html).toContain('<h1>Willowmere</h1>')
    const messages = second.form.messages as Record<string, Record<string, string>>
    expect(html).toContain(messages.phone!.minLength)
  })
})

describe('send-contact-email with two launches: unsubscribe pages', () => {
  const links = { secret: 'unsubscribe-secret-0123456789', baseUrl: `http://fn.test${fnPath}` }
  const secondWithReply: PageConfig = {
    ...second,
    reply: {
      ...first.reply!,
      unsubscribe: {
        ...first.reply!.unsubscribe,
        heading: 'Leave the {site} list?',
        doneHeading: 'Off the Willowmere list',
      },
    },
  }

  it('speak in the words of the launch the lead registered for', async () => {
    const app = makeApp({ launches: [launchSite(first, { links }), launchSite(secondWithReply, { links })] })
    const a = registration({ email: 'a@example.com' })
    const b = registration({ email: 'b@example.com' })
    expect((await post(app, a, { host: 'fn.test', origin: firstOrigin })).status).toBe(200)
    expect((await post(app, b, { host: 'fn.test', origin: secondOrigin })).status).toBe(200)
    const replies = (await queued()).flatMap((job) => (job.kind === 'reply' ? [finished(job.mail)] : []))
    const linkOf = (to: string) =>
      /<(http[^>]+)>/.exec(replies.find((mail) => mail.to === to)!.headers!['List-Unsubscribe']!)![1]!
    const page = async (link: string, method = 'GET') => (await app.request(link, { method })).text()
    expect(await page(linkOf('b@example.com'))).toContain('Leave the Willowmere Commons list?')
    expect(await page(linkOf('a@example.com'))).toContain(
      first.reply!.unsubscribe.heading.replaceAll('{site}', 'Bramblewood Crossing'),
    )
    expect(await page(linkOf('b@example.com'), 'POST')).toContain('Off the Willowmere list')
  })
})
