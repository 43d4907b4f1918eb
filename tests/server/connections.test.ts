import { mkdtempSync, rmSync } from 'node:fs'
import net from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { localAnonKey } from '../../schema/local-defaults.ts'
import { parseNodeEnv } from '../../src/server/env.ts'
import { startNodeServer } from '../../src/server/node.ts'
import type { ConnectionLimits, RunningServer } from '../../src/server/node-options.ts'
import { readPageConfig, registration } from './support/fixtures.ts'
import { writeDist } from './support/node-server.ts'

// The production limits are 10 s for headers and 30 s for a request; the same mechanism with short limits keeps the
// test fast.
const limits: Partial<ConnectionLimits> = { headersTimeoutMs: 1_500, requestTimeoutMs: 3_000, checkIntervalMs: 200 }
// How late a cut may come: Node's check interval, plus scheduling on a busy two-core machine.
const slackMs = 200 + 800

const root = mkdtempSync(path.join(tmpdir(), 'vip-conn-'))
let server: RunningServer
let host: string
let port: number

beforeAll(async () => {
  writeDist(path.join(root, 'dist'))
  // The server logs each stored lead, and each request body cut off mid-way.
  vi.spyOn(console, 'log').mockImplementation(() => {})
  vi.spyOn(console, 'error').mockImplementation(() => {})
  const settings = parseNodeEnv({
    HOST: '127.0.0.1',
    PORT: '0',
    DATA_DIR: path.join(root, 'data'),
    DIST_DIR: path.join(root, 'dist'),
    RATE_LIMIT_PER_MINUTE: '0',
  })
  if (!settings.ok) throw new Error(settings.problems.join('\n'))
  const config = readPageConfig()
  const launch = {
    slug: config.launch.slug,
    config,
    configFile: path.resolve('page.config.json'),
    publicDir: path.resolve('public'),
    isDefault: true,
  }
  server = await startNodeServer([launch], settings.config, root, { connections: limits })
  const url = new URL(server.url)
  host = url.hostname
  port = Number(url.port)
})

afterAll(async () => {
  await server?.close()
  vi.restoreAllMocks()
  rmSync(root, { recursive: true, force: true })
})

/** What a trickling client saw: how long the server let it stay, and what it answered. */
type Trickle = { heldMs: number; answer: string; bytesSent: number }

/**
 * Opens a raw connection, sends `prefix` at once, then `rest` one byte a second until the server closes the
 * connection (or 20 s pass, which fails the test).
 */
function trickle(prefix: string, rest: string): Promise<Trickle> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, host)
    const started = Date.now()
    let answer = ''
    let bytesSent = 0
    let timer: ReturnType<typeof setInterval> | undefined
    const giveUp = setTimeout(() => {
      socket.destroy()
      reject(new Error(`still connected after 20 s (sent ${bytesSent} bytes)`))
    }, 20_000)
    socket.on('connect', () => {
      socket.write(prefix)
      bytesSent += Buffer.byteLength(prefix)
      let i = 0
      timer = setInterval(() => {
        if (i < rest.length && !socket.destroyed) {
          socket.write(rest[i++]!)
          bytesSent += 1
        }
      }, 1_000)
    })
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString('latin1')))
    // A write racing the server's close may fail; the close that follows is what counts.
    socket.on('error', () => {})
    socket.on('close', () => {
      clearInterval(timer)
      clearTimeout(giveUp)
      resolve({ heldMs: Date.now() - started, answer, bytesSent })
    })
  })
}

async function registerNormally(): Promise<number> {
  const res = await fetch(`${server.url}/functions/v1/send-contact-email`, {
    method: 'POST',
    headers: { apikey: localAnonKey, 'content-type': 'application/json' },
    body: JSON.stringify(registration()),
  })
  await res.arrayBuffer()
  return res.status
}

describe('node entry: slow clients (slow-loris)', () => {
  it('cuts off headers sent a byte a second and bodies sent a byte a second, while registrations keep being answered', async () => {
    const body = JSON.stringify(registration())
    const headers =
      `POST /functions/v1/send-contact-email HTTP/1.1\r\nHost: ${host}:${port}\r\napikey: ${localAnonKey}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`
    const attack = Promise.all([
      ...Array.from({ length: 10 }, () => trickle(headers.slice(0, 1), headers.slice(1))),
      ...Array.from({ length: 10 }, () => trickle(headers, body)),
    ])

    // Normal visitors during the attack: every one is answered, promptly.
    const statuses: number[] = []
    const slowest: number[] = []
    let done = false
    void attack.finally(() => (done = true))
    while (!done) {
      const t = Date.now()
      statuses.push(await registerNormally())
      slowest.push(Date.now() - t)
      await new Promise((r) => setTimeout(r, 150))
    }
    const results = await attack
    const slowHeaders = results.slice(0, 10)
    const slowBodies = results.slice(10)

    for (const r of slowHeaders) {
      expect(r.answer).toMatch(/^HTTP\/1\.1 408 /)
      expect(r.heldMs).toBeGreaterThanOrEqual(limits.headersTimeoutMs! - 100)
      expect(r.heldMs).toBeLessThan(limits.headersTimeoutMs! + slackMs)
      expect(r.bytesSent).toBeLessThan(headers.length)
    }
    for (const r of slowBodies) {
      expect(r.answer).toMatch(/^HTTP\/1\.1 408 /)
      expect(r.heldMs).toBeGreaterThanOrEqual(limits.requestTimeoutMs! - 100)
      expect(r.heldMs).toBeLessThan(limits.requestTimeoutMs! + slackMs)
      expect(r.bytesSent).toBeLessThan(headers.length + body.length)
    }
    console.info(
      `slow headers cut after ${Math.min(...slowHeaders.map((r) => r.heldMs))}–${Math.max(...slowHeaders.map((r) => r.heldMs))} ms, ` +
        `slow bodies after ${Math.min(...slowBodies.map((r) => r.heldMs))}–${Math.max(...slowBodies.map((r) => r.heldMs))} ms; ` +
        `${statuses.length} registrations meanwhile, slowest ${Math.max(...slowest)} ms`,
    )
    expect(statuses.length).toBeGreaterThan(5)
    expect(statuses.every((s) => s === 200)).toBe(true)
  }, 30_000)
})
