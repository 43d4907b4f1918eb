import type { ChildProcess } from 'node:child_process'
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { createServer, type Server } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { functionLaunchOf } from '../../schema/function-launch.ts'
import type { PageConfig } from '../../schema/page-config.ts'
import { secondLaunchConfig } from '../fixtures/second-launch.ts'
import { copyFunctionDocuments } from '../../src/build/function-bundle.ts'
import { copyFunction, functionUrlOf, runDenoFunction, stopDeno, type FunctionCopy } from './support/deno-function.ts'
import { readPageConfig, registration } from './support/fixtures.ts'
import { plannedPostgresKind, startTestPostgres, type TestPostgres } from './support/postgres.ts'

// Issue 26: the Edge Function serves what the studio published. Real Deno runs the function against a real
// PostgreSQL with the real migrations, connecting as lead_writer (as docs/deploy.md tells). Its bundle has the default
// launch without a postalCode field; a publish (a published_builds row, as the Node server writes it) adds one, and
// the same Deno process accepts and stores it within PUBLISHED_REFRESH_SECONDS, with no redeploy and no restart.

const publishableKey = 'sb_publishable_test_key'
const site = 'https://www.example.com'
const first = readPageConfig()
const second = JSON.parse(readFileSync(secondLaunchConfig, 'utf8')) as PageConfig
const postalPattern = '^[A-Za-z][0-9][A-Za-z] ?[0-9][A-Za-z][0-9]$'
const postalMessage = 'Write the postal code as A1A 1A1'

/** The default launch's config as published from the studio: the same, plus an optional postal code and its message. */
function publishedConfig(): PageConfig {
  const config = structuredClone(first) as PageConfig & {
    form: { schema: { properties: Record<string, unknown> }; messages: Record<string, unknown> }
  }
  config.form.schema.properties.postalCode = { type: 'string', pattern: postalPattern }
  config.form.messages.postalCode = { pattern: postalMessage }
  // The contract's own recipient: NOTIFY_EMAIL, which the function has, must still win over it.
  config.launch.notifyEmail = 'published-desk@example.com'
  return config
}

