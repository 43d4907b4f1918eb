import type { ChildProcess } from 'node:child_process'
import { mkdtempSync, readFileSync } from 'node:fs'
import { createServer, type IncomingMessage, type Server } from 'node:http'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { PageConfig } from '../../schema/page-config.ts'
import { verifyWebhookSignature } from '../../src/server/delivery/webhook.ts'
import { secondLaunchConfig } from '../fixtures/second-launch.ts'
import {
  checkFunction,
  copyFunction,
  functionUrlOf,
  runDenoFunction,
  stopDeno,
  type FunctionCopy,
} from './support/deno-function.ts'
import { readPageConfig, registration } from './support/fixtures.ts'
import { plannedPostgresKind, startTestPostgres, type TestPostgres } from './support/postgres.ts'

// The Supabase Edge Function entry under real Deno, against real PostgreSQL with the real migrations, sending
// mail to a stand-in for Resend's HTTP API on 127.0.0.1. It serves two launches from one bundle, as `npm run build`
// writes it: the repository's (the default) and the second launch's fixture, which has a postalCode field.

const outboxSecret = 'test-outbox-secret-0123456789'
const publishableKey = 'sb_publishable_test_key'
const site = 'https://www.example.com'
const secondOrigin = 'https://willowmere.example.org'
const webhookSecret = 'test-webhook-secret-0123456789'
const first = readPageConfig()
const second = JSON.parse(readFileSync(secondLaunchConfig, 'utf8')) as PageConfig
const bundle = {
  launches: [
    { slug: first.launch.slug, config: first },
    { slug: second.launch.slug, config: second },
  ],
  defaultLaunch: first.launch.slug,
}

type ResendCall = { headers: IncomingMessage['headers']; body: Record<string, unknown> }
type WebhookCall = { headers: IncomingMessage['headers']; body: string; signed: boolean }

let copy: FunctionCopy
beforeAll(() => {
  copy = copyFunction(bundle)
})
afterAll(() => copy?.remove())

function runDeno(env: Record<string, string>): ChildProcess {
  return runDenoFunction(copy.root, env)
}

