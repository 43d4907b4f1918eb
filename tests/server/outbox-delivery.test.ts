import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { localAnonKey } from '../../schema/local-defaults.ts'
import { openSqliteStore } from '../../src/server/store/sqlite/sqlite-store.ts'
import type { MessageState } from '../../src/server/store/store.ts'
import { defaultLaunch, readPageConfig, registration } from './support/fixtures.ts'
import { startServerProcess, writeDist, type ServerProcess } from './support/node-server.ts'
import { freePort } from './support/ports.ts'
import { startTestSmtp, type TestSmtp } from './support/smtp.ts'
import { startTestReceiver, type TestReceiver } from './support/webhook-receiver.ts'

// The Node server as `npm start` runs it (a child process), with a real SMTP server and a real webhook receiver on
// 127.0.0.1: every message of a registration arrives once, through outages, refusals and a SIGKILL.

const root = mkdtempSync(path.join(tmpdir(), 'vip-outbox-'))
const distDir = path.join(root, 'dist')
writeDist(distDir)
// The built page inlines its stylesheet (allowed by hash in the CSP): the unsubscribe page reuses it.
const css = 'body{color:#1f3d2b}'
writeFileSync(
  path.join(distDir, readPageConfig().launch.slug, 'index.html'),
  `<!doctype html><title>Home</title><style>${css}</style><h1>Bramblewood Crossing</h1>`,
)
const secret = 'receiver-secret-0123456789abcdef'
const cleanups: (() => Promise<unknown> | void)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})
afterAll(() => rmSync(root, { recursive: true, force: true }))

async function smtp(port = 0): Promise<TestSmtp> {
  const server = await startTestSmtp(port)
  cleanups.push(() => server.stop())
  return server
}

async function receiver(port = 0): Promise<TestReceiver> {
  const r = await startTestReceiver(secret, port)
  cleanups.push(() => r.stop())
  return r
}

async function server(env: Record<string, string>): Promise<ServerProcess> {
  const s = await startServerProcess({
    DIST_DIR: distDir,
    RATE_LIMIT_PER_MINUTE: '0',
    NOTIFY_EMAIL: 'sales@example.com',
    ...env,
  })
  cleanups.push(() => s.stop('SIGKILL'))
  return s
}