describe.skipIf(plannedPostgresKind() === 'pglite')(
  'Supabase Edge Function under Deno serves the published launches (PostgreSQL server)',
  { timeout: 120_000 },
  () => {
    let pg: TestPostgres
    let copy: FunctionCopy
    let resend: Server
    const recipients = new Map<string, unknown>()
    // Each message the function sent through the (fake) Resend API, by its idempotency key.
    const sent = new Map<string, { text?: string; html?: string }>()
    let deno: ChildProcess
    let url = ''
    let output = () => ''

    beforeAll(async () => {
      pg = await startTestPostgres()
      // The function connects as the least-privileged role, which may call published_contracts() and nothing more
      // there.
      await pg.db.query(`ALTER ROLE lead_writer WITH LOGIN PASSWORD 'test-lead-writer'`)
      const writerUrl = new URL(pg.url!)
      writerUrl.username = 'lead_writer'
      writerUrl.password = 'test-lead-writer'
      copy = copyFunction({
        launches: [
          { slug: first.launch.slug, config: first },
          { slug: second.launch.slug, config: second },
        ],
        defaultLaunch: first.launch.slug,
      })
      // The launch's documents beside the function, as npm run build puts them (deployed with it through static_files).
      copyFunctionDocuments(
        { slug: first.launch.slug, configFile: path.resolve('page.config.json'), config: first },
        copy.root,
      )
      resend = createServer((req, res) => {
        let data = ''
        req.on('data', (c: Buffer) => (data += c.toString()))
        req.on('end', () => {
          recipients.set(String(req.headers['idempotency-key']), (JSON.parse(data || '{}') as { to?: unknown }).to)
          sent.set(String(req.headers['idempotency-key']), JSON.parse(data || '{}') as { text?: string; html?: string })
          res.writeHead(200, { 'content-type': 'application/json' }).end('{"id":"e_1"}')
        })
      })
      await new Promise<void>((resolve) => resend.listen(0, '127.0.0.1', resolve))
      const address = resend.address()
      deno = runDenoFunction(copy.root, {
        DATABASE_URL: writerUrl.toString(),
        SUPABASE_DB_URL: pg.url!,
        SUPABASE_PUBLISHABLE_KEYS: JSON.stringify({ default: publishableKey }),
        RESEND_API_KEY: 're_test_key',
        RESEND_API_URL: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`,
        MAIL_FROM: 'Bramblewood Crossing <no-reply@example.com>',
        NOTIFY_EMAIL: 'sales@example.com',
        OUTBOX_SECRET: 'test-outbox-secret-0123456789',
        ALLOWED_ORIGINS: site,
        RATE_LIMIT_PER_MINUTE: '30',
        UNSUBSCRIBE_SECRET: 'test-unsubscribe-secret-0123456789',
        SUPABASE_URL: 'https://project-ref.supabase.co',
        PUBLISHED_REFRESH_SECONDS: '1',
        PORT: '0',
        HOST: '127.0.0.1',
      })
      ;({ url, output } = await functionUrlOf(deno))
    }, 150_000)

    afterAll(async () => {
      await stopDeno(deno)
      await new Promise<void>((resolve) => (resend ? resend.close(() => resolve()) : resolve()))
      await pg?.db.query('ALTER ROLE lead_writer WITH NOLOGIN PASSWORD NULL').catch(() => {})
      await pg?.stop()
      copy?.remove()
    })

    const post = (body: unknown) =>
      fetch(`${url}/functions/v1/send-contact-email`, {
        method: 'POST',
        headers: {
          apikey: publishableKey,
          authorization: `Bearer ${publishableKey}`,
          'content-type': 'application/json',
          origin: site,
        },
        body: JSON.stringify(body),
      })
    const fieldsOf = async (id: unknown) =>
      (
        (await pg.db.query('SELECT fields FROM public.leads WHERE submission_id = $1', [id])).rows[0] as
          { fields: Record<string, unknown> } | undefined
      )?.fields
    /** Waits until `check` holds, up to 15 s (the refresh is every second). */
    async function until(check: () => Promise<boolean>): Promise<void> {
      const deadline = Date.now() + 15_000
      while (!(await check())) {
        if (Date.now() > deadline) throw new Error(`gave up waiting; the function said:\n${output()}`)
        await new Promise((resolve) => setTimeout(resolve, 200))
      }
    }

    it('refuses a field the published version lacks, then accepts and stores it after a publish that adds it, in the same process', async () => {
      const pid = deno.pid
      expect(output()).toContain(
        `send-contact-email: serving ${first.launch.slug} (bundle), ${second.launch.slug} (bundle)`,
      )

      // Before: the bundle's form has no postalCode. Unknown fields are dropped, not stored, whatever they hold.
      const before = registration({ postalCode: 'N0N 0B0', email: 'before@example.com' })
      expect((await post(before)).status).toBe(200)
      expect(await fieldsOf(before.submissionId)).not.toHaveProperty('postalCode')
      const badBefore = registration({ postalCode: 'not a code', email: 'bad-before@example.com' })
      expect((await post(badBefore)).status).toBe(200)
      expect(await fieldsOf(badBefore.submissionId)).not.toHaveProperty('postalCode')

      // The publish, as the Node server on this database keeps it (src/server/store/postgres/postgres-builds.ts).
      const config = publishedConfig()
      await pg.db.query(
        `INSERT INTO public.published_builds (launch, number, config_text, manifest) VALUES ($1, 1, $2, $3::jsonb)`,
        [
          first.launch.slug,
          JSON.stringify(config, null, 2),
          JSON.stringify({ contract: functionLaunchOf(config), tagManager: false }),
        ],
      )

      // After: within the refresh, the same process checks the field with the published schema and message, and stores
      // it.
      await until(async () => {
        const bad = await post(registration({ postalCode: 'not a code', email: 'bad-after@example.com' }))
        return bad.status === 400
      })
      const bad = await post(registration({ postalCode: 'not a code', email: 'bad-after@example.com' }))
      expect(bad.status).toBe(400)
      expect((await bad.json()).errors).toEqual({ postalCode: postalMessage })
      const after = registration({ postalCode: 'N0N 0B0', email: 'after@example.com' })
      expect((await post(after)).status).toBe(200)
      expect(await fieldsOf(after.submissionId)).toMatchObject({ postalCode: 'N0N 0B0', email: 'after@example.com' })
      expect(output()).toContain(`send-contact-email: serving ${first.launch.slug} 1, ${second.launch.slug} (bundle)`)

      // The launch only in the bundle is still served, with its own form (which has postalCode).
      const other = registration({ launch: second.launch.slug, postalCode: 'A1A 1A1', email: 'other@example.com' })
      expect((await post(other)).status).toBe(200)
      expect(await fieldsOf(other.submissionId)).toMatchObject({ postalCode: 'A1A 1A1' })

      // NOTIFY_EMAIL still wins over the published contract's recipient.
      await until(async () => recipients.has(`${String(after.submissionId)}.notification`))
      expect(recipients.get(`${String(after.submissionId)}.notification`)).toEqual(['sales@example.com'])

      // No restart in between: the same Deno process answered every request.
      expect(deno.pid).toBe(pid)
      expect(deno.exitCode).toBeNull()
      expect(output()).not.toMatch(/could not read the published launches/)
    })

    it("counts a page's visit image (a page on a static host) as the Node servers count a page: once a visitor a day, hashed with the same salt", async () => {
      const firefox = 'Mozilla/5.0 (X11; Linux x86_64; rv:140.0) Gecko/20100101 Firefox/140.0'
      const chrome =
        'Mozilla/5.0 (Linux; Android 14) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0 Mobile Safari/537.36'
      const image = (slug: string, agent: string, dest = 'image') =>
        fetch(`${url}/functions/v1/send-contact-email/visit/${slug}`, {
          headers: { 'user-agent': agent, 'sec-fetch-dest': dest },
        })
      const countsOf = async (slug: string) =>
        (await pg.db.query('SELECT source, visits, visitors FROM public.visit_counts WHERE launch = $1', [slug]))
          .rows as Array<{ source: string; visits: number; visitors: number }>

      const answer = await image(first.launch.slug, firefox)
      expect(answer.status).toBe(200)
      expect(answer.headers.get('content-type')).toBe('image/gif')
      expect(answer.headers.get('cache-control')).toBe('no-store')
      expect(new Uint8Array(await answer.arrayBuffer()).slice(0, 6)).toEqual(new TextEncoder().encode('GIF89a'))
      await image(first.launch.slug, firefox)
      await image(first.launch.slug, chrome)
      // Not a person's visit: a crawler, and a page (the Node server counts those it serves).
      await image(first.launch.slug, 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)')
      await image(first.launch.slug, chrome, 'document')
      // A launch the function does not serve: the same image, nothing counted.
      expect((await image('no-such-launch', firefox)).status).toBe(200)

      expect(await countsOf(first.launch.slug)).toEqual([{ source: '', visits: 3, visitors: 2 }])
      expect(await countsOf('no-such-launch')).toEqual([])
      // The hash kept is the Node servers' (site/visit-counter.ts): SHA-256 of the day's salt, then launch, address and
      // agent.
      const { rows } = await pg.db.query('SELECT day::text AS day, salt FROM public.visit_salts')
      expect(rows).toHaveLength(1)
      const { day, salt } = rows[0] as { day: string; salt: Buffer }
      const hashOf = (agent: string) =>
        createHash('sha256').update(salt).update(`\0${first.launch.slug}\u0000127.0.0.1\u0000${agent}`).digest('base64')
      const visitors = (
        await pg.db.query('SELECT visitor FROM public.visit_visitors WHERE day = $1::date', [day])
      ).rows.map((row) => (row as { visitor: string }).visitor)
      expect(visitors.sort()).toEqual([hashOf(firefox), hashOf(chrome)].sort())
    })

    it("answers a reply's document link with the PDF from its own copy of the launch's documents, and logs the opening", async () => {
      const body = registration({ email: 'documents@example.com' })
      expect((await post(body)).status).toBe(200)
      await until(async () => sent.has(`${String(body.submissionId)}.reply`))
      const reply = sent.get(`${String(body.submissionId)}.reply`)!
      const links = [...`${reply.text ?? ''}`.matchAll(/https?:\/\/\S+?\/documents\/[^\s"<>)]+/g)].map(
        (match) => match[0],
      )
      const priceList = links.find((link) => link.includes('/documents/price-list?'))
      expect(priceList, reply.text).toBeDefined()
      const local = new URL(priceList!)
      const answer = await fetch(`${url}${local.pathname}${local.search}`)
      expect(answer.status).toBe(200)
      expect(answer.headers.get('content-type')).toBe('application/pdf')
      expect(answer.headers.get('cache-control')).toContain('no-store')
      expect(Buffer.from(await answer.arrayBuffer()).equals(readFileSync('documents/price-list.pdf'))).toBe(true)
      const { rows } = await pg.db.query(
        'SELECT d.document FROM public.document_downloads AS d JOIN public.leads AS l ON l.id = d.lead_id WHERE l.submission_id = $1',
        [body.submissionId],
      )
      expect(rows).toEqual([{ document: 'price-list' }])
      // One character of the signature changed: refused, and nothing logged.
      const forged = new URL(local)
      const sig = forged.searchParams.get('sig')!
      forged.searchParams.set('sig', `${sig.slice(0, -1)}${sig.endsWith('A') ? 'B' : 'A'}`)
      expect([403, 404]).toContain((await fetch(`${url}${forged.pathname}${forged.search}`)).status)
      expect((await pg.db.query('SELECT count(*)::int AS n FROM public.document_downloads')).rows).toEqual([{ n: 1 }])
    })
  },
)
