import { mkdtempSync, rmSync } from 'node:fs'
import { Agent, request } from 'node:http'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { localAnonKey } from '../../schema/local-defaults.ts'
import { openSqliteStore } from '../../src/server/store/sqlite/sqlite-store.ts'
import { defaultLaunch, registration } from './support/fixtures.ts'
import { startServerProcess, writeDist, type ServerProcess } from './support/node-server.ts'

// Malformed and hostile bodies against the real Node server over HTTP: each gets a 4xx with a plain message,
// nothing is stored, and the server keeps answering.
const root = mkdtempSync(path.join(tmpdir(), 'vip-malformed-'))
const dataDir = path.join(root, 'data')
let server: ServerProcess

beforeAll(async () => {
  writeDist(path.join(root, 'dist'))
  server = await startServerProcess({
    DATA_DIR: dataDir,
    DIST_DIR: path.join(root, 'dist'),
    RATE_LIMIT_PER_MINUTE: '0',
  })
})
afterAll(async () => {
  await server?.stop('SIGTERM')
  rmSync(root, { recursive: true, force: true })
})

type Answer = { status: number; body: Record<string, unknown>; raw: string }

/** Sends raw bytes with node:http, so nothing (length, encoding) is fixed up on the way. */
function send(
  body: string | Buffer,
  headers: Record<string, string> = {},
  chunked = false,
  agent: Agent | false = false,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${server.url}/functions/v1/send-contact-email`,
      {
        method: 'POST',
        agent,
        headers: {
          apikey: localAnonKey,
          'content-type': 'application/json',
          ...(chunked ? { 'transfer-encoding': 'chunked' } : { 'content-length': String(Buffer.byteLength(body)) }),
          ...headers,
        },
      },
      (res) => {
        let raw = ''
        res.on('data', (c: Buffer) => (raw += c.toString()))
        res.on('end', () => {
          let parsed: Record<string, unknown> = {}
          try {
            parsed = JSON.parse(raw) as Record<string, unknown>
          } catch {
            parsed = {}
          }
          resolve({ status: res.statusCode ?? 0, body: parsed, raw })
        })
      },
    )
    // The server may answer 413 and stop reading before the whole body is sent: writing then fails, but the
    // answer has arrived (or arrives) all the same.
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE' && error.code !== 'ECONNRESET') reject(error)
      else setTimeout(() => reject(new Error(`no answer after ${error.code}`)), 5000).unref()
    })
    if (chunked && typeof body === 'string') {
      for (let i = 0; i < body.length; i += 64 * 1024) req.write(body.slice(i, i + 64 * 1024))
      req.end()
    } else {
      req.end(body)
    }
  })
}

async function storedCount(): Promise<number> {
  const store = openSqliteStore(path.join(dataDir, 'leads.sqlite'), { readonly: true, defaultLaunch })
  try {
    return (await store.listLeads(0, 100_000)).length
  } finally {
    await store.close()
  }
}

const twoMegabytes = 'x'.repeat(2 * 1024 * 1024)

describe('malformed bodies over HTTP', () => {
  it.each<[string, () => Promise<Answer>, number, string | RegExp]>([
    ['not JSON', () => send('name=Jane&email=jane@example.com'), 400, 'The request body is not valid JSON.'],
    ['truncated JSON', () => send('{"name":"Jane",'), 400, 'The request body is not valid JSON.'],
    [
      'invalid UTF-8',
      () => send(Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d])),
      400,
      'The request body is not valid UTF-8 text.',
    ],
    ['JSON null', () => send('null'), 400, 'The request body must be a JSON object of form fields.'],
    [
      'wrong types',
      () => send(JSON.stringify(registration({ name: ['Jane'], email: 5, phone: { n: 1 }, isRealtor: false }))),
      400,
      'Some fields need attention.',
    ],
    [
      'CRLF in a field',
      () => send(JSON.stringify(registration({ name: 'Eve\r\nBcc: spy@evil.example' }))),
      400,
      'Some fields need attention.',
    ],
    [
      'CRLF in the phone',
      () => send(JSON.stringify(registration({ phone: '555\r\n0100 x' }))),
      400,
      'Some fields need attention.',
    ],
    [
      'a __proto__ key',
      () => send('{"__proto__":{"isAdmin":true},"name":"Jane"}'),
      400,
      'The request body contains a key that is not allowed: "__proto__".',
    ],
    [
      'a nested __proto__ key',
      () => send(JSON.stringify({ ...registration(), utm: JSON.parse('{"__proto__":{"x":1}}') })),
      400,
      /"__proto__"/,
    ],
    [
      'a 2 MB string',
      () => send(JSON.stringify(registration({ name: twoMegabytes }))),
      413,
      /too large: at most 16384 bytes/,
    ],
    [
      'a 2 MB string, chunked (no length given)',
      () => send(JSON.stringify(registration({ name: twoMegabytes })), {}, true),
      413,
      /too large/,
    ],
    ['a 20 KB string', () => send(JSON.stringify(registration({ phone: 'x'.repeat(20_000) }))), 413, /too large/],
    [
      'a 10 KB name (under the limit)',
      () => send(JSON.stringify(registration({ name: 'x'.repeat(10_000) }))),
      400,
      'Some fields need attention.',
    ],
    [
      'deep nesting',
      () => send(`${'['.repeat(5000)}${']'.repeat(5000)}`),
      400,
      'The request body is nested too deeply.',
    ],
    [
      'deep nesting in an object',
      () => send(`{"utm":${'{"a":'.repeat(100)}1${'}'.repeat(100)}}`),
      400,
      'The request body is nested too deeply.',
    ],
    [
      'the wrong content type',
      () => send(JSON.stringify(registration()), { 'content-type': 'text/plain' }),
      415,
      /JSON/,
    ],
    ['no API key', () => send(JSON.stringify(registration()), { apikey: '' }), 401, /API key/],
  ])('%s', async (_, attempt, status, message) => {
    const before = await storedCount()
    const answer = await attempt()
    expect(answer.status).toBe(status)
    expect(answer.body.error).toEqual(typeof message === 'string' ? message : expect.stringMatching(message))
    expect(answer.raw).not.toMatch(/\bat .+:\d+:\d+/)
    expect(await storedCount()).toBe(before)
  })

  it('gives the field messages for wrong types and CRLF', async () => {
    const wrong = await send(JSON.stringify(registration({ name: ['Jane'], isRealtor: false })))
    expect(wrong.body.errors).toEqual({ name: 'must be string', isRealtor: 'must be string' })
    const crlf = await send(JSON.stringify(registration({ name: 'Eve\r\nBcc: spy@evil.example' })))
    expect(crlf.body.errors).toEqual({ name: 'Remove the invisible or control characters' })
  })

  it('closes a connection whose body it refused, so a keep-alive client does not reuse it', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 })
    try {
      const refused = await send(JSON.stringify(registration({ name: twoMegabytes })), {}, true, agent)
      expect(refused.status).toBe(413)
      const next = await send(JSON.stringify(registration()), {}, false, agent)
      expect(next.status).toBe(200)
    } finally {
      agent.destroy()
    }
  })

  it('keeps answering afterwards, and stores what is valid', async () => {
    const before = await storedCount()
    const ok = await send(JSON.stringify(registration()))
    expect(ok.status).toBe(200)
    expect(ok.body).toEqual({ ok: true })
    expect(await storedCount()).toBe(before + 1)
    expect((await fetch(`${server.url}/`)).status).toBe(200)
  })
})
