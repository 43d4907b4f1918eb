import { readFileSync } from 'node:fs'
import { AxeBuilder } from '@axe-core/playwright'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { LaunchDetail } from '../../src/studio/protocol.ts'
import { inviteAndSetPassword, launchBrowser, scaled, type ServerOnCopy, startServerOnCopy } from './harness.ts'

// Two people editing one launch in the studio, in Chromium against the real Node server, each in a browser context
// of their own with an account of their own (issue 44, "safe for a team"), and the previews while the text is not
// valid (issue 47.2).

const original = readFileSync('page.config.json', 'utf8')
const config = JSON.parse(original) as { site: { name: string }; sections: { heading: string }[] }
const oldHeading = config.sections[0]!.heading
const password = 'correct horse battery staple'

let copy: ServerOnCopy
let browser: Browser
let ann: { context: BrowserContext; page: Page }
let ben: { context: BrowserContext; page: Page }

beforeAll(async () => {
  copy = await startServerOnCopy('vip-studio-team-')
  browser = await launchBrowser()
  const env = { PAGE_CONFIG: copy.configFile }
  ann = await inviteAndSetPassword(browser, copy.server, { email: 'ann@example.com', password, env })
  // bypassCSP: axe is injected into Ben's pages (a strict CSP blocks Playwright's addScriptTag).
  ben = await inviteAndSetPassword(browser, copy.server, {
    email: 'ben@example.com',
    role: 'editor',
    password,
    env,
    bypassCSP: true,
  })
}, scaled(120_000))

afterAll(async () => {
  await browser?.close()
  await copy?.stop()
})

/** Opens the launch's editor on `page` and waits for its text and both previews. */
async function openLaunch(page: Page): Promise<void> {
  await page.goto(`${copy.server.url}/studio/`)
  await page.getByRole('link', { name: config.site.name, exact: true }).click()
  await page.getByRole('textbox', { name: 'page.config.json' }).waitFor()
  for (const title of ['Phone preview', 'Desktop preview'])
    await page.frameLocator(`iframe[title="${title}"]`).getByRole('heading', { level: 1 }).waitFor()
}

/** Selects the first match of `text` with the editor's own search (Ctrl+F), as a person would. */
async function selectInEditor(page: Page, text: string): Promise<void> {
  await page.getByRole('textbox', { name: 'page.config.json' }).click()
  await page.keyboard.press('Control+f')
  const field = page.getByRole('textbox', { name: 'Find' })
  await field.fill(text)
  await field.press('End')
  await field.press('Enter')
  await page.locator('.cm-searchMatch-selected').first().waitFor()
  await field.press('Escape')
}

/** Replaces the hero's heading line (whatever it says now) with `heading`, typed. */
async function typeHeading(page: Page, from: string, heading: string): Promise<void> {
  await selectInEditor(page, `"heading": "${from}"`)
  await page.keyboard.type(`"heading": "${heading}"`)
}

/** The launch as the server holds it now, read with the page's own session. */
function launchOf(page: Page): Promise<LaunchDetail> {
  return page.evaluate(async (slug) => {
    const response = await fetch(`/studio/api/launches/${slug}`)
    return (await response.json()) as LaunchDetail
  }, 'bramblewood-crossing')
}

const status = (page: Page) => page.getByRole('status').filter({ hasText: /Draft|draft|saved|Saved/ })

