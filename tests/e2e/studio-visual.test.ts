import { readFileSync } from 'node:fs'
import type { Browser, FrameLocator } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  inviteAndSetPassword,
  launchBrowser,
  scaled,
  startServerOnCopy,
  type ServerOnCopy,
  waitForPublished,
} from './harness.ts'

// The canvas (issue 44) end to end, in Chromium against the real Node server and the built studio, as an editor: a
// heading typed in the phone preview and a section dragged on the desktop preview reach the live page by Publish, and
// the file changes only where the person changed it. The canvas's other paths run against the stand-in server in
// tests/e2e/studio-canvas.test.ts.

type Config = { site: { name: string }; sections: { heading: string; type: string }[] }
let copy: ServerOnCopy
let browser: Browser

beforeAll(async () => {
  copy = await startServerOnCopy('vip-studio-visual-')
  browser = await launchBrowser()
}, scaled(60_000))

afterAll(async () => {
  await browser?.close()
  await copy?.stop()
})

const livePage = async (): Promise<string> => (await fetch(`${copy.server.url}/`)).text()

/** The headings of the live page's sections, in order (h1 of the hero, then each h2 in <main>). */
async function liveHeadings(): Promise<string[]> {
  const main = /<main[^>]*id="main"[^>]*>([\s\S]*)<\/main>/.exec(await livePage())?.[1] ?? ''
  return [...main.matchAll(/<h[12][^>]*>([\s\S]*?)<\/h[12]>/g)].map((m) => m[1]!.replace(/<[^>]+>/g, () => ''))
}

function sectionHeadings(frame: FrameLocator): Promise<string[]> {
  return frame
    .locator('main#main > *')
    .evaluateAll((sections) => sections.map((s) => s.querySelector('h1, h2')?.textContent?.trim() ?? ''))
}

describe('the canvas through the real studio', () => {
  it(
    'edits the hero heading in the phone preview and drags the third section above the second; Publish puts both live',
    async () => {
      const original = copy.original
      const config = JSON.parse(original) as Config
      const [hero, second, third] = config.sections.map((s) => s.heading)
      const { context, page } = await inviteAndSetPassword(browser, copy.server, {
        email: 'editor@example.com',
        role: 'editor',
        password: 'correct horse battery staple',
        env: { PAGE_CONFIG: copy.configFile },
      })
      await page.getByRole('link', { name: config.site.name, exact: true }).click()
      const phone = page.frameLocator('iframe[title="Phone preview"]')
      const desktop = page.frameLocator('iframe[title="Desktop preview"]')
      await expect
        .poll(() => phone.getByRole('heading', { level: 1 }).textContent(), { timeout: scaled(30_000) })
        .toBe(hero)

      await phone.getByRole('heading', { level: 1 }).click()
      await page.keyboard.press('Control+a')
      await page.keyboard.type('Bramblewood Crossing, Phase Two')
      await page.keyboard.press('Enter')
      await expect
        .poll(() => desktop.getByRole('heading', { level: 1 }).textContent())
        .toBe('Bramblewood Crossing, Phase Two')
      await page.getByRole('button', { name: 'Publish', exact: true }).click()
      await page.getByRole('dialog').getByRole('button', { name: 'Publish now' }).click()
      await waitForPublished(page, 2)
      const edited = original.replace(`"heading": "${hero}"`, () => '"heading": "Bramblewood Crossing, Phase Two"')
      expect(readFileSync(copy.configFile, 'utf8')).toBe(edited)
      await expect.poll(livePage, { timeout: scaled(10_000) }).toContain('Bramblewood Crossing, Phase Two')

      await desktop
        .locator('main#main > *')
        .nth(2)
        .click({ position: { x: 5, y: 5 } })
      await desktop
        .getByTitle('Drag this section to another place')
        .dragTo(desktop.locator('main#main > *').nth(1), { targetPosition: { x: 20, y: 10 } })
      await expect.poll(async () => (await sectionHeadings(phone)).slice(1, 3)).toEqual([third, second])
      await expect.poll(async () => (await sectionHeadings(desktop)).slice(1, 3)).toEqual([third, second])
      await page.getByRole('button', { name: 'Publish', exact: true }).click()
      await page.getByRole('dialog').getByRole('button', { name: 'Publish now' }).click()
      await waitForPublished(page, 3)
      const published = JSON.parse(readFileSync(copy.configFile, 'utf8')) as Config
      expect(published.sections.slice(1, 3).map((s) => s.heading)).toEqual([third, second])
      await expect
        .poll(async () => (await liveHeadings()).slice(1, 3), { timeout: scaled(10_000) })
        .toEqual([third, second])
      await context.close()
    },
    scaled(300_000),
  )

  it(
    'replaces the hero picture by a PNG dropped on it, once its alternative text is given; the live page serves AVIF and WebP',
    async () => {
      const { context, page } = await inviteAndSetPassword(browser, copy.server, {
        email: 'pictures@example.com',
        role: 'editor',
        password: 'correct horse battery staple',
        env: { PAGE_CONFIG: copy.configFile },
      })
      const config = JSON.parse(readFileSync(copy.configFile, 'utf8')) as Config
      await page.getByRole('link', { name: config.site.name, exact: true }).click()
      const desktop = page.frameLocator('iframe[title="Desktop preview"]')
      const heroPicture = desktop.locator('main#main > *').first().locator('img').first()
      await heroPicture.waitFor({ timeout: scaled(30_000) })
      const frame = await (await page.locator('iframe[title="Desktop preview"]').elementHandle())?.contentFrame()
      const png = [...readFileSync('public/images/og-image.png')]
      const dataTransfer = await frame!.evaluateHandle((bytes) => {
        const transfer = new DataTransfer()
        transfer.items.add(new File([new Uint8Array(bytes)], 'Front Porch.png', { type: 'image/png' }))
        return transfer
      }, png)
      await heroPicture.dispatchEvent('dragover', { dataTransfer })
      await heroPicture.dispatchEvent('drop', { dataTransfer })
      const dialog = page.getByRole('dialog', { name: /Replace the picture/ })
      await dialog.getByLabel('Alternative text').fill('A front porch with two chairs at dusk')
      await dialog.getByRole('button', { name: 'Replace picture' }).click()
      await expect
        .poll(() => heroPicture.getAttribute('alt'), { timeout: scaled(15_000) })
        .toBe('A front porch with two chairs at dusk')
      await page.getByRole('button', { name: 'Publish', exact: true }).click()
      await page.getByRole('dialog').getByRole('button', { name: 'Publish now' }).click()
      await page.getByText(/Version \d+ is live/).waitFor({ timeout: scaled(180_000) })
      const image = (JSON.parse(readFileSync(copy.configFile, 'utf8')) as { sections: { image: { src: string } }[] })
        .sections[0]!.image
      expect(image.src).toBe('/images/front-porch.png')
      const html = await livePage()
      for (const kind of ['avif', 'webp']) {
        const variant = new RegExp(`/images/_v/front-porch\\.[0-9a-f]+-\\d+\\.${kind}`).exec(html)?.[0]
        expect(variant, `the live page names a ${kind} variant`).toBeDefined()
        const answer = await fetch(new URL(variant!, copy.server.url))
        expect(answer.status).toBe(200)
        expect(answer.headers.get('content-type')).toBe(`image/${kind}`)
      }
      await context.close()
    },
    scaled(300_000),
  )
})
