import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { PageConfig } from '../../schema/page-config.ts'
import { startLeadsPageServer } from '../../src/cli/leads-page.ts'
import { parseNodeEnv } from '../../src/server/env.ts'
import { leadsPageLaunchOf } from '../../src/server/leads-page/views.ts'
import { openSqliteStore } from '../../src/server/store/sqlite/sqlite-store.ts'
import type { LeadStore } from '../../src/server/store/store.ts'
import { secondLaunchConfig } from '../fixtures/second-launch.ts'
import { parseCsv } from '../server/support/csv.ts'
import { mailFor, newLead } from '../server/support/fixtures.ts'
import { launchBrowser, scaled } from './harness.ts'

// What the sales team reads of its people, in Chromium against the real leads page server: the people's CSV of one
// launch (its Launch and Last note columns, read back by an RFC 4180 parser), and a roster's salespeople by name.

const config = JSON.parse(readFileSync('page.config.json', 'utf8')) as PageConfig
const second = JSON.parse(readFileSync(secondLaunchConfig, 'utf8')) as PageConfig
const password = 'correct horse battery staple'
// Two named people in the default launch's roster: a lead is stored as assigned to an address, read by a name.
const roster = [
  { name: 'Sam Chen', email: 'sam.chen@example.com' },
  { name: 'Rosa Delgado', email: 'rosa.delgado@example.com' },
]

let dataDir: string
let store: LeadStore
let server: { url: string; close(): Promise<void> }
let browser: Browser
const ids: Record<string, number> = {}

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'vip-e2e-people-'))
  store = openSqliteStore(path.join(dataDir, 'leads.sqlite'), { defaultLaunch: config.launch.slug })
  const parsed = parseNodeEnv({ LEADS_PASSWORD: password, PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir })
  if (!parsed.ok) throw new Error(parsed.problems.join('\n'))
  const withRoster = { ...config, launch: { ...config.launch, roster } }
  server = await startLeadsPageServer([leadsPageLaunchOf(withRoster), leadsPageLaunchOf(second)], parsed.config, store)
  const leads = {
    priya: newLead({
      launch: config.launch.slug,
      createdAt: '2026-03-02T15:00:00.000Z',
      fields: { name: 'Priya Raman', email: 'priya@example.com', phone: '647-555-0111', isRealtor: 'no' },
    }),
    wen: newLead({
      launch: second.launch.slug,
      createdAt: '2026-03-02T16:00:00.000Z',
      fields: { name: 'Wen Zhao', email: 'wen@example.com', phone: '416-555-0101', postalCode: 'M4C 1A1' },
    }),
    jonas: newLead({
      launch: config.launch.slug,
      createdAt: '2026-03-02T17:00:00.000Z',
      fields: { name: 'Jonas Berg', email: 'jonas@example.com', phone: '905-555-0142', isRealtor: 'no' },
    }),
  }
  for (const [who, lead] of Object.entries(leads)) ids[who] = (await store.saveLead(lead, mailFor(lead))).lead.id
  const change = (leadId: number, kind: 'note' | 'assignee', value: string, at: string) =>
    store.recordFollowUp({ leadId, kind, value, author: 'Team password', at })
  await change(ids.priya!, 'note', 'Called, wants a two-bedroom', '2026-03-03T10:00:00.000Z')
  await change(ids.priya!, 'note', 'Visit booked for Saturday, 11 a.m.', '2026-03-04T10:00:00.000Z')
  await change(ids.priya!, 'assignee', roster[1]!.email, '2026-03-04T10:05:00.000Z')
  await change(ids.wen!, 'note', 'Another launch: never in the first file', '2026-03-04T11:00:00.000Z')
  browser = await launchBrowser()
}, scaled(60_000))

afterAll(async () => {
  await browser?.close()
  await server?.close()
  await store?.close()
  rmSync(dataDir, { recursive: true, force: true })
})

