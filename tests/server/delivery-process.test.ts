import { readdirSync, readFileSync, mkdtempSync, rmSync } from 'node:fs'
import { availableParallelism, tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { localAnonKey } from '../../schema/local-defaults.ts'
import { registration } from './support/fixtures.ts'
import { startServerProcess, writeDist, type ServerProcess } from './support/node-server.ts'
import { startTestSmtp, type TestSmtp } from './support/smtp.ts'
import { startTestReceiver, type TestReceiver } from './support/webhook-receiver.ts'

// The Node server's delivery process (src/server/delivery-supervisor.ts): the outbox is sent by a child process of
// the server, on the same SQLite database. Killed outright, the child is started again and every message arrives, a
// copy only of those in flight, with the same Message-ID / webhook-id; a server killed outright takes its child along.

const root = mkdtempSync(path.join(tmpdir(), 'vip-delivery-'))
const distDir = path.join(root, 'dist')
writeDist(distDir)
const secret = 'receiver-secret-0123456789abcdef'
// A killed child repeats at most the messages each of its workers (MAIL_WORKERS, 2 by default) sent and had not marked
// yet (src/server/delivery/outbox.ts marks them 32 at a time) and those in flight (MAIL_CONCURRENCY, 8 by default in
// all).
const batchSize = 2 * 32 + 8
const cleanups: (() => Promise<unknown> | void)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})
afterAll(() => rmSync(root, { recursive: true, force: true }))

async function smtp(): Promise<TestSmtp> {
  const server = await startTestSmtp()
  cleanups.push(() => server.stop())
  return server
}

async function receiver(): Promise<TestReceiver> {
  const r = await startTestReceiver(secret)
  cleanups.push(() => r.stop())
  return r
}

/**
 * The delivery processes whose parent is `pid` (read from /proc, as ps does). Only those: a server that tsx has to
 * compile a changed file for also has esbuild's service as a child.
 */
