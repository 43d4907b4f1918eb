import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import type { Hono } from 'hono'
import { afterAll, beforeEach, describe, expect, it } from 'vitest'
import { createRegistrationValidator } from '../../schema/registration-ajv.ts'
import { createApp, type AppDeps } from '../../src/server/app.ts'
import { localAnonKey } from '../../schema/local-defaults.ts'
import { openSqliteStore, type SqliteLeadStore } from '../../src/server/store/sqlite/sqlite-store.ts'
import type { LeadStore } from '../../src/server/store/store.ts'
import { defaultLaunch, finished, launchSite, readPageConfig, registration } from './support/fixtures.ts'

const page = readPageConfig()
const url = 'http://site.test/functions/v1/send-contact-email'
const dir = mkdtempSync(path.join(tmpdir(), 'vip-app-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

let store: SqliteLeadStore
let now: Date
let stored: number
const quiet = { info() {}, error() {} }

function makeApp(overrides: Partial<AppDeps> = {}): Hono {
  return createApp({
    launches: [launchSite(page, { notifyEmail: 'sales@example.com' })],
    defaultLaunch: page.launch.slug,
    store,
    clock: () => now,
    anonKeys: [localAnonKey],
    allowedOrigins: ['https://www.example.com'],
    clientAddress: (c) => c.req.header('x-test-peer') ?? '127.0.0.1',
    onLeadStored: () => {
      stored += 1
    },
    log: quiet,
    ...overrides,
  })
}

function post(app: Hono, body: unknown, headers: Record<string, string> = {}, target = url) {
  return app.request(target, {
    method: 'POST',
    headers: {
      apikey: localAnonKey,
      'content-type': 'application/json',
      host: 'site.test',
      'user-agent': 'Mozilla/5.0 (test)',
      ...headers,
    },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  })
}

beforeEach(() => {
  store = openSqliteStore(path.join(dir, `${crypto.randomUUID()}.sqlite`), { defaultLaunch })
  now = new Date('2025-06-01T14:30:00.000Z')
  stored = 0
  return () => store.close()
})

describe('send-contact-email: a valid registration', () => {
  it('answers 200 { ok: true } and stores every field with when, consent, page, referrer, UTM and user agent', async () => {
    const body = registration()
    const res = await post(makeApp(), body)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toMatch(/^application\/json/)
    expect(await res.json()).toEqual({ ok: true })
    const [lead, ...rest] = await store.listLeads(0, 10)
    expect(rest).toEqual([])
    expect(lead).toEqual({
      id: 1,
      submissionId: body.submissionId,
      launch: defaultLaunch,
      // The default launch is in its "current" phase (page.config.json phases): each lead records it.
      phase: 'vip',
      createdAt: '2025-06-01T14:30:00.000Z',
      // Her first registration for the launch: set by the store, never changed (realtors' co-operation).
      firstRegisteredAt: '2025-06-01T14:30:00.000Z',
      fields: { name: 'Jane Doe', email: 'jane@example.com', phone: '555-555-0100', isRealtor: 'no' },
      consentText: 'By submitting, you agree to be contacted with VIP updates.',
      consentSha256: '6ac42fa0ae3a14bbbe41fd46fb467154203be57a24ffff181293241be1837a8c',
      consentReported: null,
      // The updates box was not ticked: consent implied by the inquiry, for six months (CASL).
      consentKind: 'implied',
      impliedConsentUntil: '2025-12-01T14:30:00.000Z',
      pageUrl: 'https://www.example.com/',
      referrer: 'https://www.google.com/',
      utm: { utm_source: 'google', utm_campaign: 'launch' },
      userAgent: 'Mozilla/5.0 (test)',
      clickIds: { gclid: 'Cj0KCQ-test' },
      landingPage: '/',
      suspectedSpam: false,
    })
    expect(await store.countMail()).toEqual({ pending: 1, sent: 0 })
    expect(stored).toBe(1)
  })

  it('also answers on the path a Supabase function sees', async () => {
    const res = await post(makeApp(), registration(), {}, 'http://site.test/send-contact-email')
    expect(res.status).toBe(200)
    expect(await store.listLeads(0, 10)).toHaveLength(1)
  })

  it('trims values, drops unknown fields, and stores the config consent when none is sent', async () => {
    const body = registration({ name: '  Jane Doe  ', role: 'admin', isAdmin: true, consentText: undefined })
    expect((await post(makeApp(), body)).status).toBe(200)
    const [lead] = await store.listLeads(0, 10)
    expect(lead?.fields).toEqual({
      name: 'Jane Doe',
      email: 'jane@example.com',
      phone: '555-555-0100',
      isRealtor: 'no',
    })
    expect(lead?.consentText).toBe(page.form.consent)
    expect(lead?.consentReported).toBeNull()
  })

  it('makes a submission id when the browser sent none', async () => {
    const res = await post(
      makeApp({ newId: () => '00000000-0000-4000-8000-000000000001' }),
      registration({ submissionId: undefined }),
    )
    expect(res.status).toBe(200)
    expect((await store.listLeads(0, 10))[0]?.submissionId).toBe('00000000-0000-4000-8000-000000000001')
  })

  it('composes the notification with labels, the realtor answer and the time, escaping HTML', async () => {
    await post(
      makeApp(),
      registration({
        name: 'Bob <b>Builder</b> & "Co"',
        isRealtor: 'yes',
        brokerage: 'Builder Realty Inc., Brokerage',
        recoNumber: '5550123',
        forClient: 'no',
      }),
    )
    const [job] = await store.claimDueMail(new Date('2025-06-01T15:00:00Z'), 10, 1000)
    if (job?.kind !== 'notification') throw new Error('expected the notification first')
    const mail = finished(job.mail)
    // A realtor's registration goes to the launch's co-op desk (launch.realtorEmail), NOTIFY_EMAIL or not.
    expect(mail.to).toBe('coop@example.com')
    expect(mail.replyTo).toBe('jane@example.com')
    expect(mail.subject).toBe('New registration for Bramblewood Crossing: Bob <b>Builder</b> & "Co"')
    expect(mail.text).toContain('Full Name: Bob <b>Builder</b> & "Co"')
    expect(mail.text).toContain('Email: jane@example.com')
    expect(mail.text).toContain('Phone: 555-555-0100')
    expect(mail.text).toContain('Are You A Realtor?: Yes')
    expect(mail.text).toContain('2025-06-01T14:30:00.000Z')
    expect(mail.text).toContain('10:30:00 a.m. EDT')
    expect(mail.html).toContain('Bob &lt;b&gt;Builder&lt;/b&gt; &amp; &quot;Co&quot;')
    expect(mail.html).not.toContain('<b>Builder</b>')
    expect(mail.html).toContain('>Are You A Realtor?</th>')
  })
})

describe('send-contact-email: field rules (the shared validator)', () => {
  it('answers 400 with the config message for every broken field, and stores nothing', async () => {
    const res = await post(makeApp(), { submissionId: crypto.randomUUID() })
    expect(res.status).toBe(400)
    expect(await res.json()).toEqual({
      error: 'Some fields need attention.',
      errors: {
        name: 'Name is required',
        email: 'Enter a valid email',
        phone: 'Enter a valid phone',
        isRealtor: 'Please select an option',
      },
    })
    expect(await store.listLeads(0, 10)).toEqual([])
    expect(stored).toBe(0)
  })

  it.each([
    [{ name: 'x'.repeat(101) }, { name: 'Max 100 characters' }],
    [{ name: '   ' }, { name: 'Name is required' }],
    [{ email: 'not-an-email' }, { email: 'Enter a valid email' }],
    [{ email: `${'a'.repeat(250)}@example.com` }, { email: 'Max 255 characters' }],
    [{ phone: '123' }, { phone: 'Enter a valid phone' }],
    [{ phone: '1'.repeat(21) }, { phone: 'Max 20 characters' }],
    [{ isRealtor: 'maybe' }, { isRealtor: 'Please select an option' }],
  ])('refuses %j with %j', async (change, errors) => {
    const res = await post(makeApp(), registration(change))
    expect(res.status).toBe(400)
    expect((await res.json()).errors).toEqual(errors)
  })

  it('gives the same verdict as the browser validator on the same input', async () => {
    const browser = createRegistrationValidator(page.form)
    const inputs = [
      registration(),
      registration({ email: 'a@b' }),
      registration({ phone: ' 555 0100 ' }),
      registration({ name: 42 }),
      registration({ isRealtor: true }),
      registration({ email: 'jane@exa mple.com' }),
    ]
    for (const input of inputs) {
      const verdict = browser(input)
      const res = await post(makeApp({ rateLimitPerMinute: 0 }), input)
      expect(res.status, JSON.stringify(input)).toBe(verdict.ok ? 200 : 400)
      if (!verdict.ok) expect((await res.json()).errors).toEqual(verdict.errors)
    }
  })

  it('refuses line breaks in a field (no header injection), and stores nothing', async () => {
    const res = await post(makeApp(), registration({ name: 'Eve\r\nBcc: victim@example.com' }))
    expect(res.status).toBe(400)
    expect((await res.json()).errors).toEqual({ name: 'Remove the invisible or control characters' })
    expect(await store.listLeads(0, 10)).toEqual([])
  })

  // C0 and C1 controls, DEL, the line/paragraph separators and the bidirectional overrides and isolates.
  const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i)
  const invisible = [
    ...range(0x00, 0x1f),
    ...range(0x7f, 0x9f),
    0x2028,
    0x2029,
    ...range(0x202a, 0x202e),
    ...range(0x2066, 0x2069),
  ]
  it.each(invisible.map((code) => [`U+${code.toString(16).toUpperCase().padStart(4, '0')}`, code] as const))(
    'answers 400 to %s inside a one-line field, and stores nothing',
    async (_label, code) => {
      const ch = String.fromCodePoint(code)
      const res = await post(
        makeApp({ rateLimitPerMinute: 0 }),
        registration({ name: `Jane${ch}Doe`, email: `jane${ch}@example.com`, phone: `555${ch}5550100` }),
      )
      expect(res.status).toBe(400)
      const message = 'Remove the invisible or control characters'
      expect((await res.json()).errors).toEqual({ name: message, email: message, phone: message })
      expect(await store.listLeads(0, 10)).toEqual([])
    },
  )
})

describe('send-contact-email: idempotency and bots', () => {
  it('stores a retried submission once and answers 200 both times', async () => {
    const app = makeApp()
    const body = registration()
    const [a, b] = await Promise.all([post(app, body), post(app, body)])
    expect([a.status, b.status]).toEqual([200, 200])
    expect((await post(app, body)).status).toBe(200)
    expect(await store.listLeads(0, 10)).toHaveLength(1)
    expect(await store.countMail()).toEqual({ pending: 1, sent: 0 })
    expect(stored).toBe(1)
  })

  it('answers 409 when a submission id comes back with different data', async () => {
    const app = makeApp()
    const body = registration()
    await post(app, body)
    const res = await post(app, { ...body, name: 'Another Person' })
    expect(res.status).toBe(409)
    expect((await res.json()).error).toMatch(/already used/)
    expect((await store.listLeads(0, 10))[0]?.fields.name).toBe('Jane Doe')
  })

  it.each([['hp_leave_empty'], ['website']])(
    'answers 200 to a filled honeypot (%s), stores the lead flagged as suspected spam, notifies nothing',
    async (field) => {
      const res = await post(makeApp(), registration({ [field]: 'http://spam.example' }))
      expect(res.status).toBe(200)
      expect(await res.json()).toEqual({ ok: true })
      expect((await store.listLeads(0, 10)).map((l) => [l.fields.name, l.suspectedSpam])).toEqual([['Jane Doe', true]])
      expect(await store.countMail()).toEqual({ pending: 0, sent: 0 })
      expect(stored).toBe(0)
    },
  )

  it('keeps click ids and the landing path, and refuses what is not one', async () => {
    const app = makeApp({ rateLimitPerMinute: 0 })
    expect(
      (
        await post(
          app,
          registration({ clickIds: { fbclid: ' IwAR0x ', msclkid: '' }, landingPage: '/spring?email=a@b.c#x' }),
        )
      ).status,
    ).toBe(200)
    expect((await store.listLeads(0, 10)).map((l) => [l.clickIds, l.landingPage])).toEqual([
      [{ fbclid: 'IwAR0x' }, '/spring'],
    ])
    expect((await post(app, registration({ clickIds: { ttclid: 'x' } }))).status).toBe(400)
    expect((await post(app, registration({ clickIds: 'gclid=x' }))).status).toBe(400)
    expect((await post(app, registration({ landingPage: 'https://evil.example/' }))).status).toBe(400)
  })
})

describe('send-contact-email: what it refuses', () => {
  it('answers 401 without the anon key, or with a wrong one, and accepts it as a Bearer token', async () => {
    const app = makeApp({ rateLimitPerMinute: 0 })
    const noKey = await post(app, registration(), { apikey: '' })
    expect(noKey.status).toBe(401)
    expect(await noKey.json()).toEqual({
      error: 'Missing or wrong API key: send the site\'s anon key in the "apikey" header.',
    })
    expect((await post(app, registration(), { apikey: 'wrong' })).status).toBe(401)
    expect((await post(app, registration(), { apikey: '', authorization: `Bearer ${localAnonKey}` })).status).toBe(200)
    expect(await store.listLeads(0, 10)).toHaveLength(1)
  })

  it('answers 415 to anything but JSON or a form post', async () => {
    const res = await post(makeApp(), JSON.stringify(registration()), { 'content-type': 'text/plain' })
    expect(res.status).toBe(415)
    expect((await res.json()).error).toMatch(/JSON/)
    expect((await post(makeApp(), 'name=Jane', { 'content-type': 'multipart/form-data; boundary=x' })).status).toBe(415)
  })

  it('accepts application/json with a charset', async () => {
    expect((await post(makeApp(), registration(), { 'content-type': 'application/json; charset=utf-8' })).status).toBe(
      200,
    )
  })

  it('answers 413 beyond the body limit, declared or streamed', async () => {
    const app = makeApp({ bodyLimitBytes: 2048, rateLimitPerMinute: 0 })
    const big = JSON.stringify(registration({ name: 'x'.repeat(4000) }))
    const declared = await post(app, big)
    expect(declared.status).toBe(413)
    expect(await declared.json()).toEqual({ error: 'The request body is too large: at most 2048 bytes are accepted.' })
    const chunk = new TextEncoder().encode(big)
    const streamed = await app.request(url, {
      method: 'POST',
      headers: { apikey: localAnonKey, 'content-type': 'application/json' },
      body: new ReadableStream({
        start(controller) {
          controller.enqueue(chunk)
          controller.close()
        },
      }),
      duplex: 'half',
    } as RequestInit)
    expect(streamed.status).toBe(413)
    expect(await store.listLeads(0, 10)).toEqual([])
  })

  it.each([
    ['not JSON', '{"name": "Jane"', 'The request body is not valid JSON.'],
    ['empty', '', 'The request body is not valid JSON.'],
    ['an array', '[1,2]', 'The request body must be a JSON object of form fields.'],
    ['a string', '"hello"', 'The request body must be a JSON object of form fields.'],
    [
      'a __proto__ key',
      '{"name":"Jane","__proto__":{"admin":true}}',
      'The request body contains a key that is not allowed: "__proto__".',
    ],
    [
      'a nested constructor key',
      '{"utm":{"constructor":{"prototype":{}}}}',
      'The request body contains a key that is not allowed: "constructor".',
    ],
    ['a bad submission id', JSON.stringify(registration({ submissionId: 'abc' })), 'submissionId must be a UUID.'],
    ['a page URL that is not a string', JSON.stringify(registration({ pageUrl: 7 })), 'pageUrl must be a string.'],
    [
      'a utm that is not utm_*',
      JSON.stringify(registration({ utm: { gclid: 'x' } })),
      'utm may only hold utm_* parameters; "gclid" is not one.',
    ],
    [
      'a utm value with a line break',
      JSON.stringify(registration({ utm: { utm_source: 'a\nb' } })),
      'utm.utm_source contains line breaks or control characters.',
    ],
    ['a referrer that is not a string', JSON.stringify(registration({ referrer: 7 })), 'referrer must be a string.'],
  ])('answers 400 to a body that is %s', async (_, body, message) => {
    const res = await post(makeApp(), body)
    expect(res.status).toBe(400)
    expect(await res.json()).toEqual({ error: message })
    expect(await store.listLeads(0, 10)).toEqual([])
  })

  it('answers 405 to other methods', async () => {
    const res = await makeApp().request(url, { method: 'GET' })
    expect(res.status).toBe(405)
    expect(res.headers.get('allow')).toBe('POST, OPTIONS')
    expect((await res.json()).error).toMatch(/POST/)
  })

  it('answers 500 with a plain message, no stack, when the lead cannot be stored', async () => {
    const broken: LeadStore = { ...store, saveLead: () => Promise.reject(new Error('disk I/O error at /secret/path')) }
    const res = await post(makeApp({ store: broken }), registration())
    expect(res.status).toBe(500)
    const text = await res.text()
    expect(JSON.parse(text)).toEqual({ error: 'Your registration could not be saved. Please try again in a moment.' })
    expect(text).not.toMatch(/secret|disk|at /)
    expect(stored).toBe(0)
  })
})

describe('send-contact-email: CORS', () => {
  it('answers the preflight of a configured origin with what supabase-js needs', async () => {
    const res = await makeApp().request(url, {
      method: 'OPTIONS',
      headers: {
        origin: 'https://www.example.com',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, x-client-info, apikey, content-type',
      },
    })
    expect(res.status).toBe(204)
    expect(res.headers.get('access-control-allow-origin')).toBe('https://www.example.com')
    expect(res.headers.get('access-control-allow-methods')).toBe('POST, OPTIONS')
    for (const h of ['authorization', 'x-client-info', 'apikey', 'content-type'])
      expect(res.headers.get('access-control-allow-headers')).toContain(h)
    expect(res.headers.get('vary')).toContain('Origin')
  })

  it('refuses the preflight and the POST of another origin', async () => {
    const app = makeApp()
    const preflight = await app.request(url, { method: 'OPTIONS', headers: { origin: 'https://evil.example' } })
    expect(preflight.status).toBe(403)
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull()
    const res = await post(app, registration(), { origin: 'https://evil.example' })
    expect(res.status).toBe(403)
    expect((await res.json()).error).toMatch(/ALLOWED_ORIGINS/)
    expect(await store.listLeads(0, 10)).toEqual([])
  })

  it('puts Allow-Origin on error answers too, so the browser can read them', async () => {
    const res = await post(makeApp(), { submissionId: crypto.randomUUID() }, { origin: 'https://www.example.com' })
    expect(res.status).toBe(400)
    expect(res.headers.get('access-control-allow-origin')).toBe('https://www.example.com')
    const unauthorised = await post(makeApp(), registration(), { origin: 'https://www.example.com', apikey: 'nope' })
    expect(unauthorised.headers.get('access-control-allow-origin')).toBe('https://www.example.com')
  })

  it('always allows the same origin, and any origin when configured with *', async () => {
    expect((await post(makeApp({ allowedOrigins: [] }), registration(), { origin: 'http://site.test' })).status).toBe(
      200,
    )
    const any = await post(makeApp({ allowedOrigins: ['*'] }), registration(), { origin: 'https://anywhere.example' })
    expect(any.status).toBe(200)
    expect(any.headers.get('access-control-allow-origin')).toBe('*')
  })
})

describe('send-contact-email: rate limit', () => {
  it('answers 429 with Retry-After past the limit for one address, and lets it through a minute later', async () => {
    const app = makeApp({ rateLimitPerMinute: 5 })
    for (let i = 0; i < 5; i++) expect((await post(app, registration())).status).toBe(200)
    const limited = await post(app, registration())
    expect(limited.status).toBe(429)
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0)
    expect((await limited.json()).error).toMatch(/Too many/)
    expect((await post(app, registration(), { 'x-test-peer': '10.0.0.2' })).status).toBe(200)
    now = new Date(now.getTime() + 60_000)
    expect((await post(app, registration())).status).toBe(200)
    expect(await store.listLeads(0, 100)).toHaveLength(7)
  })

  it('never reads X-Forwarded-For itself: the entry says who the visitor is', async () => {
    const app = makeApp({ rateLimitPerMinute: 1, trustProxy: 1 })
    expect((await post(app, registration(), { 'x-forwarded-for': '1.1.1.1' })).status).toBe(200)
    expect((await post(app, registration(), { 'x-forwarded-for': '2.2.2.2' })).status).toBe(429)
  })

  it('counts an IPv6 visitor by its /64, whichever address in it they use', async () => {
    const app = makeApp({ rateLimitPerMinute: 1 })
    expect((await post(app, registration(), { 'x-test-peer': '2001:db8:1:2::1' })).status).toBe(200)
    expect((await post(app, registration(), { 'x-test-peer': '2001:db8:1:2:ffff:1:2:3' })).status).toBe(429)
    expect((await post(app, registration(), { 'x-test-peer': '2001:db8:1:3::1' })).status).toBe(200)
  })

  it('is off at 0', async () => {
    const app = makeApp({ rateLimitPerMinute: 0 })
    for (let i = 0; i < 12; i++) expect((await post(app, registration())).status).toBe(200)
  })
})

