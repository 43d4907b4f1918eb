import { mkdtempSync, rmSync } from 'node:fs'
import { request } from 'node:http'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { localAnonKey } from '../../schema/local-defaults.ts'
import { platformClientAddress, rateLimitKey } from '../../src/server/registration/client-address.ts'
import { createForwardedAddress } from '../../src/server/registration/forwarded-address.ts'
import { registration } from './support/fixtures.ts'
import { startServerProcess, writeDist } from './support/node-server.ts'

// Who the visitor is, for the rate limit: never an address the client wrote itself.

const peer = (remoteAddress: string, forwardedFor?: string) => ({
  headers: forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor },
  socket: { remoteAddress },
})

describe('createForwardedAddress', () => {
  it('takes the address the trusted proxy appended, not the ones the client wrote before it', () => {
    const visitor = createForwardedAddress({ hops: 1, ranges: ['loopback'] })
    expect(visitor(peer('127.0.0.1', '6.6.6.6, 203.0.113.7'))).toBe('203.0.113.7')
    expect(visitor(peer('127.0.0.1', '7.7.7.7, 203.0.113.7'))).toBe('203.0.113.7')
  })

  it('with fewer entries than trusted hops, takes the one a proxy wrote, never falls back to the leftmost', () => {
    const visitor = createForwardedAddress({ hops: 2, ranges: ['loopback', '10.0.0.0/8'] })
    expect(visitor(peer('127.0.0.1', '203.0.113.7'))).toBe('203.0.113.7')
    // The second proxy (10.0.0.5) is trusted too: the visitor is what it saw, whatever the client wrote first.
    expect(visitor(peer('127.0.0.1', '6.6.6.6, 203.0.113.7, 10.0.0.5'))).toBe('203.0.113.7')
    // Without the header at all: the peer.
    expect(visitor(peer('127.0.0.1'))).toBe('127.0.0.1')
  })

  it('ignores the header from a peer that is not a trusted proxy', () => {
    const visitor = createForwardedAddress({ hops: 1, ranges: ['10.0.0.1'] })
    expect(visitor(peer('198.51.100.4', '203.0.113.7'))).toBe('198.51.100.4')
    expect(visitor(peer('10.0.0.1', '203.0.113.7'))).toBe('203.0.113.7')
  })

  it('ignores the header altogether when no proxy is trusted', () => {
    expect(createForwardedAddress({ hops: 0, ranges: ['loopback'] })(peer('127.0.0.1', '203.0.113.7'))).toBe(
      '127.0.0.1',
    )
  })
})

describe('rateLimitKey', () => {
  it('groups IPv6 visitors by /64 and keeps IPv4 (mapped or not) as it is', () => {
    expect(rateLimitKey('2001:db8:1:2::1')).toBe('2001:db8:1:2::/64')
    expect(rateLimitKey('2001:0db8:0001:0002:abcd:1:2:3')).toBe('2001:db8:1:2::/64')
    expect(rateLimitKey('2001:db8:1:3::1')).not.toBe(rateLimitKey('2001:db8:1:2::1'))
    expect(rateLimitKey('::ffff:203.0.113.7')).toBe('203.0.113.7')
    expect(rateLimitKey('203.0.113.7')).toBe('203.0.113.7')
    expect(rateLimitKey('unknown')).toBe('unknown')
  })
})

describe('platformClientAddress', () => {
  it('reads one valid address from the platform header, and nothing else', () => {
    expect(platformClientAddress(new Headers({ 'cf-connecting-ip': '203.0.113.7' }), 'cf-connecting-ip')).toBe(
      '203.0.113.7',
    )
    expect(
      platformClientAddress(new Headers({ 'cf-connecting-ip': '6.6.6.6, 203.0.113.7' }), 'cf-connecting-ip'),
    ).toBeUndefined()
    expect(platformClientAddress(new Headers({ 'cf-connecting-ip': 'evil' }), 'cf-connecting-ip')).toBeUndefined()
    expect(platformClientAddress(new Headers(), 'cf-connecting-ip')).toBeUndefined()
  })
})

describe('the Node server behind a proxy (TRUST_PROXY=true)', () => {
  const root = mkdtempSync(path.join(tmpdir(), 'vip-proxy-'))
  const distDir = path.join(root, 'dist')
  writeDist(distDir)
  afterAll(() => rmSync(root, { recursive: true, force: true }))

  /** One registration sent from a given local address (127.0.0.2 plays the proxy), with an X-Forwarded-For. */
  function registerFrom(url: string, localAddress: string, forwardedFor: string): Promise<number> {
    const body = JSON.stringify(registration())
    return new Promise((resolve, reject) => {
      const req = request(`${url}/functions/v1/send-contact-email`, {
        method: 'POST',
        localAddress,
        agent: false,
        headers: {
          apikey: localAnonKey,
          'content-type': 'application/json',
          'x-forwarded-for': forwardedFor,
          'content-length': Buffer.byteLength(body),
        },
      })
      req.on('response', (res) => {
        res.resume()
        res.on('end', () => resolve(res.statusCode ?? 0))
      })
      req.on('error', reject)
      req.end(body)
    })
  }

  it('gives 429 at the sixth registration whether or not the client rotates X-Forwarded-For', async () => {
    const server = await startServerProcess({
      DATA_DIR: path.join(root, 'data'),
      DIST_DIR: distDir,
      TRUST_PROXY: 'true',
      TRUSTED_PROXIES: '127.0.0.2',
      RATE_LIMIT_PER_MINUTE: '5',
      HOST: '127.0.0.1',
    })
    try {
      // A client reaching the port directly (127.0.0.1 is no trusted proxy) writes its own, rotating header.
      const direct: number[] = []
      for (let i = 0; i < 7; i++) direct.push(await registerFrom(server.url, '127.0.0.1', `198.51.100.${i}`))
      expect(direct).toEqual([200, 200, 200, 200, 200, 429, 429])
      // Through the proxy (127.0.0.2), which appends what it saw: the same visitor however the client rotates.
      const proxied: number[] = []
      for (let i = 0; i < 7; i++)
        proxied.push(await registerFrom(server.url, '127.0.0.2', `198.51.100.${i}, 203.0.113.7`))
      expect(proxied).toEqual([200, 200, 200, 200, 200, 429, 429])
      // Another visitor through the same proxy has a limit of its own.
      expect(await registerFrom(server.url, '127.0.0.2', '203.0.113.8')).toBe(200)
    } finally {
      await server.stop('SIGTERM')
    }
  })

  it('listens on 127.0.0.1 by default behind a proxy, and says so when HOST opens the port to the world', async () => {
    const local = await startServerProcess({
      DATA_DIR: path.join(root, 'local'),
      DIST_DIR: distDir,
      TRUST_PROXY: 'true',
      HOST: '',
    })
    try {
      expect(local.url).toMatch(/^http:\/\/127\.0\.0\.1:/)
      expect(local.output()).not.toMatch(/Warning/)
    } finally {
      await local.stop('SIGTERM')
    }
    const open = await startServerProcess({
      DATA_DIR: path.join(root, 'open'),
      DIST_DIR: distDir,
      TRUST_PROXY: 'true',
      HOST: '0.0.0.0',
    })
    try {
      expect(open.output()).toMatch(/Warning: TRUST_PROXY is set but HOST=0\.0\.0\.0 lets anyone reach port/)
    } finally {
      await open.stop('SIGTERM')
    }
  })
})
