import { readFileSync } from 'node:fs'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  inviteAndSetPassword,
  launchBrowser,
  scaled,
  startServerOnCopy,
  type ServerOnCopy,
  waitForPublished,
} from './harness.ts'

// The studio's phase picker in Chromium against the real Node server and the built studio, on a COPY of the config:
// the previews show the phase chosen, a preview link shows it to someone without an account, and "Make … the
// current phase" writes "current" into the text, which a publish puts live.

const password = 'correct horse battery staple'
const publicEyebrow = 'Now Open to Everyone'

let copy: ServerOnCopy
let browser: Browser

beforeAll(async () => {
  copy = await startServerOnCopy('vip-studio-phases-')
  browser = await launchBrowser()
}, scaled(60_000))

afterAll(async () => {
  await browser?.close()
  await copy?.stop()
})

describe('the studio: phases', () => {
  it(
    'previews another phase, links it for approval, and makes it current with one button and a publish',
    async () => {
      const { server, configFile, original } = copy
      expect(original).toContain('"current": "vip"')
      const { context, page } = await inviteAndSetPassword(browser, server, {
        email: 'owner@example.com',
        password,
        env: { PAGE_CONFIG: configFile },
      })
      const name = (JSON.parse(original) as { site: { name: string } }).site.name
      await page.getByRole('link', { name, exact: true }).click()
      const picker = page.getByRole('combobox', { name: 'Phase shown' })
      await expect.poll(() => picker.inputValue(), { timeout: scaled(30_000) }).toBe('vip')
      expect(await picker.locator('option:checked').textContent()).toBe('VIP (live now)')
      const desktop = page.frameLocator('iframe[title="Desktop preview"]')
      await expect.poll(() => desktop.locator('body').textContent(), { timeout: scaled(30_000) }).toContain('Register')
      expect(await desktop.locator('body').textContent()).not.toContain(publicEyebrow)

      await picker.selectOption('public')
      await expect
        .poll(() => desktop.locator('body').textContent(), { timeout: scaled(30_000) })
        .toContain(publicEyebrow)
      await expect
        .poll(() => page.frameLocator('iframe[title="Phone preview"]').locator('body').textContent())
        .toContain(publicEyebrow)

      // A link for approval shows the phase chosen to someone with no account.
      await page.getByRole('button', { name: 'Preview link' }).click()
      const link = page.getByRole('textbox', { name: /Preview link/ })
      await link.waitFor()
      await page.getByText('in the Public release phase').waitFor()
      const guest = await browser.newContext()
      const guestPage = await guest.newPage()
      await guestPage.goto(await link.inputValue())
      await expect
        .poll(() => guestPage.locator('body').textContent(), { timeout: scaled(30_000) })
        .toContain(publicEyebrow)
      await guest.close()

      // One button writes "current" into the text; the publish puts the public release live.
      await page.getByRole('button', { name: 'Make Public release the current phase' }).click()
      // (The code editor draws only the lines in view; the file after the publish shows the whole text.)
      await page.getByRole('status').filter({ hasText: '"current" is now "public" in the text' }).waitFor()
      await expect
        .poll(() => picker.locator('option:checked').textContent(), { timeout: scaled(30_000) })
        .toBe('Public release (live now)')
      await page.getByRole('button', { name: 'Publish', exact: true }).click()
      await page.getByRole('dialog').getByRole('button', { name: 'Publish now' }).click()
      await waitForPublished(page, 2)
      expect(readFileSync(configFile, 'utf8')).toBe(original.replace('"current": "vip"', '"current": "public"'))
      await expect
        .poll(async () => (await fetch(`${server.url}/`)).text(), { timeout: scaled(10_000) })
        .toContain(publicEyebrow)
      await context.close()
    },
    scaled(300_000),
  )
})