// Each test may wait up to 30 s for delivery (until) and then check more: its own limit is longer, so a wait that ends
// says what Deno printed rather than vitest's bare time-out.
describe.skipIf(plannedPostgresKind() === 'pglite')(
  'Supabase Edge Function under Deno (PostgreSQL server)',
  { timeout: 90_000 },
  () => {
    let pg: TestPostgres
    let resend: Server
    let resendUrl = ''
    const resendCalls: ResendCall[] = []
    // Idempotency keys whose next call fails with 500, as if Resend were down for that message.
    const failOnce = new Set<string>()
    let receiver: Server
    const webhookCalls: WebhookCall[] = []
    let deno: ChildProcess
    let denoEnv: Record<string, string> = {}
    let output = () => ''
    let url = ''

    beforeAll(async () => {
      pg = await startTestPostgres()
      resend = createServer((req, res) => {
        let data = ''
        req.on('data', (c: Buffer) => (data += c.toString()))
        req.on('end', () => {
          resendCalls.push({ headers: req.headers, body: JSON.parse(data || '{}') as Record<string, unknown> })
          const key = String(req.headers['idempotency-key'])
          const status = failOnce.delete(key) ? 500 : 200
          res
            .writeHead(status, { 'content-type': 'application/json' })
            .end(status === 200 ? '{"id":"e_1"}' : '{"message":"down"}')
        })
      })
      await new Promise<void>((resolve) => resend.listen(0, '127.0.0.1', resolve))
      const address = resend.address()
      resendUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`
      // The CRM: checks each call's signature as docs/webhook.md tells a receiver to, and answers 401 when it is wrong.
      receiver = createServer((req, res) => {
        let data = ''
        req.on('data', (c: Buffer) => (data += c.toString()))
        req.on('end', () => {
          void verifyWebhookSignature(webhookSecret, String(req.headers['webhook-signature']), data).then((signed) => {
            webhookCalls.push({ headers: req.headers, body: data, signed })
            res.writeHead(signed ? 204 : 401).end()
          })
        })
      })
      await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve))
      const receiverAddress = receiver.address()
      const webhookUrl = `http://127.0.0.1:${typeof receiverAddress === 'object' && receiverAddress ? receiverAddress.port : 0}/hooks/leads`

      denoEnv = {
        SUPABASE_DB_URL: pg.url!,
        SUPABASE_ANON_KEY: 'legacy-anon-jwt',
        SUPABASE_PUBLISHABLE_KEYS: JSON.stringify({ default: publishableKey }),
        RESEND_API_KEY: 're_test_key',
        RESEND_API_URL: resendUrl,
        MAIL_FROM: 'Bramblewood Crossing <no-reply@example.com>',
        NOTIFY_EMAIL: 'sales@example.com',
        OUTBOX_SECRET: outboxSecret,
        ALLOWED_ORIGINS: site,
        // Every test here posts from one address: room for all of them within the minute.
        RATE_LIMIT_PER_MINUTE: '30',
        MAIL_RETRY_MIN_SECONDS: '1',
        MAIL_RETRY_MAX_SECONDS: '1',
        WEBHOOK_URL: webhookUrl,
        WEBHOOK_SECRET: webhookSecret,
        UNSUBSCRIBE_SECRET: 'test-unsubscribe-secret-0123456789',
        SUPABASE_URL: 'https://project-ref.supabase.co',
        PORT: '0',
        HOST: '127.0.0.1',
      }
      deno = runDeno(denoEnv)
      // The first run fetches npm packages into Deno's cache; later runs start in about a second.
      ;({ url, output } = await functionUrlOf(deno))
    }, 120_000)

    afterAll(async () => {
      await stopDeno(deno)
      await new Promise<void>((resolve) => (resend ? resend.close(() => resolve()) : resolve()))
      await new Promise<void>((resolve) => (receiver ? receiver.close(() => resolve()) : resolve()))
      await pg?.stop()
    })

    const post = (body: unknown, headers: Record<string, string> = {}, target = '/functions/v1/send-contact-email') =>
      fetch(`${url}${target}`, {
        method: 'POST',
        headers: {
          apikey: publishableKey,
          authorization: `Bearer ${publishableKey}`,
          'content-type': 'application/json',
          origin: site,
          ...headers,
        },
        body: JSON.stringify(body),
      })

    it("trusts CF-Connecting-IP only on Supabase's hosted platform (SB_REGION), none elsewhere, and logs which applies (issue 21, item 11)", async () => {
      for (const hosted of [false, true]) {
        const fn = runDeno({ ...denoEnv, ...(hosted ? { SB_REGION: 'ca-central-1' } : {}), RATE_LIMIT_PER_MINUTE: '1' })
        try {
          const started = await functionUrlOf(fn)
          const statuses: number[] = []
          // Two callers naming two different addresses in the header, from one connection address.
          for (const claimed of ['203.0.113.1', '203.0.113.2']) {
            const res = await fetch(`${started.url}/functions/v1/send-contact-email`, {
              method: 'POST',
              headers: {
                apikey: publishableKey,
                'content-type': 'application/json',
                origin: site,
                'cf-connecting-ip': claimed,
              },
              body: JSON.stringify(registration()),
            })
            statuses.push(res.status)
          }
          expect(statuses).toEqual(hosted ? [200, 200] : [200, 429])
          expect(started.output()).toContain(
            hosted
              ? "the visitor's address is the cf-connecting-ip header (Supabase's hosted platform: SB_REGION=ca-central-1)"
              : "the visitor's address is the connection's address (not Supabase's hosted platform",
          )
        } finally {
          await stopDeno(fn)
        }
      }
    }, 180_000)

    async function outboxOf(submissionId: unknown, kind = 'notification') {
      const { rows } = await pg.db.query(
        `SELECT o.status, o.attempts FROM public.outbox o JOIN public.leads l ON l.id = o.lead_id WHERE l.submission_id = $1 AND o.kind = $2`,
        [submissionId, kind],
      )
      return rows[0] as { status: string; attempts: number } | undefined
    }

    // Delivery runs after the answer, beside the test's own load: on a loaded 2-core machine it has taken over 10 s.
    async function until(check: () => Promise<boolean>, timeoutMs = 30_000) {
      const end = Date.now() + timeoutMs
      while (!(await check())) {
        if (Date.now() > end) throw new Error(`timed out waiting; deno said:\n${output()}`)
        await new Promise((r) => setTimeout(r, 100))
      }
    }

    it('answers the preflight supabase-js makes from the site', async () => {
      const res = await fetch(`${url}/functions/v1/send-contact-email`, {
        method: 'OPTIONS',
        headers: {
          origin: site,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'authorization, x-client-info, apikey, content-type',
        },
      })
      expect(res.status).toBe(204)
      expect(res.headers.get('access-control-allow-origin')).toBe(site)
      expect(res.headers.get('access-control-allow-headers')).toContain('x-client-info')
    })

    it('stores a registration in Postgres and sends it through Resend with an idempotency key', async () => {
      const body = registration()
      const res = await post(body, {}, '/send-contact-email')
      expect(res.status).toBe(200)
      expect(res.headers.get('access-control-allow-origin')).toBe(site)
      expect(await res.json()).toEqual({ ok: true })
      const { rows } = await pg.db.query(
        'SELECT fields, consent_text, consent_sha256, consent_reported, page_url, utm, user_agent FROM public.leads WHERE submission_id = $1',
        [body.submissionId],
      )
      expect(rows).toEqual([
        {
          fields: { name: 'Jane Doe', email: 'jane@example.com', phone: '555-555-0100', isRealtor: 'no' },
          consent_text: body.consentText,
          consent_sha256: '6ac42fa0ae3a14bbbe41fd46fb467154203be57a24ffff181293241be1837a8c',
          consent_reported: null,
          page_url: 'https://www.example.com/',
          utm: body.utm,
          user_agent: expect.any(String),
        },
      ])
      await until(async () => (await outboxOf(body.submissionId))?.status === 'sent')
      const call = resendCalls.find((c) => c.headers['idempotency-key'] === `${String(body.submissionId)}.notification`)
      expect(call?.headers.authorization).toBe('Bearer re_test_key')
      expect(call?.body.to).toEqual(['sales@example.com'])
      expect(String(call?.body.text)).toContain('Are You A Realtor?: No')
    })

    it('checks fields with the config schema and messages', async () => {
      const res = await post({ name: ' ', email: 'nope', phone: '1', isRealtor: 'maybe' })
      expect(res.status).toBe(400)
      expect((await res.json()).errors).toEqual({
        name: 'Name is required',
        email: 'Enter a valid email',
        phone: 'Enter a valid phone',
        isRealtor: 'Please select an option',
      })
    })

    it("serves every launch of the bundle: each registration checked, stored and announced as its launch's", async () => {
      // From an ALLOWED_ORIGINS page naming none: the default launch, which has no postalCode (dropped as unknown).
      const a = registration({ postalCode: 'N0N 0B0', email: 'a.deno@example.com' })
      // Named from that page, and unnamed from the second launch's own address: the second launch, which keeps it.
      const b = registration({ launch: 'willowmere-commons', postalCode: 'N0N 0B0', email: 'b.deno@example.com' })
      const c = registration({ email: 'c.deno@example.com', consentText: undefined })
      expect((await post(a)).status).toBe(200)
      expect((await post(b)).status).toBe(200)
      expect((await post(c, { origin: secondOrigin })).status).toBe(200)
      const fieldsOf = async (id: unknown) =>
        (await pg.db.query('SELECT fields, consent_text FROM public.leads WHERE submission_id = $1', [id])).rows[0] as {
          fields: Record<string, unknown>
          consent_text: string
        }
      expect((await fieldsOf(a.submissionId)).fields).not.toHaveProperty('postalCode')
      expect((await fieldsOf(b.submissionId)).fields).toMatchObject({ postalCode: 'N0N 0B0' })
      expect((await fieldsOf(c.submissionId)).consent_text).toBe(second.form.consent)
      const { rows: launches } = await pg.db.query(
        'SELECT launch FROM public.leads WHERE submission_id = ANY($1::uuid[]) ORDER BY id',
        [[a, b, c].map((r) => r.submissionId)],
      )
      expect(launches).toEqual([
        { launch: 'bramblewood-crossing' },
        { launch: 'willowmere-commons' },
        { launch: 'willowmere-commons' },
      ])

      const ids = [a, b, c].map((r) => String(r.submissionId))
      for (const id of ids)
        await until(
          async () => (await outboxOf(id, 'webhook'))?.status === 'sent' && (await outboxOf(id))?.status === 'sent',
        )
      const launchOf = (id: string) =>
        (
          JSON.parse(webhookCalls.find((call) => call.headers['webhook-id'] === id)!.body) as {
            data: { launch: string }
          }
        ).data.launch
      expect(ids.map(launchOf)).toEqual(['bramblewood-crossing', 'willowmere-commons', 'willowmere-commons'])
      // NOTIFY_EMAIL is set: every launch's notification goes there, each about its own development.
      const notice = (id: string) =>
        resendCalls.find((call) => call.headers['idempotency-key'] === `${id}.notification`)!.body
      expect(ids.map((id) => notice(id).to)).toEqual([
        ['sales@example.com'],
        ['sales@example.com'],
        ['sales@example.com'],
      ])
      expect(String(notice(ids[1]!).subject)).toContain('Willowmere Commons')
      expect(String(notice(ids[0]!).subject)).toContain('Bramblewood Crossing')
    })

    it('answers a launch it does not serve with 400, and a page of one launch naming another with 403', async () => {
      const unknown = await post(registration({ launch: 'maple-ridge' }))
      expect(unknown.status).toBe(400)
      expect(await unknown.json()).toEqual({ error: 'There is no launch "maple-ridge" here.' })
      const other = await post(registration({ launch: 'bramblewood-crossing' }), { origin: secondOrigin })
      expect(other.status).toBe(403)
    })

    it('takes a plain form post (no JavaScript) from the site: stored, notified, 303 to the thank-you page; fields to correct 303 to check-details', async () => {
      const form = (fields: Record<string, string>, headers: Record<string, string> = {}) =>
        fetch(`${url}/send-contact-email`, {
          method: 'POST',
          redirect: 'manual',
          headers: {
            'content-type': 'application/x-www-form-urlencoded',
            origin: site,
            referer: `${site}/`,
            ...headers,
          },
          body: new URLSearchParams(fields).toString(),
        })
      const fields = {
        name: 'Form Poster',
        email: 'form@example.com',
        phone: '555-555-0177',
        isRealtor: 'no',
        hp_leave_empty: '',
      }
      const res = await form(fields)
      expect(res.status).toBe(303)
      expect(res.headers.get('location')).toBe(`${site}/registered.html`)
      const { rows } = await pg.db.query(
        `SELECT submission_id, fields, suspected_spam FROM public.leads WHERE fields->>'name' = 'Form Poster'`,
      )
      expect(rows).toEqual([
        {
          submission_id: expect.any(String),
          fields: { name: 'Form Poster', email: 'form@example.com', phone: '555-555-0177', isRealtor: 'no' },
          suspected_spam: false,
        },
      ])
      await until(async () => (await outboxOf((rows[0] as { submission_id: string }).submission_id))?.status === 'sent')

      const wrong = await form({ ...fields, email: 'not-an-email' })
      expect(wrong.status).toBe(303)
      expect(wrong.headers.get('location')).toBe(`${site}/check-details.html`)
      const foreign = await form(fields, { origin: 'https://evil.example', referer: 'https://evil.example/' })
      expect(foreign.status).toBe(403)
    })

    it('accepts the legacy anon key and refuses any other', async () => {
      expect(
        (await post(registration(), { apikey: 'legacy-anon-jwt', authorization: 'Bearer legacy-anon-jwt' })).status,
      ).toBe(200)
      const wrong = await post(registration(), { apikey: 'sb_secret_guess', authorization: 'Bearer sb_secret_guess' })
      expect(wrong.status).toBe(401)
      expect(wrong.headers.get('access-control-allow-origin')).toBe(site)
    })

    it('keeps a notification Resend refused and delivers it on the scheduled call', async () => {
      const body = registration()
      failOnce.add(`${String(body.submissionId)}.notification`)
      expect((await post(body)).status).toBe(200)
      await until(async () => (await outboxOf(body.submissionId))?.attempts === 1)
      expect((await outboxOf(body.submissionId))?.status).toBe('pending')

      const trigger = (secret: string) =>
        fetch(`${url}/functions/v1/send-contact-email/deliver-pending`, {
          method: 'POST',
          headers: { authorization: `Bearer ${secret}` },
        })
      expect((await trigger(publishableKey)).status).toBe(401)
      // The retry is due 1 s after the failure plus up to 20 % jitter (outbox.ts): wait past the latest it can be.
      await new Promise((r) => setTimeout(r, 1300))
      const run = await trigger(outboxSecret)
      expect(run.status).toBe(200)
      expect(await run.json()).toEqual({ ok: true, sent: 1, failed: 0 })
      expect(await outboxOf(body.submissionId)).toEqual({ status: 'sent', attempts: 2 })
      const calls = resendCalls.filter(
        (c) => c.headers['idempotency-key'] === `${String(body.submissionId)}.notification`,
      )
      expect(calls).toHaveLength(2)
    })

    it('sends the registrant a reply through Resend and the CRM a signed webhook call, each once', async () => {
      const body = registration({ name: 'Ann <Lee>', email: 'ann.deno@example.com' })
      const id = String(body.submissionId)
      expect((await post(body)).status).toBe(200)
      for (const kind of ['notification', 'reply', 'webhook'])
        await until(async () => (await outboxOf(id, kind))?.status === 'sent')
      await new Promise((r) => setTimeout(r, 300))

      const replies = resendCalls.filter((c) => c.headers['idempotency-key'] === `${id}.reply`)
      expect(replies).toHaveLength(1)
      const reply = replies[0]!.body
      expect(reply.to).toEqual(['ann.deno@example.com'])
      expect(reply.from).toBe('"Bramblewood Crossing VIP Team" <no-reply@example.com>')
      expect(reply.reply_to).toBe('vip@example.com')
      // A name that is not made of letters, spaces, ' and - is not copied into the reply (issue 21, item 2).
      expect(String(reply.text)).toContain('Hi,')
      expect(`${String(reply.text)}${String(reply.html)}`).not.toContain('Lee')
      expect(String(reply.text)).toContain('100 Example Street, Suite 200, Kestrel Falls, ON K0K 0A0')
      const headers = reply.headers as Record<string, string>
      expect(headers['Message-ID']).toBe(`<${id}.reply@example.com>`)
      expect(headers['List-Unsubscribe-Post']).toBe('List-Unsubscribe=One-Click')
      const link =
        /^<(https:\/\/project-ref\.supabase\.co\/functions\/v1\/send-contact-email\/unsubscribe\?id=[^>]+)>$/.exec(
          headers['List-Unsubscribe'] ?? '',
        )?.[1]
      expect(link).toBeDefined()

      const calls = webhookCalls.filter((c) => c.headers['webhook-id'] === id)
      expect(calls).toHaveLength(1)
      expect(calls[0]!.signed).toBe(true)
      expect(JSON.parse(calls[0]!.body)).toMatchObject({
        type: 'lead.created',
        data: { submissionId: id, fields: { name: 'Ann <Lee>', email: 'ann.deno@example.com' } },
      })

      // The one-click unsubscribe of the reply's header, against this function (the link names Supabase's host).
      const target = new URL(link!)
      const oneClick = await fetch(`${url}${target.pathname}${target.search}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'List-Unsubscribe=One-Click',
      })
      expect(oneClick.status).toBe(200)
      const { rows } = await pg.db.query('SELECT withdrawn_at FROM public.leads WHERE submission_id = $1', [id])
      expect((rows[0] as { withdrawn_at: Date | null }).withdrawn_at).toBeInstanceOf(Date)

      const health = await fetch(`${url}/functions/v1/send-contact-email/healthz`)
      expect(health.status).toBe(200)
      expect(await health.json()).toMatchObject({ ok: true, database: 'ok', outbox: { failed: 0 } })
    })

    it('refuses to start half-configured, listing what is missing', async () => {
      const proc = runDeno({ PORT: '0', RESEND_API_KEY: 're_x', ALLOWED_ORIGINS: 'https://a.example/path' })
      let err = ''
      proc.stderr!.on('data', (c: Buffer) => (err += c.toString()))
      const code = await new Promise<number | null>((resolve) => proc.once('exit', (c) => resolve(c)))
      expect(code).not.toBe(0)
      expect(err).toContain('send-contact-email cannot start')
      expect(err).toContain('SUPABASE_DB_URL is missing')
      expect(err).toContain('MAIL_FROM is missing')
      expect(err).toContain('OUTBOX_SECRET is missing')
      expect(err).toContain('No anon key')
      expect(err).toContain('ALLOWED_ORIGINS has "https://a.example/path"')
      expect(err).not.toContain('Listening on')
    }, 60_000)
  },
)

describe(`row level security (PostgreSQL, ${plannedPostgresKind()})`, () => {
  let pg: TestPostgres
  beforeAll(async () => {
    pg = await startTestPostgres()
    await pg.exec(
      `INSERT INTO public.leads (submission_id, fields, consent_text) VALUES ('${crypto.randomUUID()}', '{"name":"Jane"}', 'ok')`,
    )
  }, 60_000)
  afterAll(() => pg?.stop())

  /** Runs `sql` as `role` on one connection, in a transaction that is always rolled back. */
  function asRole(role: string, sql: string, grant?: string): Promise<{ error?: string; rows?: unknown[] }> {
    return pg.session(async (db) => {
      await db.query('BEGIN')
      try {
        if (grant) await db.query(grant)
        await db.query(`SET LOCAL ROLE ${role}`)
        return { rows: (await db.query(sql)).rows }
      } catch (error) {
        return { error: (error as Error).message }
      } finally {
        await db.query('ROLLBACK')
      }
    })
  }

  it('turns row level security on for both tables', async () => {
    const { rows } = await pg.db.query(
      `SELECT relname, relrowsecurity FROM pg_class WHERE relname IN ('leads', 'outbox') ORDER BY relname`,
    )
    expect(rows).toEqual([
      { relname: 'leads', relrowsecurity: true },
      { relname: 'outbox', relrowsecurity: true },
    ])
  })

  it.each(['anon', 'authenticated'])('gives %s no privilege on leads or outbox', async (role) => {
    for (const table of ['public.leads', 'public.outbox']) {
      for (const privilege of ['SELECT', 'INSERT', 'UPDATE', 'DELETE', 'TRUNCATE']) {
        const { rows } = await pg.db.query('SELECT has_table_privilege($1, $2, $3) AS granted', [
          role,
          table,
          privilege,
        ])
        expect((rows[0] as { granted: boolean }).granted, `${role} ${privilege} ${table}`).toBe(false)
      }
    }
  })

  it.each(['anon', 'authenticated'])('lets %s read, change and delete nothing', async (role) => {
    for (const statement of [
      'SELECT * FROM public.leads',
      'SELECT * FROM public.outbox',
      'SELECT * FROM public.sign_in_failures',
      'SELECT * FROM public.sign_in_devices',
      `WITH x AS (UPDATE public.leads SET consent_text = 'changed' RETURNING 1) SELECT * FROM x`,
      'WITH x AS (DELETE FROM public.leads RETURNING 1) SELECT * FROM x',
      `WITH x AS (INSERT INTO public.leads (submission_id, fields, consent_text) VALUES (gen_random_uuid(), '{}', 'x') RETURNING 1) SELECT * FROM x`,
    ]) {
      expect((await asRole(role, statement)).error, statement).toMatch(/permission denied/)
    }
  })

  it('shows anon no row even after a careless GRANT, because RLS has no policy for it', async () => {
    const grant = 'GRANT SELECT, UPDATE, DELETE ON public.leads TO anon'
    expect(await asRole('anon', 'SELECT count(*)::int AS n FROM public.leads', grant)).toEqual({ rows: [{ n: 0 }] })
    expect(
      await asRole('anon', 'WITH x AS (DELETE FROM public.leads RETURNING 1) SELECT count(*)::int AS n FROM x', grant),
    ).toEqual({ rows: [{ n: 0 }] })
    expect((await pg.db.query('SELECT count(*)::int AS n FROM public.leads')).rows).toEqual([{ n: 1 }])
  })
})

describe('the Edge Function source', () => {
  it('type-checks under Deno, shared modules and the bundle included, with nothing downloaded', () => {
    // An empty Deno cache and an unreachable registry: it passes only if every npm import comes from node_modules.
    const check = checkFunction(copy.root, {
      DENO_DIR: mkdtempSync(path.join(tmpdir(), 'deno-dir-')),
      NPM_CONFIG_REGISTRY: 'http://127.0.0.1:9/',
    })
    expect(check.output).not.toContain('ERROR')
    expect(check.status).toBe(0)
  }, 150_000)

  it('will not start without the bundle, and names the file a build writes', async () => {
    const bare = copyFunction()
    try {
      const proc = runDenoFunction(bare.root, { PORT: '0' })
      let err = ''
      proc.stderr!.on('data', (c: Buffer) => (err += c.toString()))
      const code = await new Promise<number | null>((resolve) => proc.once('exit', (c) => resolve(c)))
      expect(code).not.toBe(0)
      expect(err).toMatch(/Module not found "file:\/\/\S*\/supabase\/functions\/_shared\/launches\.json"/)
      expect(err).not.toContain('Listening on')
      // What the entry's first lines tell whoever reads that message.
      expect(readFileSync(path.join(bare.root, 'supabase/functions/send-contact-email/index.ts'), 'utf8')).toContain(
        'means no build has run in this checkout: run `npm run build`',
      )
    } finally {
      bare.remove()
    }
  }, 60_000)
})