function childrenOf(pid: number): number[] {
  return readdirSync('/proc').flatMap((entry) => {
    if (!/^\d+$/.test(entry)) return []
    try {
      // pid (comm) state ppid …: the name may hold spaces and brackets, so read after its last ')'.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
      if (ppid !== pid) return []
      return readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes('delivery-process') ? [Number(entry)] : []
    } catch {
      return []
    }
  })
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

async function server(env: Record<string, string>): Promise<ServerProcess> {
  const s = await startServerProcess({
    DIST_DIR: distDir,
    RATE_LIMIT_PER_MINUTE: '0',
    NOTIFY_EMAIL: 'sales@example.com',
    ...env,
  })
  cleanups.push(async () => {
    const children = childrenOf(s.proc.pid!)
    await s.stop('SIGKILL')
    for (const pid of children) if (alive(pid)) process.kill(pid, 'SIGKILL')
  })
  return s
}

function register(url: string, body = registration()) {
  return fetch(`${url}/functions/v1/send-contact-email`, {
    method: 'POST',
    headers: { apikey: localAnonKey, authorization: `Bearer ${localAnonKey}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
}

async function until(check: () => boolean | Promise<boolean>, timeoutMs = 15_000, what = 'condition'): Promise<void> {
  const end = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 50))
  }
}

function count<T>(items: T[]): Map<T, number> {
  const out = new Map<T, number>()
  for (const item of items) out.set(item, (out.get(item) ?? 0) + 1)
  return out
}

describe('delivery process of the Node server (SMTP and webhook receiver on 127.0.0.1)', () => {
  it('is started again after a SIGKILL; the server answers meanwhile, and every message arrives, repeating only those in flight', async () => {
    const mail = await smtp()
    // A slow SMTP server: the kill lands while a batch is being sent.
    mail.delayEach(40)
    const crm = await receiver()
    const dataDir = path.join(root, 'child-killed')
    const s = await server({
      DATA_DIR: dataDir,
      SMTP_URL: `smtp://127.0.0.1:${mail.port}`,
      PUBLIC_URL: 'http://localhost',
      MAIL_FROM: 'no-reply@example.com',
      WEBHOOK_URL: crm.url,
      WEBHOOK_SECRET: secret,
    })
    await until(() => childrenOf(s.proc.pid!).length === 1, 15_000, 'the delivery process')
    const [first] = childrenOf(s.proc.pid!)
    const bodies = Array.from({ length: 40 }, (_, i) => registration({ email: `buyer${i}@example.com` }))
    await Promise.all(bodies.slice(0, 30).map(async (body) => expect((await register(s.url, body)).status).toBe(200)))
    await until(() => mail.received.length >= 8, 20_000, 'the first messages')
    process.kill(first!, 'SIGKILL')
    const beforeRestart = mail.received.length + crm.calls.length
    // Registrations go on while no delivery process runs: their messages wait in the outbox.
    for (const body of bodies.slice(30)) expect((await register(s.url, body)).status).toBe(200)
    expect(beforeRestart).toBeLessThan(120)

    await until(
      () =>
        new Set(mail.received.map((m) => m.headers.get('message-id')?.[0])).size === 80 &&
        new Set(crm.calls.map((c) => c.headers['webhook-id'])).size === 40,
      60_000,
      'every message',
    )
    await new Promise((r) => setTimeout(r, 500))
    const [second] = childrenOf(s.proc.pid!)
    expect(second).toBeDefined()
    expect(second).not.toBe(first)
    expect(s.output()).toContain('Delivery: the delivery process ended (SIGKILL); starting it again in 1 s.')

    const mailIds = count(mail.received.map((m) => m.headers.get('message-id')?.[0]))
    const hookIds = count(crm.calls.map((c) => String(c.headers['webhook-id'])))
    const expectedMail = bodies.flatMap((b) => [
      `<${String(b.submissionId)}.notification@example.com>`,
      `<${String(b.submissionId)}.reply@example.com>`,
    ])
    expect([...mailIds.keys()].sort()).toEqual(expectedMail.sort())
    expect([...hookIds.keys()].sort()).toEqual(bodies.map((b) => String(b.submissionId)).sort())
    const repeats = [...mailIds.values(), ...hookIds.values()].reduce((n, c) => n + c - 1, 0)
    expect(repeats).toBeLessThanOrEqual(batchSize)
    // A copy is of a message the killed process had in hand: sent again once at most.
    expect(Math.max(...mailIds.values(), ...hookIds.values())).toBeLessThanOrEqual(2)
    // MAIL_WORKERS unset: two workers, one on a machine with a single core.
    const workers = Math.min(2, availableParallelism())
    expect(s.output()).toContain(`Delivery: ${workers} outbox worker${workers > 1 ? 's' : ''}, 8 sends at once in all.`)
    expect(crm.calls.every((c) => c.signed)).toBe(true)
    const health = (await (await fetch(`${s.url}/healthz`)).json()) as { outbox: Record<string, number> }
    expect(health.outbox).toEqual({ pending: 0, failed: 0, oldestPendingSeconds: 0 })
    console.log(
      `delivery process SIGKILLed after ${beforeRestart} of 120 deliveries; copies sent again: ${repeats}; SMTP connections it broke: ${mail.connectionErrors.length}`,
    )
  }, 120_000)

  it('sends every message once with several outbox workers, keeping the rate cap between them all', async () => {
    const mail = await smtp()
    const s = await server({
      DATA_DIR: path.join(root, 'workers'),
      SMTP_URL: `smtp://127.0.0.1:${mail.port}`,
      PUBLIC_URL: 'http://localhost',
      MAIL_FROM: 'no-reply@example.com',
      MAIL_WORKERS: '3',
      MAIL_CONCURRENCY: '6',
      MAIL_RATE_PER_SECOND: '60',
    })
    await until(() => s.output().includes('Delivery: 3 outbox workers'), 15_000, 'the delivery process')
    expect(s.output()).toContain('Delivery: 3 outbox workers, 6 sends at once in all, at most 60 a second.')
    const bodies = Array.from({ length: 90 }, (_, i) => registration({ email: `many${i}@example.com` }))
    for (const body of bodies) expect((await register(s.url, body)).status).toBe(200)
    await until(() => mail.received.length >= 180, 30_000, 'every message')
    await new Promise((r) => setTimeout(r, 1_000))

    const ids = count(mail.received.map((m) => m.headers.get('message-id')?.[0]))
    expect([...ids.keys()].sort()).toEqual(
      bodies
        .flatMap((b) => [
          `<${String(b.submissionId)}.notification@example.com>`,
          `<${String(b.submissionId)}.reply@example.com>`,
        ])
        .sort(),
    )
    expect([...ids.values()].every((n) => n === 1)).toBe(true)
    // Each worker paces a third of the cap: together never more than 60 in any second at the SMTP server.
    const times = mail.received.map((m) => m.at).sort((a, b) => a - b)
    const busiest = Math.max(...times.map((t, i) => times.slice(i).filter((u) => u < t + 1000).length))
    expect(busiest).toBeLessThanOrEqual(60)
    const health = (await (await fetch(`${s.url}/healthz`)).json()) as { outbox: Record<string, number> }
    expect(health.outbox).toEqual({ pending: 0, failed: 0, oldestPendingSeconds: 0 })
  }, 90_000)

  it('ends with its server: a server killed outright leaves no delivery process behind, and the next one delivers', async () => {
    const dataDir = path.join(root, 'server-killed')
    const first = await server({ DATA_DIR: dataDir })
    await until(() => childrenOf(first.proc.pid!).length === 1, 15_000, 'the delivery process')
    const [child] = childrenOf(first.proc.pid!)
    await first.stop('SIGKILL')
    await until(() => !alive(child!), 15_000, 'the orphaned delivery process to end')

    const again = await server({ DATA_DIR: dataDir })
    const body = registration()
    expect((await register(again.url, body)).status).toBe(200)
    const outbox = path.join(dataDir, 'outbox')
    await until(
      () => readdirSync(outbox).filter((f) => f.includes(String(body.submissionId)) && f.endsWith('.eml')).length === 2,
      15_000,
      'both messages',
    )
    // SIGTERM: the server stops its delivery process before it exits.
    const [next] = childrenOf(again.proc.pid!)
    expect((await again.stop('SIGTERM')).code).toBe(0)
    expect(alive(next!)).toBe(false)
  }, 60_000)
})
