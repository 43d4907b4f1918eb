import { mkdtempSync, rmSync } from 'node:fs'
import { createServer, type IncomingMessage } from 'node:http'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import type { Mailer } from '../../src/server/delivery/mailer.ts'
import { createOutboxWorker, type OutboxWorkerOptions } from '../../src/server/delivery/outbox.ts'
import { createResendMailer } from '../../src/server/delivery/mailers/resend-mailer.ts'
import { createSendPace } from '../../src/server/delivery/sending/send-pace.ts'
import { createSmtpMailer } from '../../src/server/delivery/mailers/smtp-mailer.ts'
import { parseEdgeEnv, parseNodeEnv } from '../../src/server/env.ts'
import { openSqliteStore, type SqliteLeadStore } from '../../src/server/store/sqlite/sqlite-store.ts'
import { defaultLaunch, mailFor, newLead } from './support/fixtures.ts'
import { runServerExpectingExit } from './support/node-server.ts'
import { startTestSmtp, type TestSmtp } from './support/smtp.ts'

// The outbox's sending pace (src/server/delivery/sending/send-pace.ts) against real receivers on 127.0.0.1:
// MAIL_RATE_PER_SECOND as the SMTP server counts it, a 421 that slows the whole worker down, Resend's 429 with
// Retry-After.

const dir = mkdtempSync(path.join(tmpdir(), 'vip-send-rate-'))
const cleanups: (() => Promise<unknown> | void)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

async function smtp(): Promise<TestSmtp> {
  const server = await startTestSmtp()
  cleanups.push(() => server.stop())
  return server
}

function smtpMailer(port: number, maxConnections = 8): Mailer {
  const mailer = createSmtpMailer({ url: `smtp://127.0.0.1:${port}`, from: 'no-reply@example.com', maxConnections })
  cleanups.push(() => mailer.close?.())
  return mailer
}

/** A SQLite store with `count` leads, each with its notification queued (distinct Message-IDs). */
async function queued(count: number): Promise<{ store: SqliteLeadStore; ids: string[] }> {
  const store = openSqliteStore(path.join(dir, `${crypto.randomUUID()}.sqlite`), { defaultLaunch })
  cleanups.push(() => store.close())
  const ids: string[] = []
  for (let i = 0; i < count; i++) {
    const lead = newLead({ createdAt: new Date().toISOString() })
    const mail = mailFor(lead)
    ids.push(mail.messageId)
    await store.saveLead(lead, mail)
  }
  return { store, ids }
}

function worker(options: Omit<OutboxWorkerOptions, 'log'>) {
  const w = createOutboxWorker({ retry: { minDelayMs: 50, maxDelayMs: 200 }, ...options, log: quiet })
  cleanups.push(() => w.stop())
  return w
}
const quiet = { info() {}, error() {} }

/** Runs the worker until `done`, then stops it. */
async function runUntil(w: ReturnType<typeof worker>, done: () => boolean, timeoutMs: number): Promise<void> {
  w.start(100)
  const end = Date.now() + timeoutMs
  while (!done()) {
    if (Date.now() > end) throw new Error('timed out waiting for every message')
    await new Promise((r) => setTimeout(r, 25))
  }
  await w.stop()
}

/** The most arrivals in any one-second window (sliding, from each arrival). */
function mostInOneSecond(times: number[]): number {
  const sorted = [...times].sort((a, b) => a - b)
  let most = 0
  for (let i = 0, j = 0; i < sorted.length; i++) {
    while (sorted[i]! - sorted[j]! >= 1000) j++
    most = Math.max(most, i - j + 1)
  }
  return most
}

