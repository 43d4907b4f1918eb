import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { localAnonKey } from '../../schema/local-defaults.ts'
import type { PageConfig } from '../../schema/page-config.ts'
import { wallClockInstant } from '../../schema/phase-schedule.ts'
import { contactFunctionPath } from '../../schema/function-path.ts'
import { buildSite } from '../../src/cli/build.ts'
import { createApp } from '../../src/server/app.ts'
import { parseNodeEnv, readBuildSettings } from '../../src/server/env.ts'
import { startNodeServer } from '../../src/server/node.ts'
import type { RunningServer } from '../../src/server/node-options.ts'
import { cspHashesOf } from '../../src/server/site/security-headers.ts'
import { openSqliteStore } from '../../src/server/store/sqlite/sqlite-store.ts'
import { finished, launchSite, readPageConfig, registration } from './support/fixtures.ts'

// A launch in its VIP phase whose public phase starts at T (10:00 on 18 April 2026 in Toronto, the launch's time
// zone): the server's clock is the test's, and nothing is rebuilt or restarted across T.
const startsAt = '2026-04-18T10:00'
const T = wallClockInstant(startsAt, 'America/Toronto')!
const config: PageConfig = (() => {
  const shared = readPageConfig()
  // The public phase also hides the "overview" section (with its header link).
  const list = shared.phases!.list.map((phase) =>
    phase.name === 'public' ? { ...phase, starts: startsAt, hide: ['overview'] } : phase,
  )
  return { ...shared, launch: { ...shared.launch, timeZone: 'America/Toronto' }, phases: { current: 'vip', list } }
})()
const vipCta = '>Register Now</a>'
const publicCta = '>Book a Private Tour</a>'

describe('a launch whose public phase starts at T, on the Node server', () => {
  const root = mkdtempSync(path.join(tmpdir(), 'vip-phases-'))
  let server: RunningServer
  let now = T - 60_000

  beforeAll(async () => {
    vi.spyOn(console, 'log').mockImplementation(() => {})
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
      RATE_LIMIT_PER_MINUTE: '0',
    })
    if (!settings.ok) throw new Error(settings.problems.join('\n'))
    const launch = { slug: config.launch.slug, config, configFile: path.resolve('page.config.json'), isDefault: true }
    server = await startNodeServer([launch], settings.config, root, { clock: () => new Date(now) })
  }, 300_000)

  afterAll(async () => {
    await server?.close()
    vi.restoreAllMocks()
    rmSync(root, { recursive: true, force: true })
  })

  const page = async () => {
    const res = await fetch(`${server.url}/`)
    return { status: res.status, html: await res.text() }
  }
  const register = async () => {
    const body = registration()
    const res = await fetch(`${server.url}${contactFunctionPath}`, {
      method: 'POST',
      headers: { apikey: localAnonKey, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })
    expect(res.status).toBe(200)
    return body.submissionId as string
  }
  const storedPhase = async (submissionId: string) => {
    const store = openSqliteStore(path.join(root, 'data', 'leads.sqlite'), {
      defaultLaunch: config.launch.slug,
      readonly: true,
    })
    try {
      return (await store.findLead(submissionId))?.phase
    } finally {
      await store.close()
    }
  }

  it('shows the VIP call to action before T and stores a registration as vip', async () => {
    const before = await page()
    expect(before.status).toBe(200)
    expect(before.html).toContain(vipCta)
    expect(before.html).not.toContain(publicCta)
    expect(before.html).toContain('id="overview"')
    expect(before.html).toContain('href="#overview"')
    expect(await storedPhase(await register())).toBe('vip')
  })

  it('switches at T exactly, with no rebuild and no restart, and no request failing under continuous GETs', async () => {
    now = T - 1
    expect((await page()).html).toContain(vipCta)
    const seen: Array<{ status: number; phase: string; at: number; policyFits: boolean }> = []
    let running = true
    const loop = async () => {
      while (running) {
        const at = now
        const res = await fetch(`${server.url}/`, { headers: { 'accept-encoding': 'br, gzip' } })
        const html = await res.text()
        // The policy is the served phase's own: it allows exactly this page's inline scripts by hash.
        const scriptSrc = /script-src ([^;]*)/.exec(res.headers.get('content-security-policy') ?? '')?.[1] ?? ''
        const allowed = scriptSrc
          .split(' ')
          .filter((source) => source.startsWith("'sha256-"))
          .map((source) => source.slice(1, -1))
        const policyFits = JSON.stringify([...allowed].sort()) === JSON.stringify([...(await cspHashesOf(html))].sort())
        seen.push({
          status: res.status,
          phase: html.includes(publicCta) ? 'public' : html.includes(vipCta) ? 'vip' : 'neither',
          at,
          policyFits,
        })
      }
    }
    const loops = [loop(), loop(), loop(), loop()]
    while (seen.length < 40) await new Promise((resolve) => setTimeout(resolve, 10))
    now = T
    const switchedAt = seen.length
    while (seen.length < switchedAt + 40) await new Promise((resolve) => setTimeout(resolve, 10))
    running = false
    await Promise.all(loops)
    expect(seen.filter((answer) => answer.status !== 200 || answer.phase === 'neither' || !answer.policyFits)).toEqual(
      [],
    )
    // Every page asked for once the clock read T is the public one; every one before, the VIP one.
    expect(seen.filter((answer) => answer.at >= T).every((answer) => answer.phase === 'public')).toBe(true)
    expect(seen.filter((answer) => answer.phase === 'vip').every((answer) => answer.at < T)).toBe(true)
    expect(seen.some((answer) => answer.phase === 'vip')).toBe(true)
    expect(seen.filter((answer) => answer.phase === 'public').length).toBeGreaterThanOrEqual(40)
  }, 120_000)

  it('after T, a plain GET shows the public call to action and a registration is stored as public', async () => {
    now = T + 5_000
    const after = await page()
    expect(after.html).toContain(publicCta)
    expect(after.html).toContain('Now Open to Everyone · Kestrel Falls, Ontario')
    expect(after.html).not.toContain(vipCta)
    // The section the public phase hides is not in its prerendered page, nor its header link; the next one is.
    expect(after.html).not.toContain('id="overview"')
    expect(after.html).not.toContain('href="#overview"')
    expect(after.html).toContain('id="transit"')
    expect(await storedPhase(await register())).toBe('public')
  })

  it('answers a plain form post with fields to correct with the page of the phase in force, its submit label on the form', async () => {
    const post = async () => {
      const res = await fetch(`${server.url}${contactFunctionPath}`, {
        method: 'POST',
        headers: { origin: 'https://bramblewood.example.com', 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ name: 'Ines Duarte', launch: config.launch.slug }).toString(),
        redirect: 'manual',
      })
      expect(res.status).toBe(400)
      return res.text()
    }
    now = T - 10_000
    const before = await post()
    expect(before).toContain('>Register Now<')
    expect(before).not.toContain('>Book My Tour<')
    now = T + 10_000
    const after = await post()
    expect(after).toContain('>Book My Tour<')
    expect(after).toContain(publicCta)
    expect(after).not.toContain(vipCta)
  })
})