describe('send-contact-email: scheduled delivery endpoint', () => {
  it('runs delivery only with the outbox secret', async () => {
    let runs = 0
    const app = makeApp({
      outboxTrigger: { secret: 's3cret-s3cret-s3cret', run: async () => ({ sent: ++runs, failed: 0 }) },
    })
    const target = `${url}/deliver-pending`
    expect((await app.request(target, { method: 'POST' })).status).toBe(401)
    expect(
      (await app.request(target, { method: 'POST', headers: { authorization: `Bearer ${localAnonKey}` } })).status,
    ).toBe(401)
    const res = await app.request(target, { method: 'POST', headers: { authorization: 'Bearer s3cret-s3cret-s3cret' } })
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ ok: true, sent: 1, failed: 0 })
    expect(
      (await makeApp().request(target, { method: 'POST', headers: { authorization: 'Bearer s3cret-s3cret-s3cret' } }))
        .status,
    ).toBe(401)
  })

  it('answers a malformed Authorization with the same 401 JSON, and other methods with 405', async () => {
    const app = makeApp({
      outboxTrigger: { secret: 's3cret-s3cret-s3cret', run: async () => ({ sent: 0, failed: 0 }) },
    })
    const target = `${url}/deliver-pending`
    for (const authorization of ['Basic czNjcmV0', 'Bearer not a token!']) {
      const res = await app.request(target, { method: 'POST', headers: { authorization } })
      expect(res.status).toBe(401)
      expect(await res.json()).toEqual({ error: 'Missing or wrong outbox secret.' })
    }
    const get = await app.request(target, { method: 'GET' })
    expect(get.status).toBe(405)
    expect(get.headers.get('allow')).toBe('POST')
  })
})

