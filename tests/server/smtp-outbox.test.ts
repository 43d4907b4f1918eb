import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import Database from 'better-sqlite3'
import { createServer } from 'node:http'
import nodemailer from 'nodemailer'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { createEmlMailer } from '../../src/server/delivery/mailers/eml-mailer.ts'
import type { Mailer } from '../../src/server/delivery/mailer.ts'
import { composeLeadMail } from '../../src/server/delivery/notification.ts'
import { createOutboxWorker, retryDelayMs } from '../../src/server/delivery/outbox.ts'
import { createSmtpMailer, toNodemailerMessage } from '../../src/server/delivery/mailers/smtp-mailer.ts'
import { openSqliteStore, type SqliteLeadStore } from '../../src/server/store/sqlite/sqlite-store.ts'
import type { OutgoingMail } from '../../src/server/store/store.ts'
import { createWebhookSender } from '../../src/server/delivery/webhook.ts'
import { defaultLaunch, newLead, readPageConfig } from './support/fixtures.ts'
import { freePort } from './support/ports.ts'
import { startTestSmtp, type TestSmtp } from './support/smtp.ts'

const page = readPageConfig()
const dir = mkdtempSync(path.join(tmpdir(), 'vip-smtp-'))
const from = 'Bramblewood Crossing <no-reply@example.com>'
const cleanups: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

async function smtp(port = 0): Promise<TestSmtp> {
  const server = await startTestSmtp(port)
  cleanups.push(() => server.stop())
  return server
}

function smtpMailer(port: number): Mailer {
  const mailer = createSmtpMailer({ url: `smtp://127.0.0.1:${port}`, from })
  cleanups.push(() => mailer.close?.())
  return mailer
}

function sqlite(): SqliteLeadStore {
  const store = openSqliteStore(path.join(dir, `${crypto.randomUUID()}.sqlite`), { defaultLaunch })
  cleanups.push(() => store.close())
  return store
}

function notification(overrides: Partial<Parameters<typeof newLead>[0]> = {}): OutgoingMail {
  return composeLeadMail(newLead(overrides), {
    siteName: page.site.name,
    brokerage: page.site.brokerage,
    recipient: 'sales@example.com',
    timeZone: 'America/Toronto',
    form: page.form,
  })
}

async function until(check: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > end) throw new Error('timed out waiting')
    await new Promise((r) => setTimeout(r, 25))
  }
}

describe('SMTP mailer (real smtp-server on 127.0.0.1)', () => {
  it('delivers the notification with its headers, text and HTML to the sales address only', async () => {
    const server = await smtp()
    const mail = notification({
      fields: { name: 'Jane <Doe>', email: 'jane@example.com', phone: '555-555-0100', isRealtor: 'yes' },
    })
    await smtpMailer(server.port).send(mail)
    expect(server.received).toHaveLength(1)
    const got = server.received[0]!
    expect(got.rcptTo).toEqual(['sales@example.com'])
    expect(got.mailFrom).toBe('no-reply@example.com')
    expect(got.headers.get('subject')).toEqual(['New registration for Bramblewood Crossing: Jane <Doe>'])
    expect(got.headers.get('reply-to')).toEqual(['jane@example.com'])
    expect(got.headers.get('message-id')).toEqual([mail.messageId])
    expect(got.decoded).toContain('Full Name: Jane <Doe>')
    expect(got.decoded).toContain('Are You A Realtor?: Yes')
    expect(got.decoded).toContain('Jane &lt;Doe&gt;')
    expect(got.raw).toMatch(/Content-Type: text\/html/)
  })

  it("sends nodemailer's own composition byte for byte (only the boundary and the Date differ per composition)", async () => {
    const server = await smtp()
    const mail: OutgoingMail = {
      ...notification({
        fields: { name: 'Zoë Ärger', email: 'zoe@example.com', phone: '555-555-0100', isRealtor: 'no' },
      }),
      fromName: 'Bramblewood « Sales »',
      headers: {
        'List-Unsubscribe': '<https://example.com/u/1>',
        'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
      },
      // A line that starts with a dot and one past 76 characters: SMTP's dot-stuffing and quoted-printable's breaks.
      text: `.hidden?\n${'long '.repeat(40)}\n`,
    }
    await smtpMailer(server.port).send(mail)
    const streamed = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'windows' })
    const expected = (await streamed.sendMail(toNodemailerMessage(mail, from))).message as Buffer
    const same = (raw: string) => raw.replace(/(_NmP-)[0-9a-f]+/g, '$1…').replace(/^Date: .*$/m, 'Date: …')
    expect(same(server.received[0]!.raw)).toBe(same(expected.toString('latin1')))
    expect(server.received[0]!.headers.get('list-unsubscribe-post')).toEqual(['List-Unsubscribe=One-Click'])
    expect(server.received[0]!.mailFrom).toBe('no-reply@example.com')
    expect(server.received[0]!.rcptTo).toEqual(['sales@example.com'])
  })

  it('lets no value add a header or a recipient, whatever reaches the mailer', async () => {
    const server = await smtp()
    const mailer = smtpMailer(server.port)
    const mail: OutgoingMail = {
      ...notification(),
      replyTo: 'x@example.com\r\nBcc: spy2@evil.example',
      subject: 'Hello\r\nBcc: spy3@evil.example\r\nX-Injected: yes',
    }
    await mailer.send(mail)
    await expect(mailer.send({ ...mail, to: 'sales@example.com\r\nBcc: spy@evil.example' })).rejects.toThrow(
      /not one plain e-mail address/,
    )
    await expect(mailer.send({ ...mail, to: 'sales@example.com, spy@evil.example' })).rejects.toThrow(
      /not one plain e-mail address/,
    )
    expect(server.received).toHaveLength(1)
    const got = server.received[0]!
    expect(got.rcptTo).toEqual(['sales@example.com'])
    expect(got.headers.has('bcc')).toBe(false)
    expect(got.headers.has('x-injected')).toBe(false)
    expect(got.headers.has('reply-to')).toBe(false)
    expect(got.headers.get('subject')).toEqual(['Hello Bcc: spy3@evil.example X-Injected: yes'])
  })
})

