import type { ChildProcess } from 'node:child_process'
import { createServer, type Server } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { PageConfig } from '../../schema/page-config.ts'
import { createPostgresRelease } from '../../src/server/store/postgres/postgres-release.ts'
import type { LotInput } from '../../src/server/store/release.ts'
import { copyFunction, functionUrlOf, runDenoFunction, stopDeno, type FunctionCopy } from './support/deno-function.ts'
import { readPageConfig, registration } from './support/fixtures.ts'
import { plannedPostgresKind, startTestPostgres, type TestPostgres } from './support/postgres.ts'

// Issue 45 on the static-host set-up, where the Edge Function is the only server: real Deno runs the function against
// a real PostgreSQL with the real migrations, connecting as lead_writer (as docs/deploy.md tells), and answers the
// page's left.json and the realtors' worksheet page. Its launch has a worksheet window open now (Deno's clock is the
// machine's), a reply, and an inventory the test imports as the owner, as npm run inventory:import does.

const publishableKey = 'sb_publishable_test_key'
const functionBase = 'https://project-ref.supabase.co/functions/v1/send-contact-email'
const canonical = 'https://bramblewood.example.com'
const day = 86_400_000
/** A time `ms` from now as the phases write it (YYYY-MM-DDTHH:MM, the launch's zone): two days each way is margin. */
const local = (ms: number) => new Date(Date.now() + ms).toISOString().slice(0, 16)
const base = readPageConfig()
const config: PageConfig = {
  ...base,
  launch: { ...base.launch, timeZone: 'America/Toronto' },
  phases: { current: 'vip', list: [{ name: 'vip', worksheets: { opens: local(-2 * day), closes: local(2 * day) } }] },
  worksheets: { texts: { depositStructure: '5% on signing, 5% in 30 days, 5% in 90 days.' } },
}
const slug = config.launch.slug
const lots: LotInput[] = [14, 15, 16].map((n) => ({
  lot: `Lot ${n}`,
  release: 'Phase 1',
  models: n === 16 ? ['Birch'] : ['Maple', 'Birch'],
  frontage: '40 ft',
  price: 899_900,
  status: 'available',
}))
const realtor = {
  name: 'Rita Agent',
  email: 'rita.deno@agents.example.com',
  phone: '416-555-0100',
  isRealtor: 'yes',
  brokerage: 'Example Realty Inc., Brokerage',
  recoNumber: '5550123',
  forClient: 'yes',
}