describe('send-contact-email: a plain form post (no JavaScript)', () => {
  const site = 'http://site.test'
  // The markup src/form/RegistrationForm.tsx prerenders, trimmed to what the answer fills in.
  const formPage = [
    '<html><head><script type="application/ld+json">{"@type":"x"}</script></head><body><main>',
    '<form novalidate="" action="/functions/v1/send-contact-email" method="post">',
    '<label for="inline_name" class="lbl">Full Name</label><input id="inline_name" type="text" aria-describedby="inline_name__error" class="in" name="name" value=""/><p id="inline_name__error" class="err"></p>',
    '<input id="inline_email" type="email" aria-describedby="inline_email__error" class="in" name="email" value=""/><p id="inline_email__error" class="err"></p>',
    '<input id="inline_phone" type="tel" aria-describedby="inline_phone__error" class="in" name="phone" value=""/><p id="inline_phone__error" class="err"></p>',
    '<input type="radio" id="inline_isRealtor-0" aria-describedby="inline_isRealtor__error" name="isRealtor" value="yes"/>',
    '<input type="radio" id="inline_isRealtor-1" aria-describedby="inline_isRealtor__error" name="isRealtor" value="no"/><p id="inline_isRealtor__error" class="err"></p>',
    '<input id="inline_hp" type="text" tabindex="-1" name="hp_leave_empty" value=""/>',
    '<button type="submit" class="btn">Register Now</button></form></main>',
    '<script type="module">addEventListener("load",()=>import("/assets/index-abc.js"),{once:true});</script></body></html>',
  ].join('')

  function postForm(app: Hono, fields: Record<string, string>, headers: Record<string, string> = {}) {
    return app.request(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        host: 'site.test',
        origin: site,
        referer: `${site}/?utm_source=fb&gclid=G-1&email=x@y.z`,
        ...headers,
      },
      body: new URLSearchParams(fields).toString(),
    })
  }
  const filled = {
    name: '  Jane Doe ',
    email: 'jane@example.com',
    phone: '555-555-0100',
    isRealtor: 'no',
    hp_leave_empty: '',
  }

  it('stores it without the anon key, with attribution from the Referer, and redirects (303) to the thank-you page', async () => {
    const res = await postForm(makeApp(), filled)
    expect(res.status).toBe(303)
    expect(res.headers.get('location')).toBe(`${site}/registered.html`)
    const [lead, ...rest] = await store.listLeads(0, 10)
    expect(rest).toEqual([])
    expect(lead).toMatchObject({
      fields: { name: 'Jane Doe', email: 'jane@example.com', phone: '555-555-0100', isRealtor: 'no' },
      consentText: page.form.consent,
      utm: { utm_source: 'fb' },
      clickIds: { gclid: 'G-1' },
      landingPage: '/',
      suspectedSpam: false,
    })
    expect(await store.countMail()).toEqual({ pending: 1, sent: 0 })
  })

  it('stores the same registration posted twice once, and a corrected one as a new submission', async () => {
    const app = makeApp({ rateLimitPerMinute: 0 })
    expect((await postForm(app, filled)).status).toBe(303)
    expect((await postForm(app, filled)).status).toBe(303)
    expect(await store.listLeads(0, 10)).toHaveLength(1)
    expect((await postForm(app, { ...filled, phone: '555-555-0199' })).status).toBe(303)
    expect((await store.listLeads(0, 10)).map((l) => l.fields.phone)).toEqual(['555-555-0100', '555-555-0199'])
  })

  it('answers fields to correct with the form page: values kept, messages under the fields, first one focused, no scripts', async () => {
    const res = await postForm(
      makeApp({ launches: [launchSite(page, { notifyEmail: 'sales@example.com', formPageHtml: formPage })] }),
      { name: ' ', email: 'jane@', phone: '12<b>', hp_leave_empty: '' },
    )
    expect(res.status).toBe(400)
    expect(res.headers.get('content-type')).toMatch(/^text\/html/)
    const html = await res.text()
    expect(html).toContain('<p id="inline_name__error" class="err">Name is required</p>')
    expect(html).toContain('<p id="inline_email__error" class="err">Enter a valid email</p>')
    expect(html).toContain('<p id="inline_phone__error" class="err">Enter a valid phone</p>')
    expect(html).toContain('<p id="inline_isRealtor__error" class="err">Please select an option</p>')
    expect(html).toMatch(/<input id="inline_email"[^>]* value="jane@"[^>]*>/)
    expect(html).toMatch(/<input id="inline_phone"[^>]* value="12&lt;b&gt;"/)
    expect(html).toMatch(/<input id="inline_name"[^>]*aria-invalid="true"[^>]*autofocus=""/)
    expect(html.match(/autofocus/g)).toHaveLength(1)
    expect(html).not.toContain('index-abc.js')
    expect(html).toContain('application/ld+json')
    expect(await store.listLeads(0, 10)).toEqual([])
  })

  it('keeps the chosen radio when another field needs attention', async () => {
    const html = await (
      await postForm(
        makeApp({ launches: [launchSite(page, { notifyEmail: 'sales@example.com', formPageHtml: formPage })] }),
        { ...filled, email: 'nope' },
      )
    ).text()
    expect(html).toMatch(/<input type="radio" id="inline_isRealtor-1"[^>]* checked=""/)
    expect(html).not.toMatch(/<input type="radio" id="inline_isRealtor-0"[^>]* checked/)
    expect(html).toMatch(/<input id="inline_name"[^>]* value=" {2}Jane Doe "/)
  })

  it("puts back a value holding $` or $' as text: no replacement pattern injects an attribute (issue 21, item 4)", async () => {
    const app = makeApp({ launches: [launchSite(page, { notifyEmail: 'sales@example.com', formPageHtml: formPage })] })
    const html = await (
      await postForm(app, { ...filled, name: "x $` onfocus=alert(1) autofocus $'", email: 'nope' })
    ).text()
    const input = /<input id="inline_name"[^>]*>/.exec(html)?.[0] ?? ''
    expect(input).toContain('value="x $` onfocus=alert(1) autofocus $&#39;"')
    expect(input.replace(/\svalue="[^"]*"/, '')).not.toMatch(/onfocus|autofocus/)
    expect(html.match(/<input id="inline_name"/g)).toHaveLength(1)
  })

  it('redirects fields to correct to the check-details page where it has no form page (Supabase)', async () => {
    const res = await postForm(makeApp(), { ...filled, email: 'nope' })
    expect(res.status).toBe(303)
    expect(res.headers.get('location')).toBe(`${site}/check-details.html`)
    expect(res.headers.get('location')).not.toContain('nope')
  })

  it('stores a filled honeypot flagged as suspected spam, notifies nothing, and thanks as usual', async () => {
    const res = await postForm(makeApp(), { ...filled, hp_leave_empty: 'https://spam.example' })
    expect(res.status).toBe(303)
    expect((await store.listLeads(0, 10)).map((l) => l.suspectedSpam)).toEqual([true])
    expect(await store.countMail()).toEqual({ pending: 0, sent: 0 })
    expect(stored).toBe(0)
  })

  it('refuses a form on another site; without Origin, accepts a same-site Referer and refuses none', async () => {
    const app = makeApp({ rateLimitPerMinute: 0 })
    const foreign = await postForm(app, filled, { origin: 'https://evil.example', referer: 'https://evil.example/' })
    expect(foreign.status).toBe(403)
    expect(foreign.headers.get('content-type')).toMatch(/^text\/html/)
    expect(await foreign.text()).not.toContain('href=')
    expect((await postForm(app, filled, { origin: 'null' })).status).toBe(403)
    expect(await store.listLeads(0, 10)).toEqual([])
    const noOriginNoReferer = await app.request(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', host: 'site.test' },
      body: new URLSearchParams(filled).toString(),
    })
    expect(noOriginNoReferer.status).toBe(403)
    const referer = await app.request(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', host: 'site.test', referer: `${site}/` },
      body: new URLSearchParams(filled).toString(),
    })
    expect(referer.status).toBe(303)
    expect(await store.listLeads(0, 10)).toHaveLength(1)
  })

  it('accepts a form from an allowed origin (the site, when the function is hosted elsewhere) and sends it back there', async () => {
    const res = await postForm(makeApp(), filled, {
      origin: 'https://www.example.com',
      referer: 'https://www.example.com/',
    })
    expect(res.status).toBe(303)
    expect(res.headers.get('location')).toBe('https://www.example.com/registered.html')
  })

  it('answers the rate limit with a page that links back', async () => {
    const app = makeApp({ rateLimitPerMinute: 1 })
    expect((await postForm(app, filled)).status).toBe(303)
    const res = await postForm(app, { ...filled, phone: '555-555-0111' })
    expect(res.status).toBe(429)
    expect(res.headers.get('content-type')).toMatch(/^text\/html/)
    expect(await res.text()).toContain(`href="${site}/"`)
  })
})