async function signedIn(width: number): Promise<Page> {
  const context = await browser.newContext({ viewport: { width, height: 900 }, acceptDownloads: true })
  const page = await context.newPage()
  page.setDefaultTimeout(scaled(15_000))
  await page.goto(`${server.url}/leads`)
  await page.getByLabel('Password').fill(password)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.getByRole('heading', { name: 'Registrations' }).waitFor()
  return page
}

describe("the people's CSV", () => {
  it(
    'filtered to one launch still names the launch, and gives each lead its last note, read back by a CSV parser',
    async () => {
      const page = await signedIn(1280)
      await page.getByLabel('Launch').selectOption({ label: config.site.name })
      await page.getByRole('button', { name: 'Search' }).click()
      await page.getByText(`2 registrations for ${config.site.name}.`).waitFor()
      const [download] = await Promise.all([
        page.waitForEvent('download'),
        page.getByRole('link', { name: 'Download these as CSV' }).click(),
      ])
      const text = readFileSync(await download.path(), 'utf8')
      expect(text.startsWith('\uFEFF')).toBe(true)
      const [header, ...rows] = parseCsv(text.slice(1))
      expect(header!.slice(0, 10)).toEqual([
        'Received (local time)',
        'Launch',
        'Name',
        'E-mail',
        'Phone',
        'Realtor',
        'Status',
        'Assigned to',
        'Last note',
        'Source',
      ])
      // Then the form's other fields by their labels (the updates box), never a field with a column of its own.
      expect(header!.slice(10)).toEqual(['Send me news and VIP updates about Bramblewood Crossing (optional)'])
      const records = rows.map((row) => Object.fromEntries(header!.map((column, i) => [column, row[i]])))
      expect(records.map((r) => r.Name)).toEqual(['Jonas Berg', 'Priya Raman'])
      expect(records[1]).toMatchObject({
        'Received (local time)': '2026-03-02 10:00',
        Launch: config.site.name,
        'E-mail': 'priya@example.com',
        Phone: '(647) 555-0111',
        'Assigned to': roster[1]!.name,
        'Last note': 'Visit booked for Saturday, 11 a.m.',
      })
      expect(records[0]).toMatchObject({ Launch: config.site.name, 'Assigned to': '', 'Last note': '' })
      await page.context().close()
    },
    scaled(60_000),
  )
})

describe("a roster's salespeople", () => {
  it(
    'show by their names, not their addresses, in the list and on the lead, where one is assigned to another',
    async () => {
      for (const width of [390, 1280]) {
        const page = await signedIn(width)
        const view = width < 960 ? page.locator('.lp-cards') : page.getByRole('table')
        await expect(view.getByText(roster[1]!.name).count()).resolves.toBe(1)
        await expect(page.locator('main').getByText(roster[1]!.email).count()).resolves.toBe(0)
        await page.goto(`${server.url}/leads/lead/${ids.priya}`)
        // The assignee is chosen among the roster, by name; the address is only the value the form sends.
        const assignee = page.getByLabel('Assigned to')
        await expect(assignee.locator('option:checked').textContent()).resolves.toBe(roster[1]!.name)
        await expect(
          assignee.locator('option').evaluateAll((options) => options.map((o) => o.textContent)),
        ).resolves.toEqual(['Nobody', roster[0]!.name, roster[1]!.name])
        await expect(page.locator('main').getByText(roster[1]!.email).count()).resolves.toBe(0)
        await assignee.selectOption({ label: roster[0]!.name })
        await page.getByRole('button', { name: 'Save assignee' }).click()
        await expect.poll(() => assignee.locator('option:checked').textContent()).toBe(roster[0]!.name)
        await expect(page.locator('.lp-history').getByText(roster[0]!.name).count()).resolves.toBeGreaterThan(0)
        await expect(page.locator('main').getByText(roster[0]!.email).count()).resolves.toBe(0)
        await assignee.selectOption({ label: roster[1]!.name })
        await page.getByRole('button', { name: 'Save assignee' }).click()
        await expect.poll(() => assignee.locator('option:checked').textContent()).toBe(roster[1]!.name)
        await page.context().close()
      }
    },
    scaled(90_000),
  )
})
