import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { localAnonKey } from '../../schema/local-defaults.ts'
import { migrateDatabase } from '../../src/cli/db/db-migrate.ts'
import { registration } from './support/fixtures.ts'
import { runServerExpectingExit, startServerProcess, writeDist, type ServerProcess } from './support/node-server.ts'
import { freePort } from './support/ports.ts'
import { startTestPostgres, type TestPostgres } from './support/postgres.ts'
import { startTestSmtp, type TestSmtp } from './support/smtp.ts'

// Two Node servers on one real PostgreSQL (the real migrations, applied by npm run db:migrate's code), each with its
// own DATA_DIR, as behind a load balancer: registrations sent to both alternately, under load, while SMTP is down and
// then up, are each stored once and their messages each delivered once; the sign-in limits, the registration rate
// limit, the visit counter and the daily retention run count both servers as one.

const root = mkdtempSync(path.join(tmpdir(), 'vip-node-pg-'))
const distDir = path.join(root, 'dist')
writeDist(distDir)
const password = 'the sales team password'
const perMinute = 10
const quiet = { log: () => {}, fail: (line: string) => console.error(line) }

let pg: TestPostgres
let smtpPort: number
let smtp: TestSmtp | undefined
const servers: ServerProcess[] = []

function start(name: string): Promise<ServerProcess> {
  return startServerProcess({
    DATABASE_URL: pg.url!,
    DATA_DIR: path.join(root, name),
    DIST_DIR: distDir,
    SMTP_URL: `smtp://127.0.0.1:${smtpPort}`,
    PUBLIC_URL: 'http://localhost',
    MAIL_FROM: 'no-reply@example.com',
    NOTIFY_EMAIL: 'sales@example.com',
    MAIL_RETRY_MIN_SECONDS: '1',
    MAIL_RETRY_MAX_SECONDS: '2',
    MAIL_MAX_ATTEMPTS: '100',
    RATE_LIMIT_PER_MINUTE: String(perMinute),
    RETENTION_DAYS: '365',
    LEADS_PASSWORD: password,
    TRUST_PROXY: '1',
    SUPPRESSION_SECRET: 'test-suppression-secret-0123456789',
  })
}

/** A registration from `client` (the address the proxy saw). */
function register(url: string, client: string, body: Record<string, unknown>) {
  return fetch(`${url}/functions/v1/send-contact-email`, {
    method: 'POST',
    headers: {
      apikey: localAnonKey,
      authorization: `Bearer ${localAnonKey}`,
      'content-type': 'application/json',
      'x-forwarded-for': client,
    },
    body: JSON.stringify(body),
  })
}

function signIn(url: string, client: string, typed: string) {
  return fetch(`${url}/leads/sign-in`, {
    method: 'POST',
    redirect: 'manual',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      origin: `http://${new URL(url).host}`,
      'x-forwarded-for': client,
    },
    body: new URLSearchParams({ password: typed }).toString(),
  })
}

