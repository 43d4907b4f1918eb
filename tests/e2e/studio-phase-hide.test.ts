import type { Browser } from 'playwright-core'
import { AxeBuilder } from '@axe-core/playwright'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  inviteAndSetPassword,
  launchBrowser,
  scaled,
  startServerOnCopy,
  type ServerOnCopy,
  waitForPublished,
} from './harness.ts'

// Hide in this phase (issue 44) in Chromium against the real Node server and the built studio, on a COPY of the config:
// with the public phase shown, a section's toolbar hides it in that phase only. The text says so, the editor keeps it
// dimmed, a preview link and the live page in that phase leave it out (its header link too), the VIP phase keeps it.

const password = 'correct horse battery staple'
type Config = {
  launch: { slug: string }
  site: { name: string }
  sections: { anchor?: string; heading: string }[]
  phases: { list: { name: string; hide?: string[] }[] }
}
const overview = 'Close to town, connected to the region'

let copy: ServerOnCopy
let browser: Browser

beforeAll(async () => {
  copy = await startServerOnCopy('vip-studio-phase-hide-')
  browser = await launchBrowser()
}, scaled(60_000))

afterAll(async () => {
  await browser?.close()
  await copy?.stop()
})

describe('the studio: a section hidden in a phase', () => {
  it(
    'hides a section in the public phase only, undoes it, and publishes it: the live page leaves it out in that phase',
    async () => {
      const { server, configFile, original } = copy
      const config = JSON.parse(original) as Config
      const index = config.sections.findIndex((s) => s.heading === overview)
      expect(config.sections[index]!.anchor).toBe('overview')
      const { context, page } = await inviteAndSetPassword(browser, server, {
        email: 'owner@example.com',
        password,
        env: { PAGE_CONFIG: configFile },
        viewport: { width: 1280, height: 800 },
        bypassCSP: true,
      })
      const draftHides = async () => {
        const res = await context.request.get(`${server.url}/studio/api/launches/${config.launch.slug}`)
        const detail = (await res.json()) as { draftText?: string }
        const draft = JSON.parse(detail.draftText ?? original) as Config
        return draft.phases.list.find((p) => p.name === 'public')?.hide ?? []
      }
      await page.getByRole('link', { name: config.site.name, exact: true }).click()
      const picker = page.getByRole('combobox', { name: 'Phase shown' })
      await expect.poll(() => picker.inputValue(), { timeout: scaled(30_000) }).toBe('vip')
      await picker.selectOption('public')
      await expect.poll(() => page.getByText('The previews show Public release').count()).toBe(1)
      const desktop = page.frameLocator('iframe[title="Desktop preview"]')
      const section = desktop.locator('main#main > *').nth(index)
      await section.getByRole('heading', { name: overview }).waitFor()
      await section.click({ position: { x: 5, y: 5 } })
      const toolbar = desktop.getByRole('toolbar', { name: `Section ${index + 1}` })
      await toolbar.getByRole('button', { name: 'Hide in this phase' }).waitFor()
      await page
        .locator('iframe[title="Desktop preview"]')
        .screenshot({ path: 'reports/screenshots/studio-toolbar-hide-button-1280.png' })
      // The keyboard's way, as for the toolbar's other buttons: the button focused, Enter.
      await toolbar.getByRole('button', { name: 'Hide in this phase' }).focus()
      await page.keyboard.press('Enter')

      // The text: the anchor in the public phase's "hide". The editor keeps the section, dimmed and labelled.
      await expect.poll(draftHides, { timeout: scaled(15_000) }).toEqual(['overview'])
      await expect.poll(() => section.getAttribute('data-editor-hidden')).toBe('Hidden in Public release')
      await toolbar.getByRole('button', { name: 'Show in this phase' }).waitFor()
      await page.screenshot({ path: 'reports/screenshots/studio-hide-in-phase-1280.png' })
      // The sections list says it too: its Hide is pressed.
      expect(
        await page
          .getByRole('button', { name: `Hide in Public release: Feature: ${overview}` })
          .getAttribute('aria-pressed'),
      ).toBe('true')
      const axe = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze()
      expect(axe.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)).toEqual([])

      // A preview link of the public phase leaves it out, with its header link.
      await page.getByRole('button', { name: 'Preview link' }).click()
      const link = page.getByRole('textbox', { name: /Preview link/ })
      await link.waitFor()
      const guest = await browser.newContext()
      const guestPage = await guest.newPage()
      await guestPage.goto(await link.inputValue())
      await guestPage.getByRole('heading', { level: 1 }).waitFor({ timeout: scaled(30_000) })
      expect(await guestPage.getByRole('heading', { name: overview }).count()).toBe(0)
      expect(await guestPage.locator('header a[href="#overview"]').count()).toBe(0)
      await guest.close()

      // The VIP phase (the base page as it is live) keeps it, not dimmed.
      await picker.selectOption('vip')
      await expect.poll(() => section.getAttribute('data-editor-hidden')).toBeNull()
      await section.getByRole('heading', { name: overview }).waitFor()

      // Undo takes the change back out of the text; Redo puts it back.
      await page.getByRole('button', { name: 'Undo' }).click()
      await expect.poll(draftHides, { timeout: scaled(15_000) }).toEqual([])
      await page.getByRole('button', { name: 'Redo' }).click()
      await expect.poll(draftHides, { timeout: scaled(15_000) }).toEqual(['overview'])

      // Published with VIP live: the live page shows it. Once the public phase is live, it leaves it out.
      await page.getByRole('button', { name: 'Publish', exact: true }).click()
      await page.getByRole('dialog').getByRole('button', { name: 'Publish now' }).click()
      await waitForPublished(page, 2)
      const live = async () => (await fetch(`${server.url}/`)).text()
      await expect.poll(live, { timeout: scaled(10_000) }).toContain(overview)
      expect(await live()).toContain('href="#overview"')
      await picker.selectOption('public')
      await page.getByRole('button', { name: 'Make Public release the current phase' }).click()
      await page.getByRole('status').filter({ hasText: '"current" is now "public" in the text' }).waitFor()
      await page.getByRole('button', { name: 'Publish', exact: true }).click()
      await page.getByRole('dialog').getByRole('button', { name: 'Publish now' }).click()
      await waitForPublished(page, 3)
      await expect.poll(live, { timeout: scaled(10_000) }).not.toContain(overview)
      expect(await live()).not.toContain('href="#overview"')
      expect(await live()).toContain(config.sections[index + 1]!.heading)
      await context.close()
    },
    scaled(400_000),
  )
})
