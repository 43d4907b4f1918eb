import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { AxeBuilder } from '@axe-core/playwright'
import type { Browser, BrowserContext } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openSqliteStore } from '../../src/server/store/sqlite/sqlite-store.ts'
import { defaultLaunch, mailFor, newLead } from '../server/support/fixtures.ts'
import { startServerProcess, writeDist, type ServerProcess } from '../server/support/node-server.ts'
import { startTestReceiver, type TestReceiver } from '../server/support/webhook-receiver.ts'
import { launchBrowser, scaled } from './harness.ts'

// Follow-up on a phone, without JavaScript: sign in, set a lead's status to Contacted and add a note, filter the
// list by status and see only that lead; the change is in the lead's history and a signed lead.updated call reaches
// a real receiver. axe checks the lead's page at 390 and 1280 px.

const password = 'correct horse battery staple'
const secret = 'whsec-e2e-follow-up'
const wcag21 = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']
const note = 'Called back: wants a two-bedroom facing the park. Booking a visit for Saturday at 11.'
const screenshots = path.resolve('reports/leads-page')

describe('follow-up on the leads page in Chromium at 390 px, JavaScript off', () => {
  let root = ''
  let server: ServerProcess
  let crm: TestReceiver
  let browser: Browser
  let adaId = 0

  beforeAll(async () => {
    root = mkdtempSync(path.join(tmpdir(), 'vip-e2e-follow-up-'))
    cpSync('public', path.join(root, 'public'), { recursive: true })
    cpSync('documents', path.join(root, 'documents'), { recursive: true })
    writeFileSync(path.join(root, 'page.config.json'), readFileSync('page.config.json', 'utf8'))
    writeDist(path.join(root, 'dist'))
    const dataDir = path.join(root, '.data')
    mkdirSync(dataDir, { mode: 0o700 })
    const store = openSqliteStore(path.join(dataDir, 'leads.sqlite'), { defaultLaunch })
    const leads = [
      newLead({
        createdAt: '2026-03-01T15:00:00.000Z',
        fields: { name: 'Ada Lovelace', email: 'ada.lovelace@example.com', phone: '6475550111', isRealtor: 'no' },
      }),
      newLead({
        createdAt: '2026-03-02T15:00:00.000Z',
        fields: { name: 'Grace Hopper', email: 'grace@example.org', phone: '416-555-0102', isRealtor: 'yes' },
      }),
      newLead({
        launch: 'maple-ridge',
        createdAt: '2026-03-03T15:00:00.000Z',
        fields: { name: 'Ada L.', email: 'ada.l@example.org', phone: '+1 647 555 0111', isRealtor: 'no' },
      }),
    ]
    for (const lead of leads) {
      const saved = await store.saveLead(lead, mailFor(lead))
      if (lead.fields.name === 'Ada Lovelace') adaId = saved.lead.id
    }
    await store.close()
    crm = await startTestReceiver(secret)
    server = await startServerProcess({
      DATA_DIR: dataDir,
      DIST_DIR: path.join(root, 'dist'),
      PAGE_CONFIG: path.join(root, 'page.config.json'),
      LEADS_PASSWORD: password,
      WEBHOOK_URL: crm.url,
      WEBHOOK_SECRET: secret,
    })
    browser = await launchBrowser()
  }, scaled(90_000))

  afterAll(async () => {
    await browser?.close()
    await server?.stop()
    await crm?.stop()
    rmSync(root, { recursive: true, force: true })
  })

  async function signedIn(context: BrowserContext) {
    const page = await context.newPage()
    page.setDefaultTimeout(scaled(15_000))
    await page.goto(`${server.url}/leads`)
    await page.getByLabel('Password').fill(password)
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.getByRole('heading', { name: 'Registrations' }).waitFor()
    return page
  }

  it('sets the status to Contacted, adds a note, filters by status and shows only that lead', async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, javaScriptEnabled: false })
    const page = await signedIn(context)
    await page.getByRole('link', { name: 'Ada Lovelace' }).first().click()
    await page.getByRole('heading', { name: 'Ada Lovelace', level: 1 }).waitFor()
    await page.getByLabel('Status').selectOption('Contacted')
    await page.getByRole('button', { name: 'Save status' }).click()
    await page.getByLabel('Note').fill(note)
    await page.getByRole('button', { name: 'Add note' }).click()
    const history = page.locator('.lp-history')
    await expect
      .poll(() => history.locator('li').allInnerTexts())
      .toEqual([expect.stringContaining(note), expect.stringContaining('Status: Contacted')])
    expect(await page.getByLabel('Status').inputValue()).toBe('Contacted')
    expect(page.url()).toBe(`${server.url}/leads/lead/${adaId}`)
    await page.screenshot({ path: path.join(screenshots, 'lead-with-notes-390.png'), fullPage: true })

    await page.getByRole('link', { name: 'Back to the registrations' }).click()
    // On a phone the filters wait under Filters (a details element: it opens without script).
    await page.getByText('Filters', { exact: true }).click()
    await page.getByLabel('Status').selectOption('Contacted')
    await page.getByRole('button', { name: 'Search' }).click()
    await page.getByRole('heading', { name: 'Registrations' }).waitFor()
    expect(await page.locator('.lp-card-title').allInnerTexts()).toEqual(['Ada Lovelace'])
    expect(page.url()).toBe(`${server.url}/leads`)

    await expect
      .poll(
        () =>
          crm.calls.filter(
            (call) =>
              (
                JSON.parse(call.body) as {
                  type: string
                  data: { change: { kind: string; value: string } } & Record<string, unknown>
                }
              ).type === 'lead.updated',
          ).length,
        {
          timeout: scaled(15_000),
        },
      )
      .toBe(2)
    const update = crm.calls
      .map((call) => ({
        signed: call.signed,
        json: JSON.parse(call.body) as Partial<{
          type: string
          data: { change: { kind: string; value: string } } & Record<string, unknown>
        }>,
      }))
      .find((call) => call.json.data?.change?.kind === 'status')!
    expect(update.signed).toBe(true)
    expect(update.json.data).toMatchObject({ status: 'Contacted', change: { kind: 'status', value: 'Contacted' } })
    await context.close()
  })

  it.each([390, 1280])('has nothing axe finds on a lead with notes at %i px', async (width) => {
    // axe is injected as a script: the context bypasses the page's CSP for it.
    const context = await browser.newContext({ viewport: { width, height: 900 }, bypassCSP: true })
    const page = await signedIn(context)
    await page.goto(`${server.url}/leads/lead/${adaId}`)
    await page.getByRole('heading', { name: 'History' }).waitFor()
    const results = await new AxeBuilder({ page }).withTags(wcag21).analyze()
    expect(results.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)).toEqual([])
    await context.close()
  })
})