describe('outbox worker', () => {
  it('backs off exponentially up to the cap', () => {
    const policy = { minDelayMs: 30_000, maxDelayMs: 3_600_000 }
    expect([0, 1, 2, 3, 10].map((n) => retryDelayMs(n, policy))).toEqual([30_000, 60_000, 120_000, 240_000, 3_600_000])
    expect(retryDelayMs(0, policy, 0.2, () => 1)).toBe(36_000)
  })

  it('keeps every notification through an SMTP outage and delivers each once when SMTP returns', async () => {
    const port = await freePort()
    const store = sqlite()
    let now = new Date('2025-06-01T15:00:00.000Z')
    const worker = createOutboxWorker({
      store,
      mailer: smtpMailer(port),
      clock: () => now,
      retry: { minDelayMs: 30_000, maxDelayMs: 600_000 },
      jitter: 0,
      log: { info() {}, error() {} },
    })
    const ids: string[] = []
    for (let i = 0; i < 5; i++) {
      const lead = newLead({ createdAt: now.toISOString() })
      ids.push(lead.submissionId)
      await store.saveLead(lead, notification({ submissionId: lead.submissionId }))
    }

    // SMTP is down: every attempt fails, nothing is lost, each waits 30 s, then 60 s.
    expect(await worker.deliverDue()).toEqual({ sent: 0, failed: 5 })
    expect(await store.countMail()).toEqual({ pending: 5, sent: 0 })
    now = new Date(now.getTime() + 29_000)
    expect(await worker.deliverDue()).toEqual({ sent: 0, failed: 0 })
    now = new Date(now.getTime() + 1_000)
    expect(await worker.deliverDue()).toEqual({ sent: 0, failed: 5 })
    now = new Date(now.getTime() + 59_000)
    expect(await worker.deliverDue()).toEqual({ sent: 0, failed: 0 })

    // SMTP is back: the next due run delivers all of them, once.
    const server = await smtp(port)
    now = new Date(now.getTime() + 1_000)
    expect(await worker.deliverDue()).toEqual({ sent: 5, failed: 0 })
    expect(await worker.deliverDue()).toEqual({ sent: 0, failed: 0 })
    expect(await store.countMail()).toEqual({ pending: 0, sent: 5 })
    const received = server.received.map((m) => m.headers.get('message-id')?.[0])
    expect(received.sort()).toEqual(ids.map((id) => `<${id}.notification@example.com>`).sort())
  })

  it('retries a message the server refused for now (451)', async () => {
    const server = await smtp()
    server.refuseNext(1)
    const store = sqlite()
    let now = new Date('2025-06-01T15:00:00.000Z')
    const worker = createOutboxWorker({
      store,
      mailer: smtpMailer(server.port),
      clock: () => now,
      jitter: 0,
      log: { info() {}, error() {} },
    })
    const lead = newLead({ createdAt: now.toISOString() })
    await store.saveLead(lead, notification({ submissionId: lead.submissionId }))
    expect(await worker.deliverDue()).toEqual({ sent: 0, failed: 1 })
    now = new Date(now.getTime() + 30_000)
    expect(await worker.deliverDue()).toEqual({ sent: 1, failed: 0 })
    expect(server.received).toHaveLength(1)
  })

  // A 450 (the mailbox busy) is the message's own failure, counted; a 421 or 451 is the server's pace, not counted
  // (send-rate.test.ts).
  it('keeps retrying a message the server defers (450), and marks it failed after the last allowed attempt', async () => {
    const server = await smtp()
    server.refuseAll(450)
    const store = sqlite()
    let now = new Date('2025-06-01T15:00:00.000Z')
    const retry = { minDelayMs: 1_000, maxDelayMs: 1_000, maxAttempts: 3 }
    const worker = createOutboxWorker({
      store,
      mailer: smtpMailer(server.port),
      clock: () => now,
      retry,
      jitter: 0,
      log: { info() {}, error() {} },
    })
    const lead = newLead({ createdAt: now.toISOString() })
    await store.saveLead(lead, notification({ submissionId: lead.submissionId }))
    for (let attempt = 1; attempt <= 3; attempt++) {
      expect(await worker.deliverDue()).toEqual({ sent: 0, failed: 1 })
      expect(await store.countMessages()).toMatchObject(
        attempt < 3 ? { pending: 1, failed: 0 } : { pending: 0, failed: 1 },
      )
      now = new Date(now.getTime() + 1_000)
    }
    expect(await worker.deliverDue()).toEqual({ sent: 0, failed: 0 })
    const [failed] = await store.listMessages({ status: 'failed', limit: 10 })
    expect(failed).toMatchObject({ kind: 'notification', attempts: 3 })
    expect(failed?.lastError).toMatch(/450/)
    expect(failed?.lastError).not.toContain('sales@example.com')
  })

  it('gives a webhook call up at once on a 4xx answer, and retries 408, 429, 5xx', async () => {
    const answers: number[][] = [
      [500, 429, 408, 204],
      [410, 204],
    ]
    const ids: string[] = []
    const receiver = createServer((req, res) => {
      req.resume()
      req.on('end', () => res.writeHead(answers[ids.indexOf(String(req.headers['webhook-id']))]?.shift() ?? 500).end())
    })
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve))
    cleanups.push(() => new Promise<void>((resolve) => receiver.close(() => resolve())))
    const address = receiver.address()
    const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/hook`
    const store = sqlite()
    let now = new Date('2025-06-01T15:00:00.000Z')
    const worker = createOutboxWorker({
      store,
      mailer: { send: async () => {} },
      webhook: createWebhookSender({ url, secret: 'a-secret-of-sixteen-chars', clock: () => now }),
      clock: () => now,
      webhookDelaysMs: [1_000, 1_000, 1_000, 1_000, 1_000],
      jitter: 0,
      log: { info() {}, error() {} },
    })
    for (const _ of [0, 1]) {
      const lead = newLead({ createdAt: now.toISOString() })
      ids.push(lead.submissionId)
      await store.saveLead(lead, notification({ submissionId: lead.submissionId }), [
        { kind: 'webhook', webhook: { id: lead.submissionId, body: '{}' } },
      ])
    }
    // First lead: 500, 429, 408 are retried, then 204. Second lead: 410 ends it.
    for (let i = 0; i < 5; i++) {
      await worker.deliverDue()
      now = new Date(now.getTime() + 1_000)
    }
    const hooks = (await store.listMessages({ limit: 10 })).filter((m) => m.kind === 'webhook')
    expect(hooks.map((m) => [m.status, m.attempts])).toEqual([
      ['sent', 4],
      ['failed', 1],
    ])
    expect(hooks[1]?.lastError).toContain('answered 410')
  })

  it('upgrades a database of the first shape: old notifications kept, pending, as notifications', async () => {
    const file = path.join(dir, `${crypto.randomUUID()}.sqlite`)
    const old = new Database(file)
    old.exec(`CREATE TABLE leads (id INTEGER PRIMARY KEY, submission_id TEXT NOT NULL UNIQUE, created_at TEXT NOT NULL, fields TEXT NOT NULL,
      consent_text TEXT NOT NULL, page_url TEXT, referrer TEXT, utm TEXT NOT NULL DEFAULT '{}', user_agent TEXT);
      CREATE TABLE outbox (id INTEGER PRIMARY KEY, lead_id INTEGER NOT NULL REFERENCES leads(id), recipient TEXT NOT NULL, mail TEXT NOT NULL,
      status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sent')), attempts INTEGER NOT NULL DEFAULT 0,
      next_attempt_at TEXT NOT NULL, locked_until TEXT, last_error TEXT, created_at TEXT NOT NULL, sent_at TEXT);
      INSERT INTO leads VALUES (1, 'b1c2d3e4-0000-4000-8000-000000000001', '2025-06-01T14:00:00.000Z', '{"email":"a@example.com"}', 'ok', NULL, NULL, '{}', NULL);
      INSERT INTO outbox VALUES (7, 1, 'sales@example.com', '${JSON.stringify(notification())}', 'pending', 2, '2025-06-01T14:00:00.000Z', NULL, 'x', '2025-06-01T14:00:00.000Z', NULL);
      PRAGMA user_version = 1;`)
    old.close()
    const store = openSqliteStore(file, { defaultLaunch })
    cleanups.push(() => store.close())
    const [job] = await store.claimDueMail(new Date('2025-06-01T15:00:00.000Z'), 10, 1000)
    expect(job).toMatchObject({ id: 7, kind: 'notification', attempts: 2, withdrawn: false })
    expect(
      (await store.withdrawLead('b1c2d3e4-0000-4000-8000-000000000001', new Date('2025-06-02T00:00:00.000Z')))?.already,
    ).toBe(false)
  })

  it('sends each notification once however often it is woken', async () => {
    const server = await smtp()
    const store = sqlite()
    const worker = createOutboxWorker({ store, mailer: smtpMailer(server.port), log: { info() {}, error() {} } })
    for (let i = 0; i < 30; i++) {
      const lead = newLead({ createdAt: new Date().toISOString() })
      await store.saveLead(lead, notification({ submissionId: lead.submissionId }))
      worker.kick()
    }
    worker.start(50)
    cleanups.push(() => worker.stop())
    await until(async () => (await store.countMail()).sent === 30)
    await new Promise((r) => setTimeout(r, 200))
    expect(server.received).toHaveLength(30)
    expect(new Set(server.received.map((m) => m.headers.get('message-id')?.[0])).size).toBe(30)
  })

  it('marks a group sent once the store takes the write again, and never sends it twice', async () => {
    const server = await smtp()
    const store = sqlite()
    for (let i = 0; i < 40; i++) {
      const lead = newLead({ createdAt: new Date().toISOString() })
      await store.saveLead(lead, notification({ submissionId: lead.submissionId }))
    }
    // The store refuses the first two marks as SQLite does when another writer holds its lock past the busy timeout.
    let refusals = 2
    const markMailSent: typeof store.markMailSent = (ids, now) => {
      if (refusals-- > 0) return Promise.reject(Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' }))
      return store.markMailSent(ids, now)
    }
    const worker = createOutboxWorker({
      store: { ...store, markMailSent },
      mailer: smtpMailer(server.port),
      log: { info() {}, error() {} },
    })
    cleanups.push(() => worker.stop())
    expect(await worker.deliverDue()).toEqual({ sent: 40, failed: 0 })
    expect(await store.countMail()).toEqual({ pending: 0, sent: 40 })
    // Claims of a killed run lapse: even then nothing is left to send again.
    expect(await store.claimDueMail(new Date(Date.now() + 3_600_000), 100, 1000)).toEqual([])
    expect(server.received).toHaveLength(40)
  })

  it('delivers a message stored just as a run ends, with no poll to catch it (as on the edge function)', async () => {
    const server = await smtp()
    const store = sqlite()
    const lead = newLead({ createdAt: new Date().toISOString() })
    await store.saveLead(lead, notification({ submissionId: lead.submissionId }))
    // The run's last look finds nothing (the message is hidden from it, as if stored a moment later); the wake-up for
    // the message comes after that look but before the run has closed: a microtask after the run's own continuation.
    let looks = 0
    const claimDueMail: typeof store.claimDueMail = (...args) => {
      looks += 1
      if (looks > 1) return store.claimDueMail(...args)
      const none = Promise.resolve([])
      void none.then(() => Promise.resolve().then(() => void worker.deliverDue()))
      return none
    }
    const worker = createOutboxWorker({
      store: { ...store, claimDueMail },
      mailer: smtpMailer(server.port),
      log: { info() {}, error() {} },
    })
    cleanups.push(() => worker.stop())
    expect(await worker.deliverDue()).toEqual({ sent: 0, failed: 0 })
    await until(async () => (await store.countMail()).sent === 1, 5_000)
    expect(server.received).toHaveLength(1)
    expect(looks).toBeGreaterThan(1)
  })
})

describe('.eml outbox mailer', () => {
  it('writes one RFC 822 file per notification, and a re-send replaces it', async () => {
    const outbox = path.join(dir, `outbox-${crypto.randomUUID()}`)
    const mailer = createEmlMailer({ dir: outbox, from })
    const mail = notification()
    await mailer.send(mail)
    await mailer.send(mail)
    const files = readdirSync(outbox)
    expect(files).toHaveLength(1)
    const text = readFileSync(path.join(outbox, files[0]!), 'utf8')
    expect(text).toContain(`Message-ID: ${mail.messageId}`)
    expect(text).toContain('To: sales@example.com')
    expect(text).toContain('Subject: New registration for Bramblewood Crossing: Jane Doe')
    expect(text).toMatch(/\r\n\r\n/)
  })
})
