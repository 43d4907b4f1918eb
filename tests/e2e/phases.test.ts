import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { AxeBuilder } from '@axe-core/playwright'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { PageConfig } from '../../schema/page-config.ts'
import { applyPhase } from '../../schema/phase-apply.ts'
import { buildSite } from '../../src/cli/build.ts'
import { readBuildSettings } from '../../src/server/env.ts'
import { openSqliteStore } from '../../src/server/store/sqlite/sqlite-store.ts'
import { readPageConfig } from '../server/support/fixtures.ts'
import {
  fill,
  inlineForm,
  launchBrowser,
  scaled,
  startServer,
  waitForHydration,
  waitForToast,
  type RunningServer,
} from './harness.ts'

// The default launch in its sold-out phase: the form is a waitlist for Phase 2, in the config's words.
const config: PageConfig = (() => {
  const shared = readPageConfig()
  return { ...shared, phases: { ...shared.phases!, current: 'sold-out' } }
})()
const soldOut = applyPhase(config, 'sold-out')
const root = mkdtempSync(path.join(tmpdir(), 'vip-sold-out-'))
const configFile = path.join(root, 'page.config.json')
let server: RunningServer
let browser: Browser

beforeAll(async () => {
  writeFileSync(configFile, JSON.stringify(config, null, 2))
  symlinkSync(path.resolve('public'), path.join(root, 'public'))
  symlinkSync(path.resolve('documents'), path.join(root, 'documents'))
  mkdirSync(path.join(root, 'dist'))
  await buildSite(configFile, path.join(root, 'dist', config.launch.slug), readBuildSettings({}), config)
  server = await startServer({ PAGE_CONFIG: configFile, DIST_DIR: path.join(root, 'dist') })
  browser = await launchBrowser()
}, scaled(300_000))

afterAll(async () => {
  await browser?.close()
  await server?.stop()
  rmSync(root, { recursive: true, force: true })
})

describe('the sold-out phase in Chromium', () => {
  it(
    "shows the waitlist's words, does not open the dialog by itself, and stores a waitlist registration as sold-out",
    async () => {
      // A first visit, on a fake (flowing) clock so the dialog's timer can be run past at once: in any other phase the
      // dialog opens by itself after modal.openDelayMs.
      const context = await browser.newContext({ viewport: { width: 390, height: 844 } })
      const page = await context.newPage()
      page.setDefaultTimeout(scaled(10_000))
      await page.clock.install()
      // Opened at an anchor, the page lays out every section at once (src/styles.css): the heading further down is
      // rendered text, and axe, which measures contrast on rendered boxes, sees each section's own background.
      await page.goto(`${server.url}/#main`, { waitUntil: 'load' })
      await waitForHydration(page)
      await page.clock.runFor(config.modal.openDelayMs + 5_000)
      expect(await page.getByRole('dialog').count()).toBe(0)
      await expect(page.getByText(soldOut.banner!).isVisible()).resolves.toBe(true)
      const register = page.locator('#register')
      await expect(register.getByRole('heading', { level: 2 }).innerText()).resolves.toBe('Join the Phase 2 Waitlist')
      const axe = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze()
      expect(
        axe.violations.map(
          (violation) => `${violation.id}: ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`,
        ),
      ).toEqual([])

      const form = inlineForm(page)
      const submit = form.getByRole('button', { name: soldOut.form.submitLabel })
      await submit.and(page.locator(':enabled')).waitFor({ timeout: scaled(15_000) })
      await fill(form, { name: 'Priya Raman', email: 'priya@example.com', phone: '555-555-0177', realtor: 'No' })
      await submit.click()
      await waitForToast(page, soldOut.form.toasts.success.title)

      const store = openSqliteStore(path.join(server.dataDir, 'leads.sqlite'), {
        defaultLaunch: config.launch.slug,
        readonly: true,
      })
      try {
        const [lead] = await store.listLeads(0, 10)
        expect(lead?.fields.email).toBe('priya@example.com')
        expect(lead?.phase).toBe('sold-out')
      } finally {
        await store.close()
      }
      await context.close()
    },
    scaled(120_000),
  )
})
