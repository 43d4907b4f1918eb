import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { createVisitCounter } from '../../src/server/site/visit-counter.ts'
import { visitSourceOf } from '../../src/server/site/visit-requests.ts'
import { openSqliteStore } from '../../src/server/store/sqlite/sqlite-store.ts'
import type { PulseDay } from '../../src/server/store/store.ts'
import { defaultLaunch } from './support/fixtures.ts'
import { startServerProcess, writeDist } from './support/node-server.ts'

// Visits counted without cookies: one visitor once a day (a salted hash kept in memory for that day only), no bot or
// prefetch, no cookie, and nothing of the visitor (address, User-Agent, hash) in the database.

const root = mkdtempSync(path.join(tmpdir(), 'vip-visits-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

const chrome =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36 VisitTest/1'
const safari =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.0 Mobile/15E148 Safari/604.1'
const html = () =>
  new Response('<!doctype html><title>x</title>', {
    status: 200,
    headers: { 'content-type': 'text/html; charset=utf-8' },
  })
const page = (target: string, headers: Record<string, string> = {}) =>
  new Request(`http://bramblewood.example.com${target}`, {
    headers: { host: 'bramblewood.example.com', 'user-agent': chrome, 'sec-fetch-dest': 'document', ...headers },
  })
const day = (d: string): PulseDay => ({ day: d, start: `${d}T05:00:00.000Z`, end: `${d}T23:59:59.999Z` })

/** Every byte of a SQLite database and its journal files, as Latin-1 text to search. */
function bytesOf(dir: string): string {
  return readdirSync(dir)
    .filter((f) => f.startsWith('leads.sqlite'))
    .map((f) => readFileSync(path.join(dir, f)).toString('latin1'))
    .join('')
}

describe('the visit counter', () => {
  it('counts a visitor once a day, every page view, by source; not bots, prefetches, sub-requests or misses', async () => {
    const dir = path.join(root, 'unit')
    mkdirSync(dir)
    const store = openSqliteStore(path.join(dir, 'leads.sqlite'), { defaultLaunch })
    const now = { value: new Date('2026-03-02T15:00:00Z') }
    const counter = createVisitCounter({ store, timeZone: 'America/Toronto', clock: () => now.value, flushMs: 60_000 })
    const count = (request: Request, address = '203.0.113.9', response = html()) =>
      counter.count(request, response, defaultLaunch, address)

    count(page('/?utm_source=Instagram'))
    count(page('/privacy', { referer: 'http://bramblewood.example.com/' }))
    count(page('/'))
    // Another browser at the same address, and the first browser at another address: two more people.
    count(page('/', { 'user-agent': safari, referer: 'https://www.google.com/' }))
    count(page('/?gclid=abc'), '198.51.100.4')
    // None of these is a person's view of a page.
    count(page('/', { 'user-agent': 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)' }))
    count(page('/', { 'user-agent': 'facebookexternalhit/1.1' }))
    count(page('/', { 'user-agent': 'curl/8.5.0' }))
    count(page('/', { 'sec-purpose': 'prefetch;prerender' }))
    count(page('/', { purpose: 'prefetch' }))
    count(page('/assets/app.js', { 'sec-fetch-dest': 'script' }))
    count(
      page('/missing'),
      '203.0.113.9',
      new Response('not found', { status: 404, headers: { 'content-type': 'text/html' } }),
    )
    count(
      page('/robots.txt'),
      '203.0.113.9',
      new Response('x', { status: 200, headers: { 'content-type': 'text/plain' } }),
    )
    count(new Request('http://bramblewood.example.com/', { method: 'HEAD', headers: { 'user-agent': chrome } }))
    await counter.flush()

    // The next day the same visitor is new again: the salt changed and the day's hashes are gone.
    now.value = new Date('2026-03-03T15:00:00Z')
    count(page('/'))
    count(page('/'))
    await counter.close()

    const pulse = await store.countPulse({ launch: defaultLaunch, days: [day('2026-03-02'), day('2026-03-03')] })
    expect(pulse.days.map((d) => [d.day, d.visits, d.visitors])).toEqual([
      ['2026-03-02', 5, 3],
      ['2026-03-03', 2, 1],
    ])
    // The first visitor is counted under the source they arrived with; their later views count as views only.
    expect(pulse.sources.map((s) => [s.source, s.visitors])).toEqual([
      ['', 1],
      ['Google Ads', 1],
      ['google.com', 1],
      ['instagram', 1],
    ])
    await store.close()
    const stored = bytesOf(dir)
    for (const trace of ['203.0.113.9', '198.51.100.4', 'VisitTest', 'iPhone']) expect(stored).not.toContain(trace)
  })

  it("reads a source as the dashboard reads a registration's", () => {
    expect(visitSourceOf(page('/?utm_source=%20Newsletter%20&gclid=x'))).toBe('newsletter')
    expect(visitSourceOf(page('/?fbclid=x'))).toBe('Meta ads')
    expect(visitSourceOf(page('/', { referer: 'https://www.Facebook.com/some/page' }))).toBe('facebook.com')
    expect(visitSourceOf(page('/', { referer: 'http://www.bramblewood.example.com/privacy' }))).toBe('')
    expect(visitSourceOf(page('/', { referer: 'not a url' }))).toBe('')
  })

  it('is counted by the Node server when it serves a page: no cookie, no script added, stored when it stops', async () => {
    const dir = path.join(root, 'server')
    mkdirSync(path.join(dir, '.data'), { recursive: true, mode: 0o700 })
    writeDist(path.join(dir, 'dist'))
    const server = await startServerProcess({ DATA_DIR: path.join(dir, '.data'), DIST_DIR: path.join(dir, 'dist') })
    let body = ''
    try {
      for (const agent of [chrome, chrome, safari, 'Mozilla/5.0 (compatible; bingbot/2.0)']) {
        const response = await fetch(`${server.url}/?utm_source=flyer`, {
          headers: { 'user-agent': agent, 'sec-fetch-dest': 'document' },
        })
        expect(response.status).toBe(200)
        expect(response.headers.get('set-cookie')).toBeNull()
        body = await response.text()
      }
      expect(
        (await fetch(`${server.url}/favicon.ico`, { headers: { 'user-agent': chrome } })).headers.get('set-cookie'),
      ).toBeNull()
    } finally {
      await server.stop()
    }
    expect(body).toBe(readFileSync(path.join(dir, 'dist', defaultLaunch, 'index.html'), 'utf8'))
    const store = openSqliteStore(path.join(dir, '.data', 'leads.sqlite'), { defaultLaunch })
    const today = new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Toronto' }).format(new Date())
    const pulse = await store.countPulse({
      launch: defaultLaunch,
      days: [
        {
          day: today,
          start: new Date(Date.now() - 86_400_000).toISOString(),
          end: new Date(Date.now() + 86_400_000).toISOString(),
        },
      ],
    })
    await store.close()
    expect(pulse.days[0]).toMatchObject({ visits: 3, visitors: 2 })
    expect(pulse.sources).toEqual([{ source: 'flyer', registrations: 0, visitors: 2 }])
    expect(bytesOf(path.join(dir, '.data'))).not.toContain('VisitTest')
  }, 60_000)

  it('counts nothing for a launch whose config turns counting off (launch.countVisits false)', async () => {
    const dir = path.join(root, 'off')
    mkdirSync(path.join(dir, '.data'), { recursive: true, mode: 0o700 })
    writeDist(path.join(dir, 'dist'))
    const config = JSON.parse(readFileSync('page.config.json', 'utf8')) as { launch: Record<string, unknown> }
    config.launch.countVisits = false
    const configFile = path.join(dir, 'page.config.json')
    writeFileSync(configFile, JSON.stringify(config, null, 2))
    cpSync('public', path.join(dir, 'public'), { recursive: true })
    cpSync('documents', path.join(dir, 'documents'), { recursive: true })
    const server = await startServerProcess({
      DATA_DIR: path.join(dir, '.data'),
      DIST_DIR: path.join(dir, 'dist'),
      PAGE_CONFIG: configFile,
    })
    try {
      for (const agent of [chrome, safari]) {
        expect(
          (
            await fetch(`${server.url}/?utm_source=flyer`, {
              headers: { 'user-agent': agent, 'sec-fetch-dest': 'document' },
            })
          ).status,
        ).toBe(200)
      }
    } finally {
      await server.stop()
    }
    const store = openSqliteStore(path.join(dir, '.data', 'leads.sqlite'), { defaultLaunch })
    const today = new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Toronto' }).format(new Date())
    const pulse = await store.countPulse({
      launch: defaultLaunch,
      days: [
        {
          day: today,
          start: new Date(Date.now() - 86_400_000).toISOString(),
          end: new Date(Date.now() + 86_400_000).toISOString(),
        },
      ],
    })
    await store.close()
    expect(pulse.days[0]).toMatchObject({ visits: 0, visitors: 0 })
  }, 60_000)
})
