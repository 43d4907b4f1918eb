import { readFileSync } from 'node:fs'
import { AxeBuilder } from '@axe-core/playwright'
import type { Browser, BrowserContext, FrameLocator, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startStubStudio, stubSessionCookie, type StubStudio } from '../studio/support/stub-studio-server.ts'
import { launchBrowser, scaled } from './harness.ts'

// The studio's canvas (issue 44) as built (dist/_studio), in Chromium, against the stand-in of its server: the previews
// are the editor. Texts are edited in place, sections moved, added, deleted, and every change is one of the text,
// undone and redone in one history. The real server's round trip to the live page is tests/e2e/studio-visual.test.ts.

const configText = readFileSync('page.config.json', 'utf8')
type Section = { type: string; heading: string; eyebrow?: string }
type Config = {
  launch: { slug: string }
  sections: Section[]
  phases: { current: string; list: { name: string; hero?: { eyebrow?: string }; hide?: string[] }[] }
}
const config = JSON.parse(configText) as Config
const slug = config.launch.slug

let stub: StubStudio
let browser: Browser

beforeAll(async () => {
  stub = await startStubStudio({ [slug]: 'page.config.json' })
  browser = await launchBrowser()
}, scaled(60_000))

afterAll(async () => {
  await browser?.close()
  await stub?.close()
})

async function openEditor(viewport = { width: 1440, height: 900 }): Promise<{
  page: Page
  context: BrowserContext
  phone: FrameLocator
  desktop: FrameLocator
}> {
  // axe is injected as a script: the studio's CSP would refuse it (FACTS.md).
  const context = await browser.newContext({ viewport, bypassCSP: true })
  await context.addCookies([{ ...stubSessionCookie, domain: '127.0.0.1' }])
  const page = await context.newPage()
  page.setDefaultTimeout(scaled(20_000))
  stub.drafts.delete(slug)
  await page.goto(`${stub.url}/studio/launches/${slug}`)
  await page.getByRole('textbox', { name: 'page.config.json' }).waitFor()
  const phone = page.frameLocator('iframe[title="Phone preview"]')
  const desktop = page.frameLocator('iframe[title="Desktop preview"]')
  await phone.getByRole('heading', { level: 1 }).waitFor()
  await desktop.getByRole('heading', { level: 1 }).waitFor()
  return { page, context, phone, desktop }
}

/** The headings of the sections the desktop preview shows, in page order. */
function sectionHeadings(frame: FrameLocator): Promise<string[]> {
  return frame
    .locator('main#main > *')
    .evaluateAll((sections) => sections.map((s) => s.querySelector('h1, h2')?.textContent?.trim() ?? ''))
}

/** axe's WCAG 2.1 A and AA rules on the editor page (the frames are the page's own, checked by the page's tests). */
async function axe(page: Page): Promise<string[]> {
  const result = await new AxeBuilder({ page })
    .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'])
    .exclude('iframe')
    .analyze()
  return result.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)
}

const draft = (): Config => JSON.parse(stub.drafts.get(slug) ?? configText) as Config

