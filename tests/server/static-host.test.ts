import { execFile } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import type { PageConfig } from '../../schema/page-config.ts'
import { wallClockInstant } from '../../schema/phase-schedule.ts'
import { buildSite } from '../../src/cli/build.ts'
import { parseNodeEnv, readBuildSettings } from '../../src/server/env.ts'
import { startNodeServer } from '../../src/server/node.ts'
import type { RunningServer } from '../../src/server/node-options.ts'
import type { LaunchVersion } from '../../src/server/site/launch-version.ts'
import type { LiveLaunches } from '../../src/server/site/live-launches.ts'
import { createStaticHost } from '../../src/server/site/static-host.ts'
import { createDailyRuns } from '../../src/server/store/postgres/postgres-shared.ts'
import { startTestPostgres } from './support/postgres.ts'
import { readPageConfig } from './support/fixtures.ts'
import { startServerProcess, writeDist, type ServerProcess } from './support/node-server.ts'

// The "static host" of these tests is a folder: PUBLISH_COMMAND copies the folder it is given into $TARGET/<slug>,
// and fails (exit 3, a message on stderr) while $TARGET/fail exists.
const copyCommand =
  'if [ -e "$TARGET/fail" ]; then echo "Deploy refused: the site has reached its quota" >&2; exit 3; fi; ' +
  'rm -rf "$TARGET/$PUBLISH_SLUG" && cp -R "$PUBLISH_DIR" "$TARGET/$PUBLISH_SLUG" && printf "%s|%s\\n" "$PUBLISH_SLUG" "$PUBLISH_DIR" >> "$TARGET/calls.log"'