describe('the function in a phase', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'vip-phase-fn-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it("answers with the phase's reply, and names the phase in the webhook payload and the notification", async () => {
    const store = openSqliteStore(path.join(dir, 'leads.sqlite'), { defaultLaunch: config.launch.slug })
    let now = new Date(T + 1)
    const app = createApp({
      launches: [
        launchSite(config, {
          links: { secret: 'x'.repeat(32), baseUrl: `https://bramblewood.example.com${contactFunctionPath}` },
        }),
      ],
      defaultLaunch: config.launch.slug,
      store,
      clock: () => now,
      anonKeys: [localAnonKey],
      rateLimitPerMinute: 0,
      log: { info() {}, error() {} },
      webhook: true,
    })
    const post = () =>
      app.request(`http://fn.test${contactFunctionPath}`, {
        method: 'POST',
        headers: { apikey: localAnonKey, 'content-type': 'application/json' },
        body: JSON.stringify(registration()),
      })
    expect((await post()).status).toBe(200)
    now = new Date(T - 1)
    expect((await post()).status).toBe(200)
    const jobs = await store.claimDueMail(new Date(T + 60_000), 100, 60_000)
    const replies = jobs.flatMap((job) => (job.kind === 'reply' ? [finished(job.mail).subject] : []))
    expect(replies).toEqual([
      'Your tour request for Bramblewood Crossing',
      "You're on the VIP list for Bramblewood Crossing",
    ])
    const phases = jobs.flatMap((job) =>
      job.kind === 'webhook' ? [(JSON.parse(job.webhook.body) as { data: { phase: string } }).data.phase] : [],
    )
    expect(phases).toEqual(['public', 'vip'])
    const notifications = jobs.flatMap((job) => (job.kind === 'notification' ? [finished(job.mail).text] : []))
    expect(notifications[0]).toMatch(/Phase:?\s+Public release/)
    await store.close()
  })
})