describe('the canvas: the previews are the editor', () => {
  it('edits the hero heading in place in the phone preview: the desktop follows as typed, the text changes only there', async () => {
    const { page, context, phone, desktop } = await openEditor()
    const heading = config.sections[0]!.heading
    await phone.getByRole('heading', { level: 1 }).click()
    await page.keyboard.press('Control+a')
    await page.keyboard.type('Bramblewood Crossing, Phase Two')
    // The other preview follows at each keystroke, before anything is committed.
    await expect
      .poll(() => desktop.getByRole('heading', { level: 1 }).textContent())
      .toBe('Bramblewood Crossing, Phase Two')
    await page.keyboard.press('Enter')
    await expect.poll(() => stub.drafts.get(slug), { timeout: scaled(10_000) }).toBeDefined()
    expect(stub.drafts.get(slug)).toBe(
      configText.replace(`"heading": "${heading}"`, () => '"heading": "Bramblewood Crossing, Phase Two"'),
    )
    // Escape cancels: the heading stays as committed.
    await phone.getByRole('heading', { level: 1 }).click()
    await page.keyboard.type('Not this')
    await page.keyboard.press('Escape')
    await expect
      .poll(() => phone.getByRole('heading', { level: 1 }).textContent())
      .toBe('Bramblewood Crossing, Phase Two')
    // The footer's copyright line is made by the page (the year): not editable, and it says where it comes from.
    await desktop.locator('footer').getByText(/©/).click()
    expect(await desktop.locator('.studio-canvas-note').textContent()).toMatch(/^Not editable.*page\.config\.json/)
    expect(await desktop.locator('footer [contenteditable]').count()).toBe(0)
    await context.close()
  })

  it('moves the third section above the second by dragging it, and back with Move up from the keyboard', async () => {
    const { page, context, desktop, phone } = await openEditor()
    const [first, second, third] = config.sections.map((s) => s.heading)
    await desktop
      .locator('main#main > *')
      .nth(2)
      .click({ position: { x: 5, y: 5 } })
    const handle = desktop.getByTitle('Drag this section to another place')
    await handle.dragTo(desktop.locator('main#main > *').nth(1), { targetPosition: { x: 20, y: 10 } })
    await expect
      .poll(() =>
        draft()
          .sections.slice(0, 3)
          .map((s) => s.heading),
      )
      .toEqual([first, third, second])
    await expect.poll(async () => (await sectionHeadings(desktop)).slice(1, 3)).toEqual([third, second])
    await expect.poll(async () => (await sectionHeadings(phone)).slice(1, 3)).toEqual([third, second])
    // The keyboard's way: the sections list, Tab to "Move up" of the (now) third section, Enter.
    await page.getByRole('button', { name: `Move up: Feature: ${second}` }).focus()
    await page.keyboard.press('Enter')
    await expect
      .poll(() =>
        draft()
          .sections.slice(0, 3)
          .map((s) => s.heading),
      )
      .toEqual([first, second, third])
    expect(stub.drafts.get(slug)).toBe(configText)
    await context.close()
  })

  it('adds a Checklist where chosen, deletes it from its toolbar, and Undo and Redo step through both', async () => {
    const { page, context, desktop } = await openEditor()
    await page.getByRole('button', { name: 'Add section' }).click()
    const palette = page.getByRole('dialog', { name: 'Add section' })
    await palette.getByRole('button', { name: 'Checklist', exact: true }).waitFor()
    expect(await axe(page)).toEqual([])
    await palette.getByLabel('Where').selectOption({ label: `After 1. Hero: ${config.sections[0]!.heading}` })
    await palette.getByRole('button', { name: 'Checklist', exact: true }).click()
    await expect.poll(() => draft().sections[1]?.type).toBe('checklist')
    const added = draft().sections[1]!
    await expect.poll(async () => (await sectionHeadings(desktop))[1]).toBe(added.heading)
    // Its toolbar on the canvas: Delete.
    await desktop
      .locator('main#main > *')
      .nth(1)
      .click({ position: { x: 5, y: 5 } })
    await desktop.getByRole('button', { name: 'Delete' }).click()
    await expect.poll(() => draft().sections[1]?.type).toBe(config.sections[1]!.type)
    await page.getByRole('button', { name: 'Undo' }).click()
    await expect.poll(() => draft().sections[1]?.type, { timeout: scaled(10_000) }).toBe('checklist')
    await page.getByRole('button', { name: 'Redo' }).click()
    await expect.poll(() => draft().sections[1]?.type, { timeout: scaled(10_000) }).toBe(config.sections[1]!.type)
    expect(stub.drafts.get(slug)).toBe(configText)
    // The same history from the keyboard, on the canvas: Ctrl+Z brings the Checklist back, Ctrl+Shift+Z removes it.
    await desktop
      .locator('main#main > *')
      .first()
      .click({ position: { x: 5, y: 5 } })
    await page.keyboard.press('Control+z')
    await expect.poll(() => draft().sections[1]?.type, { timeout: scaled(10_000) }).toBe('checklist')
    await page.keyboard.press('Control+Shift+z')
    await expect.poll(() => draft().sections[1]?.type, { timeout: scaled(10_000) }).toBe(config.sections[1]!.type)
    await context.close()
  })

  it('puts an edit of the hero eyebrow made with the public phase shown into that phase, the base unchanged', async () => {
    const { page, context, phone, desktop } = await openEditor()
    await page.getByLabel('Phase shown').selectOption('public')
    const publicEyebrow = config.phases.list.find((p) => p.name === 'public')!.hero!.eyebrow!
    const eyebrow = phone.getByText(publicEyebrow, { exact: true })
    await eyebrow.click()
    await page.keyboard.press('Control+a')
    await page.keyboard.type('Public Release Weekend')
    await page.keyboard.press('Enter')
    await expect
      .poll(() => draft().phases.list.find((p) => p.name === 'public')?.hero?.eyebrow, { timeout: scaled(10_000) })
      .toBe('Public Release Weekend')
    expect(draft().sections[0]!.eyebrow).toBe(config.sections[0]!.eyebrow)
    expect(await page.locator('.canvas-note').textContent()).toMatch(/public phase only/)
    await expect.poll(() => desktop.getByText('Public Release Weekend').count()).toBe(1)
    // Only in that phase: the VIP phase still shows the base eyebrow.
    await page.getByLabel('Phase shown').selectOption('vip')
    await expect.poll(() => desktop.getByText(config.sections[0]!.eyebrow!, { exact: true }).count()).toBe(1)
    await context.close()
  })

  it('edits a text of the desktop preview at 1280 px without scrolling the studio window', async () => {
    const { page, context, desktop } = await openEditor({ width: 1280, height: 800 })
    // The studio scrolled a little, as a person does to see the desktop preview (below the phone one at 1280 px).
    await page.evaluate(() => window.scrollTo(0, 150))
    const frame = (await page.locator('iframe[title="Desktop preview"]').boundingBox())!
    // The preview scrolled inside its frame to a section's heading, just under its sticky header: one far down the
    // text, so the code editor has to scroll to it.
    const heading = desktop.getByRole('heading', { name: config.sections[8]!.heading, exact: true })
    const at = await heading.evaluate((el) => {
      const win = el.ownerDocument.defaultView!
      win.scrollTo({ top: el.getBoundingClientRect().top + win.scrollY - 120, behavior: 'instant' })
      const box = el.getBoundingClientRect()
      return { x: box.left + 10, y: box.top + box.height / 2, width: win.innerWidth }
    })
    const before = await page.evaluate(() => window.scrollY)
    expect(before).toBe(150)
    // A person's click where the text is on screen (the desktop page is drawn scaled down in its frame).
    const scale = frame.width / at.width
    await page.mouse.click(frame.x + at.x * scale, frame.y + at.y * scale)
    await expect.poll(() => desktop.locator('[data-editor-editing]').textContent()).toBe(config.sections[8]!.heading)
    // Give a scroll that would follow the click (the code editor's, a focus) its frames.
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 500))))
    expect(await page.evaluate(() => window.scrollY)).toBe(before)
    await page.keyboard.press('Escape')
    // A click beside the texts (the section's own space) selects the section and puts the code there: the window
    // stays put too.
    const section = await heading.evaluate((el) => {
      const box = el.closest('main#main > *')!.getBoundingClientRect()
      return { x: box.left + 4, y: el.getBoundingClientRect().top - 8 }
    })
    await page.mouse.click(frame.x + section.x * scale, frame.y + section.y * scale)
    await desktop.getByRole('toolbar', { name: 'Section 9' }).waitFor()
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 500))))
    expect(await page.evaluate(() => window.scrollY)).toBe(before)
    await context.close()
  })
})
