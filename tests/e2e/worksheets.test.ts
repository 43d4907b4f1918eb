import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { AxeBuilder } from '@axe-core/playwright'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { localAnonKey } from '../../schema/local-defaults.ts'
import type { PageConfig } from '../../schema/page-config.ts'
import { wallClockInstant } from '../../schema/phase-schedule.ts'
import { contactFunctionPath } from '../../schema/function-path.ts'
import { buildSite } from '../../src/cli/build.ts'
import { parseNodeEnv, readBuildSettings } from '../../src/server/env.ts'
import { startNodeServer } from '../../src/server/node.ts'
import type { RunningServer } from '../../src/server/node-options.ts'
import { openSqliteRelease } from '../../src/server/store/sqlite/sqlite-release.ts'
import { readPageConfig, registration } from '../server/support/fixtures.ts'
import { startTestSmtp, type TestSmtp } from '../server/support/smtp.ts'
import { startTestReceiver, type TestReceiver } from '../server/support/webhook-receiver.ts'
import { freePort, launchBrowser, realtorAnswers, scaled } from './harness.ts'

// The realtor's side of the VIP release (issue 45) on the real Node server, with real SMTP and a real CRM receiver on
// 127.0.0.1 and the server's clock in the test's hands: the link of the realtor's reply opens their worksheet page in
// Chromium at 390 px, closed (saying when it opens) before the phase's window and open inside it.

const opens = '2026-03-14T10:00'
const T = wallClockInstant(opens, 'America/Toronto')!
const config: PageConfig = (() => {
  const shared = readPageConfig()
  return {
    ...shared,
    launch: { ...shared.launch, timeZone: 'America/Toronto' },
    phases: { current: 'vip', list: [{ name: 'vip', worksheets: { opens, closes: '2026-03-16T17:00' } }] },
    worksheets: { texts: { depositStructure: '$10,000 on signing; 5% in 30 days; 5% in 90 days; 5% on occupancy.' } },
  }
})()
const coopDesk = config.launch.realtorEmail!
const secret = 'webhook-secret-0123456789abcdef'
const wcag21 = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']
const shots = process.env.SCREENSHOT_DIR
const rita = { name: 'Rita Agent', email: 'rita@agents.example.com' }