describe.skipIf(plannedPostgresKind() === 'pglite')(
  'Supabase Edge Function under Deno serves the release on a static host (PostgreSQL server, lead_writer)',
  { timeout: 120_000 },
  () => {
    let pg: TestPostgres
    let copy: FunctionCopy
    let resend: Server
    // Each message the function sent through the (fake) Resend API.
    const sent: Array<{ to?: string[]; subject?: string; text?: string }> = []
    let deno: ChildProcess
    let url = ''
    let output = () => ''
    // The realtor's link, as their reply carried it.
    let link = ''

    beforeAll(async () => {
      pg = await startTestPostgres()
      await pg.db.query(`ALTER ROLE lead_writer WITH LOGIN PASSWORD 'test-lead-writer'`)
      const writerUrl = new URL(pg.url!)
      writerUrl.username = 'lead_writer'
      writerUrl.password = 'test-lead-writer'
      await createPostgresRelease(pg.db).importLots(slug, lots, new Date().toISOString())
      copy = copyFunction({ launches: [{ slug, config }], defaultLaunch: slug })
      resend = createServer((req, res) => {
        let data = ''
        req.on('data', (c: Buffer) => (data += c.toString()))
        req.on('end', () => {
          sent.push(JSON.parse(data || '{}') as { to?: string[]; subject?: string; text?: string })
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
        RATE_LIMIT_PER_MINUTE: '30',
        UNSUBSCRIBE_SECRET: 'test-unsubscribe-secret-0123456789',
        SUPABASE_URL: 'https://project-ref.supabase.co',
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

    /** Waits until `check` holds, up to 20 s; then says what Deno printed. */
    async function until(check: () => Promise<boolean> | boolean): Promise<void> {
      const deadline = Date.now() + 20_000
      while (!(await check())) {
        if (Date.now() > deadline) throw new Error(`timed out waiting; deno said:\n${output()}`)
        await new Promise((r) => setTimeout(r, 200))
      }
    }

    const left = (query: string, headers: Record<string, string> = {}, path = '/functions/v1/send-contact-email') =>
      fetch(`${url}${path}/left.json${query}`, { headers: { origin: canonical, ...headers } })

    it("answers the launch's left.json: its origin may read it, an ETag gives 304, and an allocation shows within seconds", async () => {
      const first = await left(`?launch=${slug}`)
      expect(first.status).toBe(200)
      expect(first.headers.get('access-control-allow-origin')).toBe(canonical)
      expect(first.headers.get('cache-control')).toBe('public, max-age=5')
      expect(await first.json()).toEqual({
        left: { Maple: 2, Birch: 3 },
        available: [['Maple', 'Birch'], ['Maple', 'Birch'], ['Birch']],
        inventory: true,
      })
      const etag = first.headers.get('etag')!
      // The path the function sees on Supabase answers the same.
      const again = await left(`?launch=${slug}`, { 'if-none-match': etag }, '/send-contact-email')
      expect(again.status).toBe(304)
      expect(again.headers.get('access-control-allow-origin')).toBe(canonical)
      const foreign = await left(`?launch=${slug}`, { origin: 'https://evil.example' })
      expect(foreign.headers.get('access-control-allow-origin')).toBeNull()
      expect((await left('')).status).toBe(400)
      expect((await left('?launch=maple-ridge')).status).toBe(404)

      // The studio allocates Lot 14 (as the owner, in the database); the function's next reading shows it.
      await pg.db.query(`UPDATE public.lots SET status = 'allocated' WHERE launch = $1 AND lot = 'Lot 14'`, [slug])
      const started = Date.now()
      let counts: Record<string, number> = {}
      await until(async () => {
        const res = await left(`?launch=${slug}`, { 'if-none-match': etag })
        if (res.status === 200) counts = ((await res.json()) as { left: Record<string, number> }).left
        return res.status === 200
      })
      expect(counts).toEqual({ Maple: 1, Birch: 2 })
      expect(Date.now() - started).toBeLessThan(10_000)
    })

    it("links a realtor's reply to the worksheet page on the function, which takes a worksheet once as lead_writer and queues its confirmations", async () => {
      const register = (fields: Record<string, unknown>) =>
        fetch(`${url}/functions/v1/send-contact-email`, {
          method: 'POST',
          headers: { apikey: publishableKey, 'content-type': 'application/json', origin: canonical },
          body: JSON.stringify(registration(fields)),
        })
      expect((await register(realtor)).status).toBe(200)
      expect((await register({ name: 'Ben Buyer', email: 'ben.deno@example.com', agent: 'Rita Agent' })).status).toBe(
        200,
      )
      await until(() => {
        const reply = sent.find((m) => m.to?.[0] === realtor.email && /Send a worksheet: /.test(m.text ?? ''))
        link = /^Send a worksheet: (\S+)$/m.exec(reply?.text ?? '')?.[1] ?? ''
        return link !== ''
      })
      expect(link.startsWith(`${functionBase}/worksheets?`)).toBe(true)
      expect(new URL(link).search).toMatch(/^\?id=[0-9a-f-]{36}&sig=[\w-]{43}$/)
      const local = `${url}${new URL(link).pathname}${new URL(link).search}`

      const page = await fetch(local)
      expect(page.status).toBe(200)
      const html = await page.text()
      expect(html).toContain('<li>Ben Buyer · ben.deno@example.com · 555-555-0100</li>')
      expect(html).toMatch(/<form method="post" action="\?id=[0-9a-f-]{36}&amp;sig=[\w-]{43}"/)
      expect(html).toContain('Lot 15')
      expect(html).not.toContain('Lot 14 ·')

      const form = new URLSearchParams({
        clientName: 'Ben Buyer',
        clientEmail: 'ben.deno@example.com',
        clientPhone: '416-555-0199',
        choice1: new URLSearchParams({ lot: 'Lot 15', model: 'Maple' }).toString(),
        deposit: 'yes',
        notes: '',
      }).toString()
      const post = (origin: string) =>
        fetch(local, {
          method: 'POST',
          redirect: 'manual',
          headers: { 'content-type': 'application/x-www-form-urlencoded', origin },
          body: form,
        })
      expect((await post('https://evil.example')).status).toBe(403)
      // The page's own origin, as the browser that opened the reply's link sends it.
      const taken = await post('https://project-ref.supabase.co')
      expect(taken.status).toBe(303)
      expect(taken.headers.get('location')).toMatch(/^\?id=[0-9a-f-]{36}&sig=[\w-]{43}&sent=1$/)
      const { rows } = await pg.db.query(
        `SELECT w.id, w.number, w.client_email, w.outcome, l.fields->>'email' AS realtor
         FROM public.worksheets w JOIN public.leads l ON l.id = w.realtor_lead_id`,
      )
      expect(rows).toEqual([
        {
          id: expect.any(String),
          number: '1',
          client_email: 'ben.deno@example.com',
          outcome: 'received',
          realtor: realtor.email,
        },
      ])
      const id = (rows[0] as { id: string }).id
      const queued = await pg.db.query(
        `SELECT kind, count(*)::int AS n FROM public.outbox WHERE recipient LIKE $1 GROUP BY kind ORDER BY kind`,
        [`worksheet:${id}:%`],
      )
      expect(queued.rows).toEqual([
        { kind: 'notification', n: 1 },
        { kind: 'reply', n: 1 },
      ])
      const back = await fetch(`${local.split('?')[0]}${taken.headers.get('location')}`)
      expect(await back.text()).toContain('Worksheet 1 received')

      const sig = new URL(link).searchParams.get('sig')!
      const forged = local.replace(sig, () => `${sig[0] === 'A' ? 'B' : 'A'}${sig.slice(1)}`)
      const refused = await fetch(forged)
      expect(refused.status).toBe(403)
      expect(await refused.text()).not.toMatch(/Rita|Ben Buyer/)
    })

    it('mails a realtor who asks again their link, from the request page the function serves', async () => {
      expect(link).not.toBe('')
      const request = `${url}/functions/v1/send-contact-email/worksheets/link`
      const page = await fetch(request)
      expect(page.status).toBe(200)
      // Relative, so the form posts to the page's own address behind Supabase's gateway too.
      expect(await page.text()).toContain(`action="?launch=${slug}"`)
      const asked = await fetch(`${request}?launch=${slug}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://project-ref.supabase.co' },
        body: new URLSearchParams({ email: ` ${realtor.email.toUpperCase()} ` }).toString(),
      })
      expect(asked.status).toBe(200)
      let again = ''
      await until(() => {
        const mail = sent.find((m) => m.to?.[0] === realtor.email && /your worksheet link/.test(String(m.subject)))
        again = /^Send a worksheet: (\S+)$/m.exec(mail?.text ?? '')?.[1] ?? ''
        return again !== ''
      })
      expect(again).toBe(link)
    })
  },
)