describe('the send-rate cap (MAIL_RATE_PER_SECOND)', () => {
  it('never lets the SMTP server see more than 50 a second, and every message arrives once', async () => {
    const server = await smtp()
    const { store, ids } = await queued(250)
    const w = worker({ store, mailer: smtpMailer(server.port), ratePerSecond: 50 })
    const started = Date.now()
    await runUntil(w, () => server.received.length >= 250, 30_000)
    const seconds = (Date.now() - started) / 1000
    const got = server.received.map((m) => m.headers.get('message-id')?.[0])
    expect(got.sort()).toEqual([...ids].sort())
    // Any window of one second, not only the clock's seconds: the strictest reading of a provider's cap.
    const most = mostInOneSecond(server.received.map((m) => m.at))
    expect(most).toBeLessThanOrEqual(50)
    // Not slower than it must be: 250 at 50 a second is 5 s.
    expect(seconds).toBeLessThan(9)
    expect(await store.countMail()).toEqual({ pending: 0, sent: 250 })
    console.log(`250 messages at MAIL_RATE_PER_SECOND=50: ${seconds.toFixed(1)} s, at most ${most} in one second`)
  }, 60_000)

  it('spaces starts evenly and catches no late timer up with a burst', async () => {
    let now = 0
    const pace = createSendPace({ ratePerSecond: 4, now: () => now })
    const starts: number[] = []
    for (let i = 0; i < 4; i++) {
      const over = await pace.take()
      expect(over).toBeDefined()
      starts.push(now)
      over!(true)
      now += 400 // each turn comes late: the next one's is 250 ms after this one, not caught up with two at once
    }
    expect(starts).toEqual([0, 400, 800, 1200])
  })

  it('counts a send from its start to one second after its end, so slow answers cannot bunch up', async () => {
    let now = 0
    const pace = createSendPace({ ratePerSecond: 2, now: () => now })
    const first = await pace.take()
    now = 500
    const second = await pace.take()
    // Both still out (a slow receiver): a third must wait although the spacing (500 ms) allows it.
    now = 1000
    let third: ((ok: boolean) => void) | undefined
    void pace.take().then((over) => (third = over))
    await new Promise((r) => setTimeout(r, 30))
    expect(third).toBeUndefined()
    first!(true)
    second!(true)
    // Over at 1000: counted until 2000.
    now = 1999
    await new Promise((r) => setTimeout(r, 30))
    expect(third).toBeUndefined()
    now = 2000
    await new Promise((r) => setTimeout(r, 30))
    expect(third).toBeDefined()
  })
})

describe('a receiver that asks to slow down', () => {
  it('421 for its first second: the whole worker pauses, every message arrives once, no attempt counted', async () => {
    const server = await smtp()
    server.busyFor(1_000, 421)
    const { store, ids } = await queued(200)
    const w = worker({ store, mailer: smtpMailer(server.port) })
    await runUntil(w, () => server.received.length >= 200, 30_000)
    const got = server.received.map((m) => m.headers.get('message-id')?.[0])
    expect(got.sort()).toEqual([...ids].sort())
    // Without the pause each of the 200 would have met the busy server (they were all due, 8 at a time, about 3 ms
    // each): with it, only those in flight at the first 421, and a probe when each pause ends.
    expect(server.busyAnswers.length).toBeGreaterThan(0)
    expect(server.busyAnswers.length).toBeLessThan(30)
    // After the first 421 nothing was sent for the pause's second (those in flight may still have landed at once).
    const firstBusy = server.busyAnswers[0]!
    const accepted = server.received.map((m) => m.at).filter((t) => t > firstBusy + 100)
    expect(Math.min(...accepted) - firstBusy).toBeGreaterThanOrEqual(900)
    // Put off, not counted: each message sent at its first counted attempt; none failed.
    const messages = await store.listMessages({ limit: 500 })
    expect(messages.every((m) => m.status === 'sent' && m.attempts === 1)).toBe(true)
    console.log(`421 for 1 s: ${server.busyAnswers.length} busy answers for 200 messages`)
  }, 60_000)
})