describe("a realtor's worksheet page, from the link of their reply, in Chromium", () => {
  const root = mkdtempSync(path.join(tmpdir(), 'vip-worksheets-'))
  let server: RunningServer
  let smtp: TestSmtp
  let crm: TestReceiver
  let browser: Browser
  let now = T - 3_600_000

  beforeAll(async () => {
    vi.spyOn(console, 'log').mockImplementation(() => {})
    await buildSite(
      path.resolve('page.config.json'),
      path.join(root, 'dist', config.launch.slug),
      readBuildSettings({}),
      config,
    )
    smtp = await startTestSmtp()
    crm = await startTestReceiver(secret)
    const port = await freePort()
    const settings = parseNodeEnv({
      HOST: '127.0.0.1',
      PORT: String(port),
      DATA_DIR: path.join(root, 'data'),
      DIST_DIR: path.join(root, 'dist'),
      RATE_LIMIT_PER_MINUTE: '0',
      SMTP_URL: `smtp://127.0.0.1:${smtp.port}`,
      MAIL_FROM: 'Bramblewood Crossing <vip@example.com>',
      PUBLIC_URL: `http://localhost:${port}`,
      NOTIFY_EMAIL: 'sales@example.com',
      WEBHOOK_URL: crm.url,
      WEBHOOK_SECRET: secret,
    })
    if (!settings.ok) throw new Error(settings.problems.join('\n'))
    const launch = { slug: config.launch.slug, config, configFile: path.resolve('page.config.json'), isDefault: true }
    server = await startNodeServer([launch], settings.config, root, { clock: () => new Date(now) })
    const release = openSqliteRelease(path.join(root, 'data', 'leads.sqlite'))
    const lots = [14, 15, 16].map((n) => ({
      lot: `Lot ${n}`,
      release: 'Phase 1',
      models: n === 16 ? ['Birch'] : ['Maple', 'Birch'],
      frontage: '40 ft',
      price: 899_900,
      status: 'available' as const,
    }))
    await release.importLots(config.launch.slug, lots, new Date(now).toISOString())
    release.close()
    browser = await launchBrowser()
    if (shots) mkdirSync(shots, { recursive: true })
  }, 300_000)

  afterAll(async () => {
    await browser?.close()
    await server?.close()
    await smtp?.stop()
    await crm?.stop()
    vi.restoreAllMocks()
    rmSync(root, { recursive: true, force: true })
  })

  const register = async (fields: Record<string, unknown>) => {
    const res = await fetch(`${server.url}${contactFunctionPath}`, {
      method: 'POST',
      headers: { apikey: localAnonKey, 'content-type': 'application/json' },
      body: JSON.stringify(registration(fields)),
    })
    expect(res.status).toBe(200)
  }

  async function violations(page: Page): Promise<string[]> {
    const results = await new AxeBuilder({ page }).withTags(wcag21).analyze()
    return results.violations.flatMap((v) => v.nodes.map((node) => `${v.id}: ${node.target.join(' ')}`))
  }

  it('opens from the reply, closed and saying when it opens, then takes a worksheet with three choices', async () => {
    await register({
      ...rita,
      isRealtor: 'yes',
      brokerage: realtorAnswers.brokerage,
      recoNumber: realtorAnswers.reco,
      forClient: 'yes',
    })
    await register({ name: 'Ben Buyer', email: 'ben@example.com', isRealtor: 'no', agent: 'Rita Agent' })
    await expect
      .poll(() => smtp.received.some((m) => m.rcptTo[0] === rita.email), { timeout: scaled(30_000) })
      .toBe(true)
    const reply = smtp.received.find((m) => m.rcptTo[0] === rita.email)!
    const mailed = new URL(/^Send a worksheet: (\S+)$/m.exec(reply.decoded)![1]!)
    // The mailed link is on the launch's own address; here the launch is this server.
    expect(mailed.origin).toBe(new URL(config.seo.canonicalUrl).origin)
    expect(mailed.href).not.toMatch(/rita|agents/i)
    const link = `${server.url}${mailed.pathname}${mailed.search}`

    const context = await browser.newContext({ viewport: { width: 390, height: 844 } })
    const page = await context.newPage()
    page.setDefaultTimeout(scaled(15_000))
    await page.goto(link)
    await expect(
      page.getByText('Worksheets are closed now. They open on March 14, 2026 at 10:00').isVisible(),
    ).resolves.toBe(true)
    await expect(page.getByRole('button', { name: 'Send worksheet' }).count()).resolves.toBe(0)
    if (shots) await page.screenshot({ path: path.join(shots, 'worksheets-closed-390.png'), fullPage: true })

    now = T + 5 * 60_000
    await page.reload()
    expect(await violations(page)).toEqual([])
    await page.getByLabel("Client's name").fill('Ben Buyer')
    await page.getByLabel("Client's e-mail").fill('ben@example.com')
    await page.getByLabel("Client's phone").fill('416-555-0199')
    await page.getByLabel('First choice').selectOption({ label: 'Lot 14 — Maple' })
    await page.getByLabel('Second choice').selectOption({ label: 'Lot 15 — Birch' })
    await page.getByLabel('Third choice').selectOption({ label: 'Any lot — Birch' })
    await page.getByLabel('Notes').fill('Prefers a south-facing lot.')
    // Without the deposit structure accepted: refused, every typed value kept, the message under the box.
    await page.getByRole('button', { name: 'Send worksheet' }).click()
    await page.getByText('Accept the deposit structure to send the worksheet.').first().waitFor()
    await expect(page.getByLabel("Client's name").inputValue()).resolves.toBe('Ben Buyer')
    await expect(page.getByLabel('Third choice').inputValue()).resolves.toBe('model=Birch')
    expect(await violations(page)).toEqual([])
    if (shots) await page.screenshot({ path: path.join(shots, 'worksheets-refused-390.png'), fullPage: true })
    await page.getByLabel('I accept the deposit structure').check()
    await page.getByRole('button', { name: 'Send worksheet' }).click()
    await page.getByRole('heading', { name: 'Worksheet 1 received' }).waitFor()
    await expect(page.getByText('Worksheet 1: Ben Buyer').isVisible()).resolves.toBe(true)
    expect(await violations(page)).toEqual([])
    const width = await page.evaluate(() => document.documentElement.scrollWidth)
    expect(width).toBeLessThanOrEqual(390)
    if (shots) {
      await page.screenshot({ path: path.join(shots, 'worksheets-sent-390.png'), fullPage: true })
      await page.setViewportSize({ width: 1280, height: 900 })
      await page.screenshot({ path: path.join(shots, 'worksheets-sent-1280.png'), fullPage: true })
      await page.setViewportSize({ width: 390, height: 844 })
    }

    const release = openSqliteRelease(path.join(root, 'data', 'leads.sqlite'), { readonly: true })
    const [stored] = await release.listWorksheets(config.launch.slug)
    release.close()
    expect(stored).toMatchObject({
      number: 1,
      receivedAt: new Date(T + 5 * 60_000).toISOString(),
      clientName: 'Ben Buyer',
    })
    expect(stored!.choices).toEqual([
      { lot: 'Lot 14', model: 'Maple' },
      { lot: 'Lot 15', model: 'Birch' },
      { lot: null, model: 'Birch' },
    ])

    const confirmed = (to: string) =>
      smtp.received.find(
        (m) => m.rcptTo[0] === to && m.headers.get('subject')?.[0]?.includes('worksheet 1 for Ben Buyer'),
      )
    await expect
      .poll(() => Boolean(confirmed(rita.email) && confirmed(coopDesk)), { timeout: scaled(30_000) })
      .toBe(true)
    expect(confirmed(coopDesk)!.decoded).toContain('2. Lot 15 — Birch')
    await expect
      .poll(() => crm.calls.some((call) => call.body.includes('"type":"worksheet.received"')), {
        timeout: scaled(30_000),
      })
      .toBe(true)
    const call = crm.calls.find((c) => c.body.includes('"type":"worksheet.received"'))!
    expect(call.signed).toBe(true)
    expect(JSON.parse(call.body)).toMatchObject({ data: { worksheet: 1, client: { name: 'Ben Buyer' } } })

    // The link with one character changed: a plain page, nothing of Rita's.
    const at = link.indexOf('sig=') + 12
    const changed = `${link.slice(0, at)}${link[at] === 'x' ? 'y' : 'x'}${link.slice(at + 1)}`
    const refused = await page.goto(changed)
    expect(refused?.status()).toBe(403)
    await page.getByRole('heading', { name: 'This link does not work' }).waitFor()
    await expect(page.locator('body').innerText()).resolves.not.toMatch(/Ben Buyer|Rita/)

    // A realtor who lost the reply asks for the link again from there: it comes to the registered address.
    await page.getByRole('link', { name: 'Ask for your worksheet link' }).click()
    await page.getByRole('heading', { name: `Your worksheet link for ${config.site.name}` }).waitFor()
    expect(await violations(page)).toEqual([])
    await page.getByLabel('Your e-mail').fill('Rita@Agents.example.com')
    await page.getByRole('button', { name: 'Send me my link' }).click()
    await page.getByRole('heading', { name: 'Check your inbox' }).waitFor()
    expect(await violations(page)).toEqual([])
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390)
    if (shots) await page.screenshot({ path: path.join(shots, 'worksheets-link-asked-390.png'), fullPage: true })
    const asked = () => smtp.received.find((m) => m.headers.get('subject')?.[0]?.endsWith('your worksheet link'))
    await expect.poll(() => Boolean(asked()), { timeout: scaled(30_000) }).toBe(true)
    expect(asked()!.rcptTo).toEqual([rita.email])
    expect(/^Send a worksheet: (\S+)$/m.exec(asked()!.decoded)![1]).toBe(mailed.href)
    await context.close()
  }, 180_000)
})