describe('two editors on one launch', () => {
  it(
    'shows each who else is editing, refuses a save made from the older text with who and when, and loses nothing: Keep mine, then Take theirs',
    async () => {
      await openLaunch(ann.page)
      await openLaunch(ben.page)
      // Presence: each sees the other by name.
      await ann.page.getByText('Also editing now: ben@example.com').waitFor({ timeout: scaled(20_000) })
      await ben.page.getByText('Also editing now: ann@example.com').waitFor({ timeout: scaled(20_000) })

      // Ann saves a heading change first.
      await typeHeading(ann.page, oldHeading, 'Heading by Ann')
      await status(ann.page)
        .getByText(/^Draft saved/)
        .waitFor()
      // Ben's open editor is not changed under his hands: the newer draft is announced, with who.
      const announced = ben.page.getByRole('alert').filter({ hasText: 'ann@example.com saved a newer draft' })
      await announced.getByText('Your text here is unchanged').waitFor({ timeout: scaled(20_000) })

      // Ben saves a change made from the older text: refused, told who saved and when; his text stays.
      await typeHeading(ben.page, oldHeading, 'Heading by Ben')
      await announced.getByText('Your save was not made').waitFor()
      await ben.page
        .getByRole('status')
        .getByText(
          /^The draft was not saved: ann@example\.com saved a newer draft \(version 1\) at \d{4}-\d\d-\d\d \d\d:\d\d UTC/,
        )
        .waitFor()
      expect((await launchOf(ben.page)).draftText).toContain('"heading": "Heading by Ann"')

      // See the difference: theirs and mine, line by line.
      await announced.getByRole('button', { name: 'See the difference' }).click()
      const diff = ben.page.getByLabel('Differences between ann@example.com’s draft and your text')
      const axe = await new AxeBuilder({ page: ben.page })
        .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'])
        .exclude('iframe')
        .analyze()
      expect(axe.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)).toEqual([])
      await expect(diff.innerText()).resolves.toMatch(
        /-\s*"heading": "Heading by Ann"[\s\S]*\+\s*"heading": "Heading by Ben"/,
      )

      // Keep mine: the draft holds the second text.
      await announced.getByRole('button', { name: 'Keep mine' }).click()
      await expect.poll(async () => (await launchOf(ben.page)).draftText).toContain('"heading": "Heading by Ben"')
      await expect(announced.count()).resolves.toBe(0)
      expect((await launchOf(ben.page)).draftText).not.toContain('Heading by Ann')

      // Now Ann's text is the older one: she changes it, is refused, and takes theirs: the draft holds Ben's text,
      // and so does her editor.
      const toAnn = ann.page.getByRole('alert').filter({ hasText: 'ben@example.com saved a newer draft' })
      await typeHeading(ann.page, 'Heading by Ann', 'Heading by Ann, again')
      await toAnn.getByText('Your save was not made').waitFor({ timeout: scaled(20_000) })
      await toAnn.getByRole('button', { name: 'Take theirs' }).click()
      await expect(toAnn.count()).resolves.toBe(0)
      await expect
        .poll(() => ann.page.getByRole('textbox', { name: 'page.config.json' }).textContent())
        .toContain('"heading": "Heading by Ben"')
      const afterTaking = await launchOf(ann.page)
      expect(afterTaking.draftText).toContain('"heading": "Heading by Ben"')
      expect(afterTaking.draftText).not.toContain('Heading by Ann')
      // And from there her next change saves as usual.
      await typeHeading(ann.page, 'Heading by Ben', 'Heading by Ann, third')
      await expect.poll(async () => (await launchOf(ann.page)).draftText).toContain('Heading by Ann, third')

      // Ben closes his editor: he drops off Ann's list.
      await ben.page.close({ runBeforeUnload: true })
      await expect(
        ann.page.getByText('Also editing now: ben@example.com').waitFor({ state: 'detached', timeout: scaled(30_000) }),
      ).resolves.toBeUndefined()
      ben.page = await ben.context.newPage()
    },
    scaled(240_000),
  )

  it(
    'keeps unsaved text over a closed tab and a lost connection, and offers it back on the next open',
    async () => {
      const page = await ann.context.newPage()
      page.setDefaultTimeout(scaled(30_000))
      await openLaunch(page)
      const before = (await launchOf(page)).draftText ?? ''
      const heading = /"heading": "([^"]*)"/.exec(before)![1]!
      await ann.context.setOffline(true)
      await typeHeading(page, heading, 'Typed while offline')
      await page
        .getByRole('status')
        .getByText(/^The draft was not saved/)
        .waitFor()
      await page.close()
      await ann.context.setOffline(false)
      expect((await launchOf(ann.page)).draftText).not.toContain('Typed while offline')

      const again = await ann.context.newPage()
      again.setDefaultTimeout(scaled(30_000))
      await openLaunch(again)
      const offer = again.getByRole('alert').filter({ hasText: 'was never saved' })
      await offer.getByRole('button', { name: 'Restore my unsaved text' }).click()
      await expect.poll(async () => (await launchOf(again)).draftText).toContain('"heading": "Typed while offline"')
      // Saved: nothing is offered the next time.
      await again.reload()
      await again.getByRole('textbox', { name: 'page.config.json' }).waitFor()
      await again.frameLocator('iframe[title="Desktop preview"]').getByRole('heading', { level: 1 }).waitFor()
      await expect(again.getByText('was never saved').count()).resolves.toBe(0)
      await again.close()
    },
    scaled(180_000),
  )
})

describe('the studio’s previews while the text is not valid', () => {
  it(
    'keep the new heading typed for as long as the text is invalid, and the problems list names the line',
    async () => {
      const page = ann.page
      await openLaunch(page)
      const phone = page.frameLocator('iframe[title="Phone preview"]')
      const desktop = page.frameLocator('iframe[title="Desktop preview"]')
      const heading = /"heading": "([^"]*)"/.exec((await launchOf(page)).draftText ?? original)![1]!
      await typeHeading(page, heading, 'A heading typed just now')
      for (const frame of [phone, desktop])
        await frame.getByRole('heading', { level: 1, name: 'A heading typed just now' }).waitFor()

      // Remove the comma after it: the text is not valid JSON until it is typed again.
      const previewAsked = page.waitForResponse((r) => new URL(r.url()).pathname.endsWith('/preview'))
      await page.keyboard.press('Delete')
      const problems = page.getByRole('list', { name: 'Problems' }).getByRole('button')
      await expect.poll(() => problems.count()).toBe(1)
      const draft = (await launchOf(page)).draftText ?? ''
      const line = draft.slice(0, draft.indexOf('"heading": "A heading typed just now"')).split('\n').length
      await expect(problems.first().innerText()).resolves.toMatch(new RegExp(`^Line ${line}, column \\d+`))
      await previewAsked
      await new Promise((resolve) => setTimeout(resolve, scaled(1500)))
      for (const frame of [phone, desktop])
        await expect(
          frame.getByRole('heading', { level: 1, name: 'A heading typed just now', exact: true }).count(),
        ).resolves.toBe(1)

      await page.keyboard.type(',')
      await page.getByRole('heading', { name: 'No problems' }).waitFor()
    },
    scaled(120_000),
  )
})