function register(url: string, body = registration()) {
  return fetch(`${url}/functions/v1/send-contact-email`, {
    method: 'POST',
    headers: { apikey: localAnonKey, authorization: `Bearer ${localAnonKey}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
}

// The waits are long for what they wait on (under a second on a quiet machine): the delivery child process starts its
// own
// Node and TypeScript loader, which on a loaded CI machine has taken over 10 s before its first attempt.
async function until(check: () => boolean | Promise<boolean>, timeoutMs = 30_000, what = 'condition'): Promise<void> {
  const end = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 50))
  }
}

// The one launch these servers serve, live: /healthz counts launches and names none broken or unpublished.
const oneLaunch = { count: 1, broken: [], unpublished: [] }

async function health(url: string): Promise<{
  status: number
  body: { ok: boolean; database: string; outbox?: { pending: number; failed: number }; launches?: unknown }
}> {
  const res = await fetch(`${url}/healthz`)
  return { status: res.status, body: (await res.json()) as never }
}

/** The outbox rows of DATA_DIR, read beside the running server. */
async function messages(dataDir: string): Promise<MessageState[]> {
  const store = openSqliteStore(path.join(dataDir, 'leads.sqlite'), { readonly: true, defaultLaunch })
  try {
    return await store.listMessages({ limit: 10_000 })
  } finally {
    await store.close()
  }
}

function count<T>(items: T[]): Map<T, number> {
  const out = new Map<T, number>()
  for (const item of items) out.set(item, (out.get(item) ?? 0) + 1)
  return out
}

describe('outbox of the Node server (child process, SMTP and webhook receiver on 127.0.0.1)', () => {
  it('delivers the team notification, the reply and a signed webhook call, each exactly once', async () => {
    const mail = await smtp()
    const crm = await receiver()
    const dataDir = path.join(root, 'three')
    const s = await server({
      DATA_DIR: dataDir,
      SMTP_URL: `smtp://127.0.0.1:${mail.port}`,
      PUBLIC_URL: 'http://localhost',
      MAIL_FROM: 'Bramblewood <no-reply@example.com>',
      WEBHOOK_URL: crm.url,
      WEBHOOK_SECRET: secret,
    })
    expect(s.output()).toContain(`Mail: SMTP 127.0.0.1:${mail.port}, from Bramblewood <no-reply@example.com>`)
    expect(s.output()).toContain('Replies to registrants: on')
    expect(s.output()).toContain(`CRM webhook: on, to 127.0.0.1:${crm.port}`)

    const body = registration({ name: 'Jane <Doe>' })
    const id = String(body.submissionId)
    expect((await register(s.url, body)).status).toBe(200)
    await until(() => mail.received.length >= 2 && crm.calls.length >= 1, 30_000, 'three messages')
    await new Promise((r) => setTimeout(r, 500))

    expect(mail.received.map((m) => m.headers.get('message-id')?.[0]).sort()).toEqual([
      `<${id}.notification@example.com>`,
      `<${id}.reply@example.com>`,
    ])
    const notification = mail.received.find((m) => m.rcptTo[0] === 'sales@example.com')!
    expect(notification.decoded).toContain('Full Name: Jane <Doe>')
    const reply = mail.received.find((m) => m.rcptTo[0] === 'jane@example.com')!
    expect(reply.headers.get('from')).toEqual(['Bramblewood Crossing VIP Team <no-reply@example.com>'])
    expect(reply.headers.get('reply-to')).toEqual(['vip@example.com'])
    // A name with other characters than letters, spaces, ' and - is not copied into the reply (issue 21, item 2).
    expect(reply.decoded).toContain('Hi,')
    expect(reply.decoded).not.toContain('Doe')
    expect(reply.decoded).toContain('Harbourline Realty Inc., Brokerage')
    expect(reply.decoded).toContain('100 Example Street, Suite 200, Kestrel Falls, ON K0K 0A0')
    // The launch's documents, each a personal link of this registrant's (never a public address).
    expect(reply.decoded).toMatch(
      /- Price list: https:\/\/\S+\/send-contact-email\/documents\/price-list\?id=[0-9a-f-]+&exp=\d+&sig=[\w-]+/,
    )
    expect(reply.headers.get('list-unsubscribe-post')).toEqual(['List-Unsubscribe=One-Click'])
    const link =
      /^<(https:\/\/bramblewood\.example\.com\/functions\/v1\/send-contact-email\/unsubscribe\?id=[0-9a-f-]+&sig=[\w-]+)>$/.exec(
        reply.headers.get('list-unsubscribe')?.[0] ?? '',
      )?.[1]
    expect(link).toBeDefined()

    expect(crm.calls).toHaveLength(1)
    const call = crm.calls[0]!
    expect(call.signed).toBe(true)
    expect(call.headers['webhook-id']).toBe(id)
    expect(call.headers['content-type']).toBe('application/json')
    expect(JSON.parse(call.body)).toEqual({
      type: 'lead.created',
      timestamp: expect.any(String),
      data: expect.objectContaining({
        submissionId: id,
        site: 'Bramblewood Crossing',
        fields: { name: 'Jane <Doe>', email: 'jane@example.com', phone: '555-555-0100', isRealtor: 'no' },
      }),
    })
    expect((await messages(dataDir)).map((m) => [m.kind, m.status, m.attempts])).toEqual([
      ['notification', 'sent', 1],
      ['reply', 'sent', 1],
      ['webhook', 'sent', 1],
    ])
    expect(await health(s.url)).toEqual({
      status: 200,
      body: {
        ok: true,
        database: 'ok',
        outbox: { pending: 0, failed: 0, oldestPendingSeconds: 0 },
        launches: oneLaunch,
      },
    })

    // The link's page, in the site's look under the site's CSP: a GET records nothing.
    const target = new URL(link!)
    const page = await fetch(`${s.url}${target.pathname}${target.search}`)
    expect(page.status).toBe(200)
    const html = await page.text()
    expect(html).toContain(`<style>${css}</style>`)
    expect(html).not.toMatch(/<script/i)
    expect(html).toMatch(/<form method="post" action="\?id=[^"]+"><button type="submit"/)
    const hash = createHash('sha256').update(css).digest('base64')
    expect(page.headers.get('content-security-policy')).toContain(`'sha256-${hash}'`)
    expect(page.headers.get('content-security-policy')).toContain("form-action 'self'")
    const store = openSqliteStore(path.join(dataDir, 'leads.sqlite'), { readonly: true, defaultLaunch })
    expect((await store.listLeads(0, 10))[0]?.withdrawnAt).toBeUndefined()
    await store.close()
  }, 90_000)

  it('keeps the webhook call while the receiver is down and delivers it once when it is back', async () => {
    const mail = await smtp()
    const port = await freePort()
    const dataDir = path.join(root, 'receiver-down')
    const s = await server({
      DATA_DIR: dataDir,
      SMTP_URL: `smtp://127.0.0.1:${mail.port}`,
      PUBLIC_URL: 'http://localhost',
      MAIL_FROM: 'no-reply@example.com',
      WEBHOOK_URL: `http://127.0.0.1:${port}/hooks/leads`,
      WEBHOOK_SECRET: secret,
      WEBHOOK_RETRY_SECONDS: Array(10).fill('0.4').join(','),
    })
    const body = registration()
    expect((await register(s.url, body)).status).toBe(200)
    // Refused connections meanwhile: the call waits, retried, counted.
    await until(
      async () => ((await messages(dataDir)).find((m) => m.kind === 'webhook')?.attempts ?? 0) >= 2,
      30_000,
      'two failed attempts',
    )
    const waiting = (await messages(dataDir)).find((m) => m.kind === 'webhook')!
    expect(waiting.status).toBe('pending')
    expect(waiting.lastError).toContain(`The webhook at 127.0.0.1:${port} could not be reached: ECONNREFUSED`)
    expect((await health(s.url)).body.outbox).toEqual({
      pending: 1,
      failed: 0,
      oldestPendingSeconds: expect.any(Number),
    })

    const crm = await receiver(port)
    await until(() => crm.calls.length >= 1, 30_000, 'the webhook call')
    await new Promise((r) => setTimeout(r, 1_000))
    expect(crm.calls).toHaveLength(1)
    expect(crm.calls[0]!.signed).toBe(true)
    expect(crm.calls[0]!.headers['webhook-id']).toBe(String(body.submissionId))
    expect((await messages(dataDir)).find((m) => m.kind === 'webhook')).toMatchObject({
      status: 'sent',
      lastError: null,
    })
  }, 90_000)

  it('marks mail refused with 550 failed at once, shows it on /healthz, and npm run outbox:retry sends it', async () => {
    const mail = await smtp()
    mail.refuseAll(550)
    const dataDir = path.join(root, 'refused')
    const s = await server({
      DATA_DIR: dataDir,
      SMTP_URL: `smtp://127.0.0.1:${mail.port}`,
      PUBLIC_URL: 'http://localhost',
      MAIL_FROM: 'no-reply@example.com',
      MAIL_RETRY_MIN_SECONDS: '0.2',
    })
    const body = registration({ email: 'refused.person@example.com' })
    expect((await register(s.url, body)).status).toBe(200)
    await until(async () => (await health(s.url)).body.outbox?.failed === 2, 30_000, 'two failed messages')
    expect(await health(s.url)).toEqual({
      status: 200,
      body: {
        ok: true,
        database: 'ok',
        outbox: { pending: 0, failed: 2, oldestPendingSeconds: 0 },
        launches: oneLaunch,
      },
    })
    const failed = await messages(dataDir)
    expect(failed.map((m) => [m.kind, m.status, m.attempts])).toEqual([
      ['notification', 'failed', 1],
      ['reply', 'failed', 1],
    ])
    for (const m of failed) {
      expect(m.lastError).toMatch(/550/)
      expect(m.lastError).not.toContain('refused.person')
      expect(m.lastError).not.toContain('sales@example.com')
    }
    expect(s.output()).toContain('It stays in the outbox as failed: `npm run outbox:retry` sends it again.')
    expect(s.output()).not.toContain('refused.person@example.com')

    mail.refuseAll(undefined)
    const retry = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/outbox-retry.ts'], {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', DATA_DIR: dataDir },
      encoding: 'utf8',
      timeout: 30_000,
    })
    expect(retry.status).toBe(0)
    expect(retry.stdout).toContain('Put 2 failed messages back in the queue')
    expect(retry.stdout).toMatch(/1 × notification: .*550/)
    await until(() => mail.received.length >= 2, 30_000, 'the retried mail')
    await new Promise((r) => setTimeout(r, 500))
    expect(mail.received.map((m) => m.rcptTo[0]).sort()).toEqual(['refused.person@example.com', 'sales@example.com'])
    expect(await health(s.url)).toEqual({
      status: 200,
      body: {
        ok: true,
        database: 'ok',
        outbox: { pending: 0, failed: 0, oldestPendingSeconds: 0 },
        launches: oneLaunch,
      },
    })
  }, 90_000)

  it('after a SIGKILL mid-delivery, delivers every message, repeating at most the one in flight with the same id', async () => {
    const mail = await smtp()
    mail.delayEach(60)
    const crm = await receiver()
    const dataDir = path.join(root, 'killed')
    const env = {
      DATA_DIR: dataDir,
      SMTP_URL: `smtp://127.0.0.1:${mail.port}`,
      PUBLIC_URL: 'http://localhost',
      MAIL_FROM: 'no-reply@example.com',
      WEBHOOK_URL: crm.url,
      WEBHOOK_SECRET: secret,
    }
    const first = await server(env)
    const bodies = Array.from({ length: 15 }, (_, i) => registration({ email: `buyer${i}@example.com` }))
    for (const body of bodies) expect((await register(first.url, body)).status).toBe(200)
    // Kill it part-way through the 45 messages, while one is being sent.
    await until(() => mail.received.length >= 12, 40_000, 'a dozen messages')
    await first.stop('SIGKILL')
    const beforeRestart = mail.received.length + crm.calls.length
    expect(beforeRestart).toBeLessThan(45)

    const second = await server(env)
    await until(
      () =>
        new Set(mail.received.map((m) => m.headers.get('message-id')?.[0])).size === 30 &&
        new Set(crm.calls.map((c) => c.headers['webhook-id'])).size === 15,
      45_000,
      'every message',
    )
    await new Promise((r) => setTimeout(r, 500))

    const mailIds = count(mail.received.map((m) => m.headers.get('message-id')?.[0]))
    const hookIds = count(crm.calls.map((c) => String(c.headers['webhook-id'])))
    const expectedMail = bodies.flatMap((b) => [
      `<${String(b.submissionId)}.notification@example.com>`,
      `<${String(b.submissionId)}.reply@example.com>`,
    ])
    expect([...mailIds.keys()].sort()).toEqual(expectedMail.sort())
    expect([...hookIds.keys()].sort()).toEqual(bodies.map((b) => String(b.submissionId)).sort())
    const repeats = [...mailIds.values(), ...hookIds.values()].reduce((n, c) => n + c - 1, 0)
    expect(repeats).toBeLessThanOrEqual(1)
    expect(crm.calls.every((c) => c.signed)).toBe(true)
    expect(await health(second.url)).toEqual({
      status: 200,
      body: {
        ok: true,
        database: 'ok',
        outbox: { pending: 0, failed: 0, oldestPendingSeconds: 0 },
        launches: oneLaunch,
      },
    })
    console.log(`SIGKILL after ${beforeRestart} of 45 deliveries; repeated after restart: ${repeats}`)
  }, 120_000)
})
