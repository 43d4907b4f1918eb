import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { gzipSync } from 'node:zlib'
import { pathToFileURL } from 'node:url'
import { inviteAndSetPassword, launchBrowser, startServer } from '../tests/e2e/harness.ts'
import { measureCanvasKeystroke } from './studio-canvas.ts'

/**
 * The studio's first load (part of `npm run bench`, or alone: `npx tsx bench/studio.ts [DIST_DIR]`): a person signed in
 * opens a launch in a new tab with an empty cache; the time until the editor holds the text and the desktop preview
 * shows the page (median of 3), the studio's code as the browser downloads it (gzip), and the time from a keystroke on
 * the canvas to both previews showing it (bench/studio-canvas.ts).
 */

export type StudioFigures = {
  'studio first load, editor ready (ms)': number
  'studio first load, preview shown (ms)': number
  'studio code (KiB gzip)': number
  'canvas keystroke to both previews (ms, median of 20)'?: number
}

export async function runStudioBench(distDir: string, runs = 3): Promise<StudioFigures> {
  const code = readdirSync(path.join(distDir, '_studio', 'assets')).filter((name) => /\.(js|css)$/.test(name))
  const gzip = code.reduce(
    (sum, name) => sum + gzipSync(readFileSync(path.join(distDir, '_studio', 'assets', name))).length,
    0,
  )
  const server = await startServer({ DIST_DIR: distDir })
  const browser = await launchBrowser()
  try {
    const { context: first, page } = await inviteAndSetPassword(browser, server, {
      email: 'bench@example.com',
      password: 'correct horse battery staple',
    })
    await page.getByRole('list', { name: 'Launches' }).waitFor()
    const editorUrl = await page.getByRole('list', { name: 'Launches' }).getByRole('link').first().getAttribute('href')
    const state = await first.storageState()
    await first.close()
    let keystroke: number | undefined
    const ready: number[] = []
    const shown: number[] = []
    for (let i = 0; i < runs; i++) {
      // A new context each time: nothing cached, only the session cookie.
      const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, storageState: state })
      const tab = await context.newPage()
      const started = performance.now()
      await tab.goto(new URL(editorUrl ?? '/studio/', server.url).href)
      await tab.getByRole('textbox', { name: 'page.config.json' }).waitFor({ timeout: 60_000 })
      ready.push(performance.now() - started)
      await tab
        .frameLocator('iframe[title="Desktop preview"]')
        .getByRole('heading', { level: 1 })
        .waitFor({ timeout: 60_000 })
      shown.push(performance.now() - started)
      // Once, in the last tab: a studio built before the canvas has none, and its figure is left out.
      if (i === runs - 1) keystroke = await measureCanvasKeystroke(tab).catch(() => undefined)
      await context.close()
    }
    const median = (values: number[]) => Math.round([...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!)
    return {
      'studio first load, editor ready (ms)': median(ready),
      'studio first load, preview shown (ms)': median(shown),
      'studio code (KiB gzip)': Math.round((gzip / 1024) * 10) / 10,
      ...(keystroke === undefined ? {} : { 'canvas keystroke to both previews (ms, median of 20)': keystroke }),
    }
  } finally {
    await browser.close()
    await server.stop()
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  console.log(JSON.stringify(await runStudioBench(path.resolve(process.argv[2] ?? 'dist')), null, 2))
}
