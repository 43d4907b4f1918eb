import { createServer, type IncomingMessage, type Server } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createResendMailer } from '../../src/server/delivery/mailers/resend-mailer.ts'
import type { OutgoingMail } from '../../src/server/store/store.ts'

/** A stand-in for api.resend.com on 127.0.0.1: records each call and answers with the next queued status. */
type Call = { method: string; url: string; headers: IncomingMessage['headers']; body: Record<string, unknown> }
const calls: Call[] = []
const statuses: number[] = []
let server: Server
let baseUrl = ''

beforeAll(async () => {
  server = createServer((req, res) => {
    let data = ''
    req.on('data', (c: Buffer) => (data += c.toString('utf8')))
    req.on('end', () => {
      calls.push({
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: JSON.parse(data || '{}') as Record<string, unknown>,
      })
      const status = statuses.shift() ?? 200
      res.writeHead(status, { 'content-type': 'application/json' })
      res.end(status === 200 ? '{"id":"email_1"}' : '{"name":"rate_limit_exceeded","message":"Too many requests"}')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  baseUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`
})
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

const mail: OutgoingMail = {
  to: 'sales@example.com',
  replyTo: 'jane@example.com',
  subject: 'New registration for Bramblewood Crossing: Jane',
  text: 'Full Name: Jane',
  html: '<p>Full Name: Jane</p>',
  messageId: '<lead.1@example.com>',
  idempotencyKey: '1.notification',
}

describe('Resend mailer', () => {
  it('posts the message to /emails with the API key and the idempotency key', async () => {
    const mailer = createResendMailer({ apiKey: 're_test_123', from: 'Site <no-reply@example.com>', baseUrl })
    await mailer.send(mail)
    const call = calls.at(-1)!
    expect(call.method).toBe('POST')
    expect(call.url).toBe('/emails')
    expect(call.headers.authorization).toBe('Bearer re_test_123')
    expect(call.headers['idempotency-key']).toBe('1.notification')
    expect(call.body).toEqual({
      from: 'Site <no-reply@example.com>',
      to: ['sales@example.com'],
      subject: mail.subject,
      text: mail.text,
      html: mail.html,
      reply_to: 'jane@example.com',
      headers: { 'Message-ID': '<lead.1@example.com>' },
    })
  })

  it('fails (so the outbox retries) when Resend does not accept the message', async () => {
    statuses.push(429)
    const mailer = createResendMailer({ apiKey: 're_test_123', from: 'Site <no-reply@example.com>', baseUrl })
    await expect(mailer.send(mail)).rejects.toThrow(/Resend answered 429.*Too many requests/)
  })

  it('fails when Resend cannot be reached', async () => {
    const mailer = createResendMailer({
      apiKey: 're_test_123',
      from: 'a@example.com',
      baseUrl: 'http://127.0.0.1:9',
      timeoutMs: 2000,
    })
    await expect(mailer.send(mail)).rejects.toThrow()
  })
})
