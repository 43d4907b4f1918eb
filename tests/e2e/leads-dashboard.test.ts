import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { AxeBuilder } from '@axe-core/playwright'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openSqliteStore } from '../../src/server/store/sqlite/sqlite-store.ts'
import { defaultLaunch, mailFor, newLead } from '../server/support/fixtures.ts'
import { startServerProcess, writeDist, type ServerProcess } from '../server/support/node-server.ts'
import { launchBrowser, scaled } from './harness.ts'

// The dashboard in Chromium, from the list's Dashboard link: its charts are images named for what they show, its
// numbers a table, and axe finds nothing at 390 and 1280 px (screenshots in reports/leads-page/).

const password = 'correct horse battery staple'
const wcag21 = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']
const screenshots = path.resolve('reports/leads-page')
const sources: Array<Record<string, string>> = [
  { utm_source: 'google' },
  { utm_source: 'facebook' },
  {},
  { utm_source: 'newsletter', utm_medium: 'email', utm_campaign: 'spring-open-house' },
]

describe('the dashboard in Chromium', () => {
  let root = ''
  let server: ServerProcess
  let browser: Browser

  beforeAll(async () => {
    root = mkdtempSync(path.join(tmpdir(), 'vip-e2e-dashboard-'))
    cpSync('public', path.join(root, 'public'), { recursive: true })
    cpSync('documents', path.join(root, 'documents'), { recursive: true })
    writeFileSync(path.join(root, 'page.config.json'), readFileSync('page.config.json', 'utf8'))
    writeDist(path.join(root, 'dist'))
    const dataDir = path.join(root, '.data')
    mkdirSync(dataDir, { mode: 0o700 })
    const store = openSqliteStore(path.join(dataDir, 'leads.sqlite'), { defaultLaunch })
    // A few registrations on most of the last 30 days, more after the e-mail blast 5 days ago.
    const now = Date.now()
    let n = 0
    for (let daysAgo = 0; daysAgo < 30; daysAgo++) {
      const count = daysAgo === 5 ? 9 : daysAgo === 4 ? 6 : 1 + ((daysAgo * 7) % 5)
      for (let i = 0; i < count; i++, n++) {
        const lead = newLead({
          createdAt: new Date(now - daysAgo * 86_400_000 - i * 60_000).toISOString(),
          fields: {
            name: `Person ${n}`,
            email: `person${n}@example.com`,
            phone: '416-555-0100',
            isRealtor: n % 4 === 0 ? 'yes' : 'no',
          },
          utm: daysAgo === 5 || daysAgo === 4 ? sources[3]! : sources[n % 3]!,
        })
        await store.saveLead(lead, mailFor(lead))
      }
    }
    for (let daysAgo = 0; daysAgo < 30; daysAgo++) {
      const day = new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Toronto' }).format(
        new Date(now - daysAgo * 86_400_000),
      )
      await store.addVisits([
        { launch: defaultLaunch, day, source: 'google', visits: 60 + daysAgo, visitors: 40 + daysAgo },
        { launch: defaultLaunch, day, source: '', visits: 20, visitors: 15 },
      ])
    }
    await store.close()
    server = await startServerProcess({
      DATA_DIR: dataDir,
      DIST_DIR: path.join(root, 'dist'),
      PAGE_CONFIG: path.join(root, 'page.config.json'),
      LEADS_PASSWORD: password,
    })
    browser = await launchBrowser()
  }, 90_000)

  afterAll(async () => {
    await browser?.close()
    await server?.stop()
    rmSync(root, { recursive: true, force: true })
  })

  it.each([390, 1280])('shows named charts and their numbers, and axe finds nothing, at %i px', async (width) => {
    // axe is injected as a script: the context bypasses the page's CSP for it.
    const context = await browser.newContext({ viewport: { width, height: 900 }, bypassCSP: true })
    const page = await context.newPage()
    page.setDefaultTimeout(scaled(15_000))
    await page.goto(`${server.url}/leads`)
    await page.getByLabel('Password').fill(password)
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.getByRole('link', { name: 'Dashboard' }).click()
    await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor()
    expect(page.url()).toBe(`${server.url}/leads/dashboard`)
    await expect
      .poll(() => page.getByRole('img', { name: /^Registrations per day for the last 30 days/ }).count())
      .toBe(1)
    for (const name of [
      'Registrations by source, last 30 days',
      'Realtors and buyers, last 30 days',
      'Registrations of the last 30 days by status',
    ]) {
      expect(await page.getByRole('img', { name }).count()).toBe(1)
    }
    const perDay = page.getByRole('table', { name: 'Registrations per day' })
    expect(await perDay.locator('tbody tr').count()).toBe(30)
    expect(
      await page
        .getByRole('table', { name: 'Registrations from e-mail links, by campaign' })
        .locator('tbody tr')
        .first()
        .innerText(),
    ).toContain('spring-open-house')
    // The charts fit the screen: nothing scrolls sideways.
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true)
    await page.screenshot({ path: path.join(screenshots, `dashboard-${width}.png`), fullPage: true })
    await page.screenshot({ path: path.join(screenshots, `dashboard-${width}-top.png`) })
    await page
      .locator('section[aria-labelledby="day-by-day-heading"]')
      .screenshot({ path: path.join(screenshots, `dashboard-${width}-days.png`) })
    const results = await new AxeBuilder({ page }).withTags(wcag21).analyze()
    expect(results.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)).toEqual([])
    await context.close()
  })
})