/** A Resend-like API on 127.0.0.1: POST /emails; its first `busy` requests get 429 with Retry-After: 1. */
async function startResendLike(busy: number) {
  const calls: Array<{ at: number; key: string; status: number }> = []
  const server = createServer((req: IncomingMessage, res) => {
    let body = ''
    req.on('data', (c: Buffer) => (body += c.toString()))
    req.on('end', () => {
      const key = String(req.headers['idempotency-key'])
      const status = calls.filter((c) => c.status === 429).length < busy ? 429 : 200
      calls.push({ at: Date.now(), key, status })
      if (status === 429) {
        res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '1' })
        res.end(JSON.stringify({ name: 'rate_limit_exceeded', message: 'Too many requests' }))
        return
      }
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ id: crypto.randomUUID(), parsed: JSON.parse(body) !== null }))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  const port = typeof address === 'object' && address ? address.port : 0
  cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())))
  return { url: `http://127.0.0.1:${port}`, calls }
}

describe("Resend's 429", () => {
  it('honours Retry-After: nothing is sent for a second, then every message arrives once', async () => {
    const api = await startResendLike(3)
    const { store } = await queued(20)
    const mailer = createResendMailer({ apiKey: 're_test', from: 'no-reply@example.com', baseUrl: api.url })
    const w = worker({ store, mailer, concurrency: 4 })
    await runUntil(w, () => api.calls.filter((c) => c.status === 200).length >= 20, 30_000)
    const accepted = api.calls.filter((c) => c.status === 200)
    expect(new Set(accepted.map((c) => c.key)).size).toBe(20)
    expect(accepted).toHaveLength(20)
    const firstBusy = api.calls.find((c) => c.status === 429)!.at
    // Those already on their way when the first 429 came back may land at once; none started after it within 1 s.
    const startedAfter = api.calls.filter((c) => c.at > firstBusy + 100)
    expect(Math.min(...startedAfter.map((c) => c.at)) - firstBusy).toBeGreaterThanOrEqual(900)
    const messages = await store.listMessages({ limit: 100 })
    expect(messages.every((m) => m.status === 'sent' && m.attempts === 1)).toBe(true)
  }, 60_000)
})

describe('the settings', () => {
  it('reads MAIL_RATE_PER_SECOND, MAIL_CONCURRENCY and MAIL_WORKERS: no cap, 8 at once, workers by the cores', () => {
    const node = parseNodeEnv({ MAIL_RATE_PER_SECOND: '50', MAIL_CONCURRENCY: '4' })
    expect(node.ok && node.config.sending).toEqual({ ratePerSecond: 50, concurrency: 4 })
    const plain = parseNodeEnv({})
    expect(plain.ok && plain.config.sending).toEqual({ ratePerSecond: undefined, concurrency: 8 })
    expect(plain.ok && plain.config.mailWorkers).toBeUndefined()
    const three = parseNodeEnv({ MAIL_WORKERS: '3' })
    expect(three.ok && three.config.mailWorkers).toBe(3)
    for (const wrong of ['0', '1.5', '17', 'two']) {
      const refused = parseNodeEnv({ MAIL_WORKERS: wrong })
      expect(!refused.ok && refused.problems.join('\n')).toMatch(/MAIL_WORKERS .*whole number from 1 to 16/)
    }
    const edge = parseEdgeEnv({ MAIL_RATE_PER_SECOND: 'fast' })
    expect(!edge.ok && edge.problems.join('\n')).toContain('MAIL_RATE_PER_SECOND')
  })

  it('stops the server at start-up with a message naming the setting', async () => {
    const result = await runServerExpectingExit({
      DATA_DIR: path.join(dir, 'never'),
      MAIL_RATE_PER_SECOND: '0',
      MAIL_CONCURRENCY: 'many',
    })
    expect(result.code).toBe(1)
    expect(result.stderr).toContain('The server cannot start: 2 settings need fixing')
    expect(result.stderr).toMatch(/MAIL_RATE_PER_SECOND is "0".*greater than 0/)
    expect(result.stderr).toMatch(/MAIL_CONCURRENCY is "many".*whole number from 1 to 64/)
    expect(result.stdout).not.toContain('Listening on')
  }, 60_000)
})
