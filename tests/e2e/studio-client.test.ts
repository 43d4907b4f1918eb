import { readFileSync } from 'node:fs'
import { AxeBuilder } from '@axe-core/playwright'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startStubStudio, stubSessionCookie, type StubStudio } from '../studio/support/stub-studio-server.ts'
import { launchBrowser, scaled, waitForPublished } from './harness.ts'

// The studio's browser part as built (dist/_studio), in Chromium, against a stand-in of its server that speaks the
// protocol from memory (tests/studio/support): the editor's round trips, the accessibility gate at 390 and 1440 px,
// and no CSP violation under the server's strict policy. The real server's end-to-end test is tests/e2e/studio.test.ts.

const configText = readFileSync('page.config.json', 'utf8')
const config = JSON.parse(configText) as {
  site: { name: string }
  launch: { slug: string }
  sections: { heading: string }[]
}
const slug = config.launch.slug
const wcag21 = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']

let stub: StubStudio
let browser: Browser
const violations: string[] = []

beforeAll(async () => {
  stub = await startStubStudio({ [slug]: 'page.config.json' })
  browser = await launchBrowser()
}, scaled(60_000))

afterAll(async () => {
  await browser?.close()
  await stub?.close()
})

async function open(path: string, width: number): Promise<{ page: Page; context: BrowserContext }> {
  // axe is injected as a script: the page's CSP would refuse it (FACTS.md). CSP violations are still reported.
  const context = await browser.newContext({ viewport: { width, height: 900 }, bypassCSP: true })
  await context.addCookies([{ ...stubSessionCookie, domain: '127.0.0.1' }])
  const page = await context.newPage()
  page.setDefaultTimeout(scaled(20_000))
  page.on('console', (message) => {
    if (/Content Security Policy/.test(message.text())) violations.push(message.text())
  })
  await page.goto(stub.url + path)
  return { page, context }
}

async function axe(page: Page): Promise<string[]> {
  const result = await new AxeBuilder({ page }).withTags(wcag21).exclude('iframe').analyze()
  return result.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)
}

describe('the studio in Chromium', () => {
  it('lists the launches by site name and opens one in the editor with its previews', async () => {
    const { page, context } = await open('/studio/', 1440)
    await page.getByRole('link', { name: config.site.name, exact: true }).click()
    await expect.poll(() => page.url()).toBe(`${stub.url}/studio/launches/${slug}`)
    await page.getByRole('textbox', { name: 'page.config.json' }).waitFor()
    await page.getByRole('list', { name: 'Problems' }).waitFor({ state: 'attached' })
    for (const title of ['Phone preview', 'Desktop preview']) {
      await expect
        .poll(() => page.frameLocator(`iframe[title="${title}"]`).getByRole('heading', { level: 1 }).textContent())
        .toBe(config.sections[0]!.heading)
    }
    await context.close()
  })

  it(
    'changes the hero heading through the form view: the text changes only there, the draft is saved and the previews follow',
    async () => {
      const { page, context } = await open(`/studio/launches/${slug}`, 1440)
      const desktop = page.frameLocator('iframe[title="Desktop preview"]')
      // Click to locate: the hero in the preview puts the cursor in its JSON, and the form view shows that section.
      await desktop.getByRole('heading', { level: 1 }).click()
      await page.getByRole('heading', { name: 'Section 1: hero' }).waitFor()
      const heading = page.getByRole('textbox', { name: /^Heading/ })
      await heading.fill('Bramblewood Crossing, Phase Two')
      await expect
        .poll(() => stub.drafts.get(slug))
        .toBe(
          configText.replace(
            `"heading": ${JSON.stringify(config.sections[0]!.heading)}`,
            '"heading": "Bramblewood Crossing, Phase Two"',
          ),
        )
      await expect
        .poll(() => desktop.getByRole('heading', { level: 1 }).textContent())
        .toBe('Bramblewood Crossing, Phase Two')
      await expect
        .poll(() => page.frameLocator('iframe[title="Phone preview"]').getByRole('heading', { level: 1 }).textContent())
        .toBe('Bramblewood Crossing, Phase Two')

      // Publish asks first, then says which version is live and where.
      await page.getByRole('button', { name: 'Publish', exact: true }).click()
      await page
        .getByRole('dialog', { name: /Publish/ })
        .getByRole('button', { name: 'Publish now' })
        .click()
      await waitForPublished(page, 2)
      expect(stub.published.get(slug)!.at(-1)).toContain('Bramblewood Crossing, Phase Two')
      const history = page.getByRole('list', { name: 'History' })
      await history.getByText('Version 2', { exact: true }).waitFor()
      expect(await history.getByRole('listitem').count()).toBe(2)
      // The version before can be seen as a diff and restored.
      page.once('dialog', (dialog) => void dialog.accept())
      await history
        .getByRole('listitem')
        .nth(1)
        .getByRole('button', { name: /^Restore/ })
        .click()
      await waitForPublished(page, 3)
      expect(stub.published.get(slug)!.at(-1)).toBe(configText)
      await context.close()
    },
    scaled(90_000),
  )

  it('shows a preview link to copy', async () => {
    const { page, context } = await open(`/studio/launches/${slug}`, 1440)
    await page.getByRole('button', { name: 'Preview link' }).click()
    expect(await page.getByRole('textbox', { name: /Preview link/ }).inputValue()).toMatch(/\/studio\/preview\//)
    await context.close()
  })

  for (const width of [390, 1440]) {
    it(
      `passes axe's WCAG 2.1 A and AA rules at ${width} px: launches, editor, new launch, people, audit log`,
      async () => {
        const { page, context } = await open('/studio/', width)
        await page.getByRole('list', { name: 'Launches' }).waitFor()
        const found: string[] = [...(await axe(page)).map((v) => `launches: ${v}`)]
        await page.goto(`${stub.url}/studio/launches/${slug}`)
        await page.getByRole('textbox', { name: 'page.config.json' }).waitFor()
        await page.getByRole('list', { name: 'History' }).getByRole('listitem').first().waitFor()
        // The phase picker above the previews (the launch has phases).
        await page.getByRole('combobox', { name: 'Phase shown' }).waitFor()
        found.push(...(await axe(page)).map((v) => `editor: ${v}`))
        for (const view of ['new-launch', 'people', 'audit']) {
          await page.goto(`${stub.url}/studio/?view=${view}`)
          await page.getByRole('heading', { level: 1 }).waitFor()
          await page.waitForLoadState('networkidle')
          found.push(...(await axe(page)).map((v) => `${view}: ${v}`))
        }
        expect(found).toEqual([])
        await context.close()
      },
      scaled(120_000),
    )
  }

  it('breaks no rule of the strict CSP (no inline script or style, no eval)', () => {
    expect(violations).toEqual([])
  })
})
