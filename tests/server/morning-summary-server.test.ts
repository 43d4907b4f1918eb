import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { contactFunctionPath } from '../../schema/function-path.ts'
import { localAnonKey } from '../../schema/local-defaults.ts'
import type { PageConfig } from '../../schema/page-config.ts'
import { wallClockInstant } from '../../schema/phase-schedule.ts'
import { buildSite } from '../../src/cli/build.ts'
import { parseNodeEnv, readBuildSettings } from '../../src/server/env.ts'
import { startNodeServer } from '../../src/server/node.ts'
import type { RunningServer } from '../../src/server/node-options.ts'
import { readPageConfig, registration } from './support/fixtures.ts'
import { startTestSmtp, type TestSmtp } from './support/smtp.ts'

// The morning summary from a running Node server (src/server/node.ts wires it): registrations made on one day reach
// the sales manager's inbox (a real SMTP server) the next morning, once, from a server started after the summary's
// time; the same server restarted that day sends nothing more. The server's clock is the test's.

const manager = 'manager@example.com'
const timeZone = 'America/Toronto'
const config: PageConfig = (() => {
  const shared = readPageConfig()
  return { ...shared, launch: { ...shared.launch, timeZone, morningSummary: { to: manager, at: '07:30' } } }
})()
const dayOne = wallClockInstant('2026-05-12T14:00', timeZone)!
const nextMorning = wallClockInstant('2026-05-13T07:45', timeZone)!

describe('the morning summary from a running Node server', () => {
  const root = mkdtempSync(path.join(tmpdir(), 'vip-summary-server-'))
  let smtp: TestSmtp
  let now = dayOne
  let server: RunningServer | undefined

  async function start(): Promise<RunningServer> {
    const settings = parseNodeEnv({
      HOST: '127.0.0.1',
      PORT: '0',
      DATA_DIR: path.join(root, 'data'),
      DIST_DIR: path.join(root, 'dist'),
      RATE_LIMIT_PER_MINUTE: '0',
      SMTP_URL: `smtp://127.0.0.1:${smtp.port}`,
      PUBLIC_URL: 'http://localhost',
      MAIL_FROM: 'no-reply@example.com',
      NOTIFY_TIME_ZONE: timeZone,
    })
    if (!settings.ok) throw new Error(settings.problems.join('\n'))
    const launch = { slug: config.launch.slug, config, configFile: path.resolve('page.config.json'), isDefault: true }
    return startNodeServer([launch], settings.config, root, { clock: () => new Date(now) })
  }

  beforeAll(async () => {
    vi.spyOn(console, 'log').mockImplementation(() => {})
    smtp = await startTestSmtp()
    await buildSite(
      path.resolve('page.config.json'),
      path.join(root, 'dist', config.launch.slug),
      readBuildSettings({}),
      config,
    )
  }, 300_000)

  afterAll(async () => {
    await server?.close()
    await smtp?.stop()
    vi.restoreAllMocks()
    rmSync(root, { recursive: true, force: true })
  })

  const summaries = () => smtp.received.filter((mail) => mail.rcptTo.includes(manager))

  const arrived = async (count: number) => {
    const deadline = Date.now() + 30_000
    while (summaries().length < count && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100))
    expect(summaries()).toHaveLength(count)
    return summaries()[count - 1]!
  }

  it("sends the day's registrations to the manager the next morning, once, whatever the restarts", async () => {
    // Started in the afternoon, past 07:30: the day before's summary (nothing registered then) goes at start.
    server = await start()
    expect((await arrived(1)).headers.get('subject')?.[0]).toContain('0 registrations on Monday, May 11, 2026')
    for (const isRealtor of ['no', 'no', 'yes']) {
      const body = registration({
        isRealtor,
        ...(isRealtor === 'yes'
          ? { brokerage: 'Example Realty Inc., Brokerage', recoNumber: '5550123', forClient: 'no' }
          : {}),
      })
      const answer = await fetch(`${server.url}${contactFunctionPath}`, {
        method: 'POST',
        headers: { apikey: localAnonKey, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      })
      expect(answer.status, await answer.clone().text()).toBe(200)
    }
    await server.close()
    // Started the next morning, after 07:30 in the launch's time zone: the summary goes at start.
    now = nextMorning
    server = await start()
    const summary = await arrived(2)
    expect(summary.headers.get('subject')?.[0]).toContain('3 registrations on Tuesday, May 12, 2026')
    expect(summary.decoded).toMatch(/Registrations: 3 \(2 buyers, 1 realtor\)/)
    expect(summary.decoded).toContain(config.site.brokerage)

    // Restarted the same morning: nothing more.
    await server.close()
    now = nextMorning + 3_600_000
    server = await start()
    await new Promise((resolve) => setTimeout(resolve, 3_000))
    expect(summaries()).toHaveLength(2)
  }, 120_000)
})
