import { execFile } from 'node:child_process'
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { migrateDatabase } from '../../src/cli/db/db-migrate.ts'
import { startServerProcess, writeDist, type ServerProcess } from './support/node-server.ts'
import { startTestPostgres, type TestPostgres } from './support/postgres.ts'

// Two Node servers on one real PostgreSQL with NO shared folder (each its own project copy, dist and DATA_DIR), as
// on two machines behind a load balancer: a publish through the studio of one is served by the other within 10
// seconds (shared-builds.ts), with every request to it answered meanwhile, and its page.config.json rewritten to match;
// a studio session made on one is good on the other.

const run = promisify(execFile)
const original = readFileSync('page.config.json', 'utf8')
const password = 'correct horse battery staple'
const suppressionSecret = 'test-suppression-secret-0123456789'
const quiet = { log: () => {}, fail: (line: string) => console.error(line) }
const root = mkdtempSync(path.join(tmpdir(), 'vip-node-pg-publish-'))

type Machine = { dir: string; configFile: string; dataDir: string; server?: ServerProcess }
const machines: Machine[] = []
let pg: TestPostgres

/** A machine's own copy of the project: the config, its pictures, a built site and the studio's page. */
function machine(name: string): Machine {
  const dir = path.join(root, name)
  cpSync('public', path.join(dir, 'public'), { recursive: true })
  cpSync('documents', path.join(dir, 'documents'), { recursive: true })
  const configFile = path.join(dir, 'page.config.json')
  writeFileSync(configFile, original)
  writeDist(path.join(dir, 'dist'))
  mkdirSync(path.join(dir, 'dist', '_studio', 'assets'), { recursive: true })
  writeFileSync(
    path.join(dir, 'dist', '_studio', 'index.html'),
    '<!doctype html><title>Studio</title><div id="studio"></div>',
  )
  const made = { dir, configFile, dataDir: path.join(dir, '.data') }
  machines.push(made)
  return made
}

function env(m: Machine): Record<string, string> {
  return {
    DATABASE_URL: pg.url!,
    DATA_DIR: m.dataDir,
    DIST_DIR: path.join(m.dir, 'dist'),
    PAGE_CONFIG: m.configFile,
    SUPPRESSION_SECRET: suppressionSecret,
  }
}

beforeAll(async () => {
  pg = await startTestPostgres({ empty: true })
  expect(await migrateDatabase(pg.url!, path.resolve('supabase/migrations'), quiet)).toBe(0)
}, 60_000)

afterAll(async () => {
  for (const m of machines) await m.server?.stop()
  await pg?.stop()
  rmSync(root, { recursive: true, force: true })
})

describe('a publish on one of two Node servers on PostgreSQL', () => {
  it('is served by the other within 10 seconds, with no shared folder and no request failing; a session on one works on the other', async () => {
    const [a, b] = [machine('a'), machine('b')]
    a.server = await startServerProcess(env(a), 60_000)
    b.server = await startServerProcess(env(b), 60_000)
    const heading = 'Published on server A'
    expect((await (await fetch(`${b.server.url}/`)).text()).includes(heading)).toBe(false)

    // An owner of the studio on A publishes a new hero heading.
    const { stdout } = await run(
      'npm',
      ['run', '-s', 'studio:invite', '--', '--email', 'owner@example.com', '--role', 'owner'],
      {
        env: { PATH: process.env.PATH!, HOME: process.env.HOME ?? root, PORT: '4321', ...env(a) },
      },
    )
    const invitePath = new URL(/^(http:\/\/localhost:4321\/studio\/invite\/\S+)$/m.exec(stdout)![1]!).pathname
    const set = await fetch(`${a.server.url}${invitePath}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { origin: a.server.url, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ password, confirm: password }),
    })
    expect(set.status).toBe(303)
    const cookie = set.headers
      .getSetCookie()
      .find((line) => line.startsWith('studio_session='))!
      .split(';')[0]!
    // The session made on A is good on B: the studio's and the leads page's (same sign-in) are kept in the database.
    const me = await fetch(`${b.server.url}/studio/api/me`, { headers: { cookie } })
    expect(me.status).toBe(200)
    expect(((await me.json()) as { email: string }).email).toBe('owner@example.com')
    const leads = await fetch(`${b.server.url}/leads`, { headers: { cookie } })
    expect(leads.status).toBe(200)
    expect(await leads.text()).toContain('Sign out')

    // Visitors on B all along: every answer 200.
    const statuses: number[] = []
    let going = true
    const visitors = (async () => {
      while (going) statuses.push((await fetch(`${b.server!.url}/`)).status)
    })()

    const edited = original.replace('"heading": "Bramblewood Crossing"', () => `"heading": "${heading}"`)
    expect(edited).not.toBe(original)
    const published = await fetch(`${a.server.url}/studio/api/launches/bramblewood-crossing/publish`, {
      method: 'POST',
      headers: { origin: a.server.url, cookie, 'content-type': 'application/json' },
      body: JSON.stringify({ text: edited, message: 'From server A' }),
    })
    expect(published.status, await published.clone().text()).toBe(200)
    const at = Date.now()
    expect((await (await fetch(`${a.server.url}/`)).text()).includes(heading)).toBe(true)

    let tookMs = -1
    while (Date.now() - at < 15_000) {
      if ((await (await fetch(`${b.server.url}/`)).text()).includes(heading)) {
        tookMs = Date.now() - at
        break
      }
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    going = false
    await visitors
    console.log(`server B served server A's publish ${tookMs} ms after it was acknowledged`)
    expect(tookMs).toBeGreaterThanOrEqual(0)
    expect(tookMs).toBeLessThan(10_000)
    expect(statuses.length).toBeGreaterThan(0)
    expect(statuses.filter((status) => status !== 200)).toEqual([])
    // B's file now holds the very bytes A published.
    expect(readFileSync(b.configFile, 'utf8')).toBe(edited)
    expect(b.server.output()).toContain('now serving version 2, published on another server')

    // A third machine that joins later serves the newest version from its first request.
    const c = machine('c')
    c.server = await startServerProcess(env(c), 60_000)
    expect((await (await fetch(`${c.server.url}/`)).text()).includes(heading)).toBe(true)
    expect(readFileSync(c.configFile, 'utf8')).toBe(edited)

    // A restart that overlaps the old process (the new one starts on the same DIST_DIR and DATA_DIR first): the new
    // one's start and stop leave the version the old one serves alone.
    const overlapping = await startServerProcess(env(b), 60_000)
    expect((await fetch(`${overlapping.url}/`)).status).toBe(200)
    const servedByB = await fetch(`${b.server.url}/`)
    expect(servedByB.status).toBe(200)
    expect((await servedByB.text()).includes(heading)).toBe(true)
    expect((await overlapping.stop('SIGTERM')).code).toBe(0)
    const stillServedByB = await fetch(`${b.server.url}/`)
    expect(stillServedByB.status).toBe(200)
    expect((await stillServedByB.text()).includes(heading)).toBe(true)
  }, 240_000)
})