describe('PUBLISH_COMMAND after a studio publish (npm start, real HTTP)', () => {
  const run = promisify(execFile)
  const root = mkdtempSync(path.join(tmpdir(), 'vip-static-host-'))
  const dataDir = path.join(root, '.data')
  const distDir = path.join(root, 'dist')
  const target = path.join(root, 'host')
  const configFile = path.join(root, 'page.config.json')
  const original = readFileSync('page.config.json', 'utf8')
  const slug = readPageConfig().launch.slug
  let server: ServerProcess
  let cookie = ''

  beforeAll(async () => {
    cpSync('public', path.join(root, 'public'), { recursive: true })
    cpSync('documents', path.join(root, 'documents'), { recursive: true })
    writeFileSync(configFile, original)
    mkdirSync(target)
    writeDist(distDir)
    server = await startServerProcess({
      DATA_DIR: dataDir,
      DIST_DIR: distDir,
      PAGE_CONFIG: configFile,
      PUBLISH_COMMAND: copyCommand,
      TARGET: target,
    })
    const { stdout } = await run(
      'npm',
      ['run', '-s', 'studio:invite', '--', '--email', 'owner@example.com', '--role', 'owner'],
      {
        env: {
          PATH: process.env.PATH!,
          HOME: process.env.HOME ?? root,
          DATA_DIR: dataDir,
          PORT: '4321',
          PAGE_CONFIG: configFile,
        },
      },
    )
    const invitePath = new URL(/^(http:\/\/localhost:4321\/studio\/invite\/\S+)$/m.exec(stdout)![1]!).pathname
    const password = 'correct horse battery staple'
    const set = await fetch(`${server.url}${invitePath}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { origin: server.url, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ password, confirm: password }),
    })
    cookie = set.headers
      .getSetCookie()
      .find((line) => line.startsWith('studio_session='))!
      .split(';')[0]!
  }, 120_000)
  afterAll(async () => {
    await server?.stop()
    rmSync(root, { recursive: true, force: true })
  })

  const publish = (heading: string) =>
    fetch(`${server.url}/studio/api/launches/${slug}/publish`, {
      method: 'POST',
      headers: { origin: server.url, cookie, 'content-type': 'application/json' },
      body: JSON.stringify({
        text: original.replace('"heading": "Bramblewood Crossing"', () => `"heading": "${heading}"`),
      }),
    })

  it("puts the published launch's folder on the host: the new page at its top, nothing of the server's own", async () => {
    const answer = await publish('Sent to the static host')
    expect(answer.status).toBe(200)
    const body = (await answer.json()) as { version: number; warning?: string }
    expect(body.warning).toBeUndefined()
    const hosted = path.join(target, slug)
    expect(readFileSync(path.join(hosted, 'index.html'), 'utf8')).toContain('Sent to the static host')
    expect(existsSync(path.join(hosted, '404.html'))).toBe(true)
    expect(existsSync(path.join(hosted, '_headers'))).toBe(true)
    // Neither the phases to come, nor the function's contract (it names the notification address).
    expect(
      readdirSync(hosted).filter((name) => name === '.phases' || name === '.launch.json' || name === '.build-stamp'),
    ).toEqual([])
    // The slug and the folder reached the command as environment values: the folder is the absolute
    // DIST_DIR/.static/<slug>.
    expect(readFileSync(path.join(target, 'calls.log'), 'utf8')).toBe(
      `${slug}|${path.join(distDir, '.static', slug)}\n`,
    )
    expect(await (await fetch(`${server.url}/`)).text()).toContain('Sent to the static host')
  }, 120_000)

  it("keeps a publish live here when the command fails, and says so in the publish's answer", async () => {
    writeFileSync(path.join(target, 'fail'), '')
    const answer = await publish('Live here only')
    expect(answer.status).toBe(200)
    const body = (await answer.json()) as { version: number; warning?: string }
    expect(body.warning).toBe(
      "Published here; the static host's command failed: Deploy refused: the site has reached its quota (it ended with code 3)",
    )
    expect(await (await fetch(`${server.url}/`)).text()).toContain('Live here only')
    expect(readFileSync(path.join(target, slug, 'index.html'), 'utf8')).not.toContain('Live here only')
    const audit = (await (await fetch(`${server.url}/studio/api/audit`, { headers: { cookie } })).json()) as Array<{
      action: string
      detail?: string
    }>
    expect(audit.filter((entry) => entry.action === 'publish').map((entry) => entry.detail)).toEqual(
      expect.arrayContaining(["version 3 (the static host's command failed)", 'version 2']),
    )
    rmSync(path.join(target, 'fail'))
  }, 120_000)
})

describe('PUBLISH_COMMAND receives the slug and the folder as environment values only', () => {
  it('runs a command whose slug and folder hold shell metacharacters without running any of them', async () => {
    // Real slugs are ^[a-z0-9][a-z0-9-]*$; the folder (DIST_DIR) may be anything: neither is ever part of the command's
    // text.
    const root = mkdtempSync(path.join(tmpdir(), 'vip-static-env-'))
    const built = path.join(root, 'dist $(touch injected-dir); touch injected-dir2 `touch injected-dir3`')
    mkdirSync(built)
    writeFileSync(path.join(built, 'index.html'), '<!doctype html><title>Home</title>')
    const slug = 'a"; touch injected-slug; echo "$(touch injected-slug2)'
    const version = { distDir: built, contract: { slug } } as unknown as LaunchVersion
    const live = {
      current: () => ({ launches: [{ slug, version }], get: () => ({ slug, version }) }),
    } as unknown as LiveLaunches
    const host = createStaticHost({
      command:
        'printf "%s\\n%s\\n" "$PUBLISH_SLUG" "$PUBLISH_DIR" > seen.txt; cat "$PUBLISH_DIR/index.html" >> seen.txt',
      cwd: root,
      live,
      dir: path.join(root, 'static $(touch injected-static)'),
      stateFile: path.join(root, 'state.json'),
      timeZone: 'America/Toronto',
      supabaseUrl: undefined,
      log: { info: () => {}, error: () => {} },
    })
    const publisher = host.wrap({ publish: async () => ({ ok: true, ms: 1 }), list: () => [], add: () => undefined })
    try {
      expect(await publisher.publish(slug, '{}')).toEqual({ ok: true, ms: 1 })
      expect(readFileSync(path.join(root, 'seen.txt'), 'utf8')).toBe(
        `${slug}\n${path.join(root, 'static $(touch injected-static)', slug)}\n<!doctype html><title>Home</title>`,
      )
      expect(readdirSync(root).filter((name) => name.startsWith('injected'))).toEqual([])
      expect(readdirSync(process.cwd()).filter((name) => name.startsWith('injected'))).toEqual([])
    } finally {
      await host.stop()
      rmSync(root, { recursive: true, force: true })
    }
  })
})

describe('PUBLISH_COMMAND at start-up, for a phase that started while the server was stopped', () => {
  it('runs once for a start later than the last run, and not again at the next start-up', async () => {
    const root = mkdtempSync(path.join(tmpdir(), 'vip-static-catchup-'))
    const built = path.join(root, 'built')
    for (const [dir, words] of [
      [built, 'vip'],
      [path.join(built, '.phases', 'vip'), 'vip'],
      [path.join(built, '.phases', 'public'), 'public'],
    ] as const) {
      mkdirSync(dir, { recursive: true })
      writeFileSync(path.join(dir, 'index.html'), `<!doctype html><title>${words}</title>`)
    }
    const phases = {
      current: 'vip',
      timeZone: 'America/Toronto',
      list: [{ name: 'vip' }, { name: 'public', starts: '2026-01-10T10:00' }],
    }
    const version = { distDir: built, contract: { slug: 'maple-ridge', phases } } as unknown as LaunchVersion
    const live = {
      current: () => ({ launches: [{ slug: 'maple-ridge', version }], get: () => ({ slug: 'maple-ridge', version }) }),
    } as unknown as LiveLaunches
    const stateFile = path.join(root, 'state.json')
    const startOnce = async (lastRun?: number) => {
      if (lastRun !== undefined) writeFileSync(stateFile, JSON.stringify({ 'maple-ridge': lastRun }))
      const host = createStaticHost({
        command: 'cat "$PUBLISH_DIR/index.html" >> runs.txt; echo >> runs.txt',
        cwd: root,
        live,
        dir: path.join(root, 'static'),
        stateFile,
        clock: () => new Date('2026-02-01T12:00:00Z'),
        timeZone: 'UTC',
        supabaseUrl: undefined,
        log: { info: () => {}, error: () => {} },
      })
      host.start()
      await new Promise((resolve) => setTimeout(resolve, 500))
      await host.stop()
      return existsSync(path.join(root, 'runs.txt'))
        ? readFileSync(path.join(root, 'runs.txt'), 'utf8').trim().split('\n')
        : []
    }
    try {
      // Last run the day before the start (10:00 in Toronto on 10 January): run once, with the public pages.
      expect(await startOnce(Date.parse('2026-01-09T12:00:00Z'))).toEqual(['<!doctype html><title>public</title>'])
      expect(readdirSync(path.join(root, 'static', 'maple-ridge'))).toEqual(['index.html'])
      expect(await startOnce()).toHaveLength(1)
      // A last run after the start: nothing to do.
      expect(await startOnce(Date.parse('2026-01-20T12:00:00Z'))).toHaveLength(1)
    } finally {
      rmSync(root, { recursive: true, force: true })
    }
  })
})

describe('several servers on one PostgreSQL and a phase start', () => {
  it('send the folder once: the server that claims the start runs the command, the others only note it', async () => {
    const pg = await startTestPostgres()
    const root = mkdtempSync(path.join(tmpdir(), 'vip-static-claim-'))
    try {
      const built = path.join(root, 'built')
      for (const [dir, words] of [
        [built, 'vip'],
        [path.join(built, '.phases', 'vip'), 'vip'],
        [path.join(built, '.phases', 'public'), 'public'],
      ] as const) {
        mkdirSync(dir, { recursive: true })
        writeFileSync(path.join(dir, 'index.html'), `<!doctype html><title>${words}</title>`)
      }
      const phases = {
        current: 'vip',
        timeZone: 'America/Toronto',
        list: [{ name: 'vip' }, { name: 'public', starts: '2026-01-10T10:00' }],
      }
      const version = { distDir: built, contract: { slug: 'maple-ridge', phases } } as unknown as LaunchVersion
      const live = {
        current: () => ({
          launches: [{ slug: 'maple-ridge', version }],
          get: () => ({ slug: 'maple-ridge', version }),
        }),
      } as unknown as LiveLaunches
      const runs = createDailyRuns(pg.db)
      /** Three servers at once, each with its own folder and state, all sending to one host (runs.txt). */
      const serversAtOnce = async (claim: ((job: string, day: string) => Promise<boolean>) | undefined) => {
        const hosts = [0, 1, 2].map((i) =>
          createStaticHost({
            command: 'echo "$PUBLISH_SLUG" >> ../runs.txt',
            cwd: path.join(root, `server-${i}`),
            live,
            dir: path.join(root, `server-${i}`, 'static'),
            stateFile: path.join(root, `server-${i}`, `state-${claim ? 'claim' : 'alone'}.json`),
            clock: () => new Date('2026-02-01T12:00:00Z'),
            timeZone: 'UTC',
            supabaseUrl: undefined,
            claim,
            log: { info: () => {}, error: () => {} },
          }),
        )
        for (const i of [0, 1, 2]) mkdirSync(path.join(root, `server-${i}`), { recursive: true })
        writeFileSync(path.join(root, 'runs.txt'), '')
        for (const host of hosts) host.start()
        await new Promise((resolve) => setTimeout(resolve, 1_000))
        for (const host of hosts) await host.stop()
        return readFileSync(path.join(root, 'runs.txt'), 'utf8').trim().split('\n').filter(Boolean)
      }
      // Without a claim each server sends it (what one server alone does); with the database's, exactly one.
      expect(await serversAtOnce(undefined)).toEqual(['maple-ridge', 'maple-ridge', 'maple-ridge'])
      expect(await serversAtOnce((job, day) => runs.claim(job, day))).toEqual(['maple-ridge'])
    } finally {
      rmSync(root, { recursive: true, force: true })
      await pg.stop()
    }
  }, 60_000)
})

// A launch in its VIP phase whose public phase starts at T, a whole minute in the future of the real clock, so the
// build puts the VIP pages at the top of its folder: at T only the command's folder can show the public ones.
describe("a phase's start runs PUBLISH_COMMAND (Node server, the test's clock)", () => {
  const startsAt = '2031-05-17T10:00'
  const T = wallClockInstant(startsAt, 'America/Toronto')!
  const config: PageConfig = (() => {
    const shared = readPageConfig()
    const list = shared.phases!.list.map((phase) => (phase.name === 'public' ? { ...phase, starts: startsAt } : phase))
    return { ...shared, launch: { ...shared.launch, timeZone: 'America/Toronto' }, phases: { current: 'vip', list } }
  })()
  const vipCta = '>Register Now</a>'
  const publicCta = '>Book a Private Tour</a>'
  const root = mkdtempSync(path.join(tmpdir(), 'vip-static-phase-'))
  const target = path.join(root, 'host')
  let server: RunningServer
  // The server's clock runs at the real pace from 5 s before T.
  let offset = 0

  beforeAll(async () => {
    vi.spyOn(console, 'log').mockImplementation(() => {})
    mkdirSync(target)
    await buildSite(
      path.resolve('page.config.json'),
      path.join(root, 'dist', config.launch.slug),
      readBuildSettings({}),
      config,
    )
    const settings = parseNodeEnv({
      HOST: '127.0.0.1',
      PORT: '0',
      DATA_DIR: path.join(root, 'data'),
      DIST_DIR: path.join(root, 'dist'),
      PUBLISH_COMMAND: `TARGET='${target}'; ${copyCommand}`,
    })
    if (!settings.ok) throw new Error(settings.problems.join('\n'))
    const launch = { slug: config.launch.slug, config, configFile: path.resolve('page.config.json'), isDefault: true }
    offset = T - 5_000 - Date.now()
    server = await startNodeServer([launch], settings.config, root, { clock: () => new Date(Date.now() + offset) })
  }, 300_000)
  afterAll(async () => {
    await server?.close()
    vi.restoreAllMocks()
    rmSync(root, { recursive: true, force: true })
  })

  it('sends nothing before T, then at T the folder with the public phase at its top', async () => {
    const dist = readFileSync(path.join(root, 'dist', config.launch.slug, 'index.html'), 'utf8')
    expect(dist).toContain(vipCta)
    expect(existsSync(path.join(target, config.launch.slug))).toBe(false)
    const hosted = path.join(target, config.launch.slug, 'index.html')
    // The command's last step writes calls.log: until then its copy may be half made (index.html there, the log not).
    const calls = path.join(target, 'calls.log')
    const deadline = Date.now() + 20_000
    while (!existsSync(calls) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100))
    expect(Date.now() + offset).toBeGreaterThanOrEqual(T)
    const html = readFileSync(hosted, 'utf8')
    expect(html).toContain(publicCta)
    expect(html).not.toContain(vipCta)
    expect(existsSync(path.join(target, config.launch.slug, '.phases'))).toBe(false)
    // The Node server itself serves the public phase too, from the same clock.
    expect(await (await fetch(`${server.url}/`)).text()).toContain(publicCta)
    expect(readFileSync(calls, 'utf8').trim().split('\n')).toHaveLength(1)
  }, 60_000)
})