async function waitFor(what: string, done: () => boolean | Promise<boolean>, timeoutMs: number): Promise<void> {
  const end = Date.now() + timeoutMs
  while (!(await done())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
}

beforeAll(async () => {
  pg = await startTestPostgres({ empty: true })
  expect(await migrateDatabase(pg.url!, path.resolve('supabase/migrations'), quiet)).toBe(0)
  smtpPort = await freePort()
}, 60_000)

afterAll(async () => {
  for (const server of servers) await server.stop('SIGKILL')
  await smtp?.stop()
  await pg?.stop()
  rmSync(root, { recursive: true, force: true })
})

describe('two Node servers on one PostgreSQL', () => {
  it('refuses to start without SUPPRESSION_SECRET, and on a database without the migrations, saying to run npm run db:migrate', async () => {
    const bare = new URL(pg.url!)
    bare.pathname = '/bare'
    await pg.exec('CREATE DATABASE bare')
    // The suppression list's key is never kept in the database: without it, the server says what to set.
    const keyless = await runServerExpectingExit({
      DATABASE_URL: pg.url!,
      DATA_DIR: path.join(root, 'bare'),
      DIST_DIR: distDir,
    })
    expect(keyless.code).toBe(1)
    expect(keyless.stderr).toContain(
      'SUPPRESSION_SECRET is missing: DATABASE_URL is set, so with PostgreSQL the suppression list needs a key kept outside the database',
    )
    const run = await runServerExpectingExit({
      DATABASE_URL: bare.toString(),
      DATA_DIR: path.join(root, 'bare'),
      DIST_DIR: distDir,
      SUPPRESSION_SECRET: 'a-suppression-secret-0123456789',
    })
    expect(run.code).toBe(1)
    expect(run.stderr).toContain('lacks')
    expect(run.stderr).toContain('Run npm run db:migrate (with the same DATABASE_URL), then start again.')
    expect(run.stderr).not.toMatch(/\n\s+at /)
  }, 60_000)

  it('store each acknowledged registration once and deliver each message once, with SMTP down and then up', async () => {
    servers.push(...(await Promise.all([start('a'), start('b')])))
    const [a, b] = servers as [ServerProcess, ServerProcess]
    expect(a.output()).toContain('Leads: PostgreSQL, 127.0.0.1')

    const bodies = Array.from({ length: 200 }, (_, i) =>
      registration({ email: `buyer-${i}@example.com`, name: `Buyer ${i}` }),
    )
    const acknowledged: string[] = []
    for (let batch = 0; batch < bodies.length; batch += 50) {
      const answers = await Promise.all(
        bodies.slice(batch, batch + 50).map(async (body, j) => {
          const i = batch + j
          const response = await register(i % 2 === 0 ? a.url : b.url, `10.1.${i >> 8}.${i & 255}`, body)
          return { status: response.status, id: String(body.submissionId) }
        }),
      )
      for (const answer of answers) {
        expect(answer.status).toBe(200)
        acknowledged.push(answer.id)
      }
    }
    // A browser that retries on the other server (the first answer was lost) stores nothing twice.
    for (const [i, body] of bodies.slice(0, 20).entries())
      expect((await register(i % 2 === 0 ? b.url : a.url, `10.1.0.${i}`, body)).status).toBe(200)

    // SMTP comes up on the port both servers were given.
    smtp = await startTestSmtp(smtpPort)
    const expected = acknowledged.flatMap((id) => [`<${id}.notification@example.com>`, `<${id}.reply@example.com>`])
    await waitFor('every message', () => smtp!.received.length >= expected.length, 90_000)
    // A message sent twice would come within the retry delays and the claim's lease: give it time to show.
    await new Promise((resolve) => setTimeout(resolve, 3_000))
    const ids = smtp.received.map((mail) => mail.headers.get('message-id')?.[0])
    expect(ids.length).toBe(expected.length)
    expect([...ids].sort()).toEqual([...expected].sort())

    const leads = await pg.db.query('SELECT submission_id::text AS id FROM public.leads')
    expect((leads.rows as Array<{ id: string }>).map((row) => row.id).sort()).toEqual([...acknowledged].sort())
    const outbox = await pg.db.query(`SELECT status, count(*)::int AS n FROM public.outbox GROUP BY status`)
    expect(outbox.rows).toEqual([{ status: 'sent', n: expected.length }])
  }, 180_000)

  it('count wrong passwords on the leads page across both servers', async () => {
    const [a, b] = servers as [ServerProcess, ServerProcess]
    const statuses: number[] = []
    for (let i = 0; i < 12; i++)
      statuses.push((await signIn(i % 2 === 0 ? a.url : b.url, '198.51.100.7', 'not the password')).status)
    // Ten a minute per address: alone, each server would have allowed twelve (six each).
    expect(statuses).toEqual([...Array<number>(10).fill(401), 429, 429])
  }, 30_000)

  it('count registrations from one address across both servers against RATE_LIMIT_PER_MINUTE', async () => {
    const [a, b] = servers as [ServerProcess, ServerProcess]
    // Clear of a minute's edge, so all the attempts fall in one window.
    const intoMinute = Date.now() % 60_000
    if (intoMinute > 50_000) await new Promise((resolve) => setTimeout(resolve, 60_500 - intoMinute))
    const statuses: number[] = []
    for (let i = 0; i < perMinute + 2; i++)
      statuses.push((await register(i % 2 === 0 ? a.url : b.url, '203.0.113.9', registration())).status)
    expect(statuses).toEqual([...Array<number>(perMinute).fill(200), 429, 429])
  }, 30_000)

  it('start a third server on the DATA_DIR of another: on PostgreSQL, DATA_DIR is not locked to one server', async () => {
    const third = await start('a')
    try {
      expect(third.output()).toContain('Leads: PostgreSQL')
      expect((await register(third.url, '10.7.0.1', registration())).status).toBe(200)
    } finally {
      expect((await third.stop('SIGTERM')).code).toBe(0)
    }
  }, 60_000)

  it('count one visitor seen by both servers once, and run the retention once a day in all', async () => {
    const [a, b] = servers as [ServerProcess, ServerProcess]
    const view = (url: string) =>
      fetch(`${url}/`, {
        headers: {
          'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Firefox/140.0',
          accept: 'text/html',
          'x-forwarded-for': '192.0.2.77',
        },
      })
    expect((await view(a.url)).status).toBe(200)
    expect((await view(b.url)).status).toBe(200)
    // Stopping writes what each counted.
    for (const server of servers.splice(0)) expect((await server.stop('SIGTERM')).code).toBe(0)
    const visits = await pg.db.query(
      'SELECT sum(visits)::int AS visits, sum(visitors)::int AS visitors FROM public.visit_counts',
    )
    expect(visits.rows).toEqual([{ visits: 2, visitors: 1 }])
    const runs = await pg.db.query(`SELECT job, day::text AS day FROM public.daily_runs`)
    expect(runs.rows).toEqual([{ job: 'retention', day: new Date().toISOString().slice(0, 10) }])
  }, 60_000)
})
