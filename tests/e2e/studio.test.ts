import { readFileSync } from 'node:fs'
import path from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { localAnonKey } from '../../schema/local-defaults.ts'
import {
  inviteAndSetPassword,
  launchBrowser,
  type RunningServer,
  scaled,
  type ServerOnCopy,
  startServerOnCopy,
  waitForPublished,
} from './harness.ts'

// The studio end to end, in Chromium against the real Node server (src/cli/serve.ts) and the built studio
// (dist/_studio): from `npm run studio:invite` to a published and a restored version, on a COPY of the config.

const original = readFileSync('page.config.json', 'utf8')
const config = JSON.parse(original) as { site: { name: string }; sections: { heading: string }[] }
const oldHeading = config.sections[0]!.heading
const newHeading = `${oldHeading}, Phase Two`
const password = 'correct horse battery staple'

let copy: ServerOnCopy
let server: RunningServer
let browser: Browser

beforeAll(async () => {
  copy = await startServerOnCopy('vip-studio-e2e-')
  server = copy.server
  browser = await launchBrowser()
}, scaled(60_000))

afterAll(async () => {
  await browser?.close()
  await copy?.stop()
})

/** The launch's home page as a plain HTTP client gets it (no browser, no studio session). */
async function homePage(): Promise<string> {
  return (await fetch(`${server.url}/`)).text()
}

/**
 * Another process's visitors, as during a real publish: GET / and a registration, over and over, from another
 * connection than the browser's, until stopped. Every answer must be 200, and every page wholly the old version or
 * wholly the new one (its hero heading, title and data block never from two versions).
 */
function startVisitors(): {
  stop(): Promise<{ errors: string[]; mixed: string[]; registered: number; pages: { old: number; new: number } }>
} {
  const errors: string[] = []
  const mixed: string[] = []
  const pages = { old: 0, new: 0 }
  let registered = 0
  let going = true
  let n = 0
  const visit = async () => {
    while (going) {
      n += 1
      try {
        const [home, registration] = await Promise.all([
          fetch(`${server.url}/`),
          fetch(`${server.url}/functions/v1/send-contact-email`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', apikey: localAnonKey, origin: server.url },
            body: JSON.stringify({
              name: 'Load Test',
              email: `visitor${n}@example.org`,
              phone: '555-555-0100',
              isRealtor: 'no',
            }),
          }),
        ])
        const html = await home.text()
        if (home.status !== 200) errors.push(`GET / ${home.status}`)
        if (registration.status !== 200)
          errors.push(`registration ${registration.status} ${(await registration.text()).slice(0, 200)}`)
        else registered += 1
        const isNew = html.includes(`>${newHeading}<`)
        const isOld = html.includes(`>${oldHeading}<`)
        if (isNew === isOld) mixed.push(html.slice(0, 300))
        else pages[isNew ? 'new' : 'old'] += 1
      } catch (error) {
        errors.push(String(error))
      }
    }
  }
  const visitors = [visit(), visit()]
  return {
    async stop() {
      going = false
      await Promise.all(visitors)
      return { errors, mixed, registered, pages }
    },
  }
}

/** Selects the first match of `text` in the code editor with its own search (Ctrl+F), as a person would. */
async function selectInEditor(page: Page, text: string): Promise<void> {
  await page.getByRole('textbox', { name: 'page.config.json' }).click()
  await page.keyboard.press('Control+f')
  const field = page.getByRole('textbox', { name: 'Find' })
  await field.fill(text)
  // The search panel takes its query on a key press, as when typed.
  await field.press('End')
  await field.press('Enter')
  await field.press('Escape')
}

describe('the studio, end to end', () => {
  it(
    'invites, sets a password, signs in, changes the hero heading, publishes, and restores the version before byte for byte',
    async () => {
      const { context, page } = await inviteAndSetPassword(browser, server, {
        email: 'owner@example.com',
        password,
        env: { PAGE_CONFIG: copy.configFile },
      })
      await page.getByRole('list', { name: 'Launches' }).waitFor()

      // Out, and in again with the password just chosen.
      await page.getByRole('button', { name: 'Sign out' }).click()
      await page.getByLabel('Email').fill('owner@example.com')
      await page.getByLabel('Password').fill(password)
      await page.getByRole('button', { name: 'Sign in' }).click()

      await page.getByRole('link', { name: config.site.name, exact: true }).click()
      await page.getByRole('textbox', { name: 'page.config.json' }).waitFor()
      const desktop = page.frameLocator('iframe[title="Desktop preview"]')
      await expect
        .poll(() => desktop.getByRole('heading', { level: 1 }).textContent(), { timeout: scaled(30_000) })
        .toBe(oldHeading)

      await selectInEditor(page, `"heading": "${oldHeading}"`)
      await page.keyboard.type(`"heading": "${newHeading}"`)
      await expect
        .poll(() => desktop.getByRole('heading', { level: 1 }).textContent(), { timeout: scaled(30_000) })
        .toBe(newHeading)
      await expect
        .poll(() => page.frameLocator('iframe[title="Phone preview"]').getByRole('heading', { level: 1 }).textContent())
        .toBe(newHeading)
      expect(readFileSync(copy.configFile, 'utf8'), 'a draft never touches the file').toBe(original)

      // Visitors keep coming while it publishes: pages and registrations, each answered, each page wholly one version.
      const load = startVisitors()
      await page.getByRole('button', { name: 'Publish', exact: true }).click()
      await page.getByRole('dialog').getByRole('button', { name: 'Publish now' }).click()
      await waitForPublished(page, 2)
      const visits = await load.stop()
      expect(visits.errors).toEqual([])
      expect(visits.mixed).toEqual([])
      expect(visits.registered).toBeGreaterThan(0)
      expect(visits.pages.old + visits.pages.new).toBeGreaterThan(0)
      const edited = original.replace(`"heading": "${oldHeading}"`, () => `"heading": "${newHeading}"`)
      expect(readFileSync(copy.configFile, 'utf8')).toBe(edited)
      await expect.poll(homePage, { timeout: scaled(10_000) }).toContain(newHeading)

      const history = page.getByRole('list', { name: 'History' })
      await history.getByText('Version 2', { exact: true }).waitFor()
      page.once('dialog', (dialog) => void dialog.accept())
      await history
        .getByRole('listitem')
        .filter({ hasText: 'Version 1' })
        .getByRole('button', { name: /^Restore/ })
        .click()
      await waitForPublished(page, 3)
      expect(readFileSync(copy.configFile, 'utf8')).toBe(original)
      await expect.poll(async () => (await homePage()).includes(newHeading), { timeout: scaled(10_000) }).toBe(false)
      expect(await homePage()).toContain(oldHeading)

      // A picture added with the file picker: stored in the launch's images under a clean name, written at the cursor.
      await page.getByRole('textbox', { name: 'page.config.json' }).click()
      await page
        .getByLabel('Picture files to add')
        .setInputFiles({ name: 'Front Porch.PNG', mimeType: 'image/png', buffer: readFileSync('public/favicon.png') })
      await page.getByText('Added /images/front-porch.png (32 × 32 pixels)').waitFor()
      expect(readFileSync(path.join(copy.dir, 'public/images/front-porch.png'))).toEqual(
        readFileSync('public/favicon.png'),
      )
      await expect
        .poll(() => page.getByRole('textbox', { name: 'page.config.json' }).textContent())
        .toContain('{ "src": "/images/front-porch.png", "alt": "", "width": 32, "height": 32 }')
      await context.close()
    },
    scaled(480_000),
  )
})
