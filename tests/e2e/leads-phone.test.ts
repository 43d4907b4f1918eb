import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { AxeBuilder } from '@axe-core/playwright'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { PageConfig } from '../../schema/page-config.ts'
import { startLeadsPageServer } from '../../src/cli/leads-page.ts'
import { parseNodeEnv } from '../../src/server/env.ts'
import { leadsPageLaunchOf } from '../../src/server/leads-page/views.ts'
import { openSqliteStore } from '../../src/server/store/sqlite/sqlite-store.ts'
import type { LeadStore } from '../../src/server/store/store.ts'
import { secondLaunchConfig } from '../fixtures/second-launch.ts'
import { mailFor, newLead } from '../server/support/fixtures.ts'
import { launchBrowser, scaled } from './harness.ts'

// The leads list on a phone (390 × 844, an iPhone's first screen) and on a wide screen, in Chromium against the real
// leads page server with two launches: the first lead shows on the first screen, the bar's words stay whole, the
// filters fold under "Filters" (with or without JavaScript) and unfold on a wide screen; axe finds no WCAG 2.1 AA
// fault.

const config = JSON.parse(readFileSync('page.config.json', 'utf8')) as PageConfig
const second = JSON.parse(readFileSync(secondLaunchConfig, 'utf8')) as PageConfig
const password = 'correct horse battery staple'
const wcag21 = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']
const screenshots = path.resolve('reports/leads-page')

let dataDir: string
let store: LeadStore
let server: { url: string; close(): Promise<void> }
let browser: Browser

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'vip-e2e-phone-'))
  store = openSqliteStore(path.join(dataDir, 'leads.sqlite'), { defaultLaunch: config.launch.slug })
  const parsed = parseNodeEnv({ LEADS_PASSWORD: password, PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir })
  if (!parsed.ok) throw new Error(parsed.problems.join('\n'))
  server = await startLeadsPageServer([leadsPageLaunchOf(config), leadsPageLaunchOf(second)], parsed.config, store)
  const people = [
    { name: 'Priya Raman', email: 'priya@example.com', phone: '647-555-0111', isRealtor: 'no' },
    { name: 'Wen Zhao', email: 'wen@example.com', phone: '416-555-0101', isRealtor: 'yes' },
    { name: 'Jonas Berg', email: 'jonas@example.com', phone: '905-555-0142', isRealtor: 'no' },
  ]
  for (const [i, fields] of people.entries()) {
    const lead = newLead({
      launch: i === 1 ? second.launch.slug : config.launch.slug,
      createdAt: `2026-03-0${i + 1}T15:00:00.000Z`,
      fields,
    })
    await store.saveLead(lead, mailFor(lead))
  }
  browser = await launchBrowser()
}, scaled(60_000))

afterAll(async () => {
  await browser?.close()
  await server?.close()
  await store?.close()
  rmSync(dataDir, { recursive: true, force: true })
})

async function signedIn(width: number, height: number, javaScriptEnabled = true): Promise<Page> {
  // axe is injected as a script: the strict CSP (rightly) refuses that unless bypassed for the test.
  const context = await browser.newContext({ viewport: { width, height }, bypassCSP: true, javaScriptEnabled })
  const page = await context.newPage()
  page.setDefaultTimeout(scaled(15_000))
  await page.goto(`${server.url}/leads`)
  await page.getByLabel('Password').fill(password)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.getByRole('heading', { name: 'Registrations' }).waitFor()
  return page
}

async function axeViolations(page: Page): Promise<string[]> {
  const result = await new AxeBuilder({ page }).withTags(wcag21).analyze()
  return result.violations.flatMap((v) => v.nodes.map((n) => `${v.id}: ${n.target.join(' ')}`))
}

/** The words of the bar's brand that the browser laid out over more than one line (a word broken inside). */
function brokenWords(page: Page): Promise<string[]> {
  return page.locator('.lp-brand').evaluate((brand) => {
    const broken: string[] = []
    const walker = document.createTreeWalker(brand, NodeFilter.SHOW_TEXT)
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const text = node.textContent ?? ''
      for (const match of text.matchAll(/\S+/g)) {
        const range = document.createRange()
        range.setStart(node, match.index)
        range.setEnd(node, match.index + match[0].length)
        const tops = new Set([...range.getClientRects()].map((rect) => Math.round(rect.top)))
        if (tops.size > 1) broken.push(match[0])
      }
    }
    return broken
  })
}

describe('the leads list on a phone', () => {
  it(
    'shows the first lead on the first screen at 390 × 844, keeps the bar’s words whole, folds the filters under Filters',
    async () => {
      mkdirSync(screenshots, { recursive: true })
      const page = await signedIn(390, 844)
      await page.screenshot({ path: path.join(screenshots, 'phone-list-390.png') })
      const first = page.locator('.lp-card').first()
      await expect(first.getByText('Jonas Berg').isVisible()).resolves.toBe(true)
      const title = (await first.locator('.lp-card-title').boundingBox())!
      expect(title.y + title.height).toBeLessThanOrEqual(844)
      expect(await brokenWords(page)).toEqual([])
      // The search and the launch stay; the other filters wait under Filters.
      await expect(page.getByLabel('Find by name, e-mail or phone').isVisible()).resolves.toBe(true)
      await expect(page.getByLabel('Status').isVisible()).resolves.toBe(false)
      await page.getByText('Filters', { exact: true }).click()
      await expect(page.getByLabel('Status').isVisible()).resolves.toBe(true)
      await expect(page.getByLabel('Assigned to').isVisible()).resolves.toBe(true)
      expect(await axeViolations(page)).toEqual([])
      await page.screenshot({ path: path.join(screenshots, 'phone-filters-390.png'), fullPage: true })
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390)
      await page.context().close()
    },
    scaled(60_000),
  )

  it(
    'filters without JavaScript through the same fold, which then stays open to show what narrows the list',
    async () => {
      const page = await signedIn(390, 844, false)
      await page.getByText('Filters', { exact: true }).click()
      await page.getByLabel('Realtor').selectOption({ label: 'Realtors only' })
      await page.getByRole('button', { name: 'Search' }).click()
      await page.getByText('1 registration in all.').waitFor()
      await expect(page.locator('.lp-cards').getByText('Wen Zhao').isVisible()).resolves.toBe(true)
      await expect(page.getByLabel('Realtor').isVisible()).resolves.toBe(true)
      await page.getByRole('button', { name: 'Show all' }).click()
      await page.getByText('3 registrations in all.').waitFor()
      await page.context().close()
    },
    scaled(60_000),
  )

  it(
    'shows every filter at once on a wide screen, with no Filters control, and passes axe',
    async () => {
      const page = await signedIn(1280, 900)
      await expect(page.getByLabel('Status').isVisible()).resolves.toBe(true)
      await expect(page.getByLabel('To', { exact: true }).isVisible()).resolves.toBe(true)
      await expect(page.getByText('Filters', { exact: true }).isVisible()).resolves.toBe(false)
      expect(await brokenWords(page)).toEqual([])
      expect(await axeViolations(page)).toEqual([])
      await page.screenshot({ path: path.join(screenshots, 'wide-list-1280.png') })
      await page.context().close()
    },
    scaled(60_000),
  )
})
