import { execFile } from 'node:child_process'
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import type { Page } from 'playwright-core'
import { launchBrowser, startServer, waitForPublished } from './harness.ts'

// `npm run docs:screenshots`: the studio's screenshots in docs/images/ (the editing guide shows them), taken in
// Chromium from the real server and the built studio (run `npm run build` first), on a copy of the default launch's
// config, at 1440 px and on a phone (390 px). Run it again after changing what the studio looks like.

const run = promisify(execFile)
const outDir = path.resolve('docs/images')
const password = 'correct horse battery staple'
const original = readFileSync('page.config.json', 'utf8')
const config = JSON.parse(original) as { site: { name: string }; sections: { heading: string }[] }
const dir = mkdtempSync(path.join(tmpdir(), 'vip-docs-shots-'))
const configFile = path.join(dir, 'page.config.json')
cpSync('public', path.join(dir, 'public'), { recursive: true })
cpSync('documents', path.join(dir, 'documents'), { recursive: true })
writeFileSync(configFile, original)

const server = await startServer({ PAGE_CONFIG: configFile, DIST_DIR: path.resolve(process.env.DIST_DIR || 'dist') })
const browser = await launchBrowser()
try {
  const { stdout } = await run(
    'npm',
    ['run', '-s', 'studio:invite', '--', '--email', 'owner@example.com', '--role', 'owner'],
    {
      env: { ...process.env, DATA_DIR: server.dataDir, PORT: new URL(server.url).port, PAGE_CONFIG: configFile },
    },
  )
  const link = /(http:\/\/\S+\/studio\/invite\/\S+)/.exec(stdout)?.[1]
  if (!link) throw new Error(`npm run studio:invite printed no link:\n${stdout}`)

  const desktop = await browser.newContext({ viewport: { width: 1440, height: 900 } })
  const page = await desktop.newPage()
  page.setDefaultTimeout(60_000)
  await page.goto(server.url + new URL(link).pathname)
  await shot(page, 'studio-set-password-1440.png')
  await page.getByLabel('New password', { exact: true }).fill(password)
  await page.getByLabel('New password again').fill(password)
  await page.getByRole('button', { name: 'Save password' }).click()
  await page.getByRole('list', { name: 'Launches' }).waitFor()
  await shot(page, 'studio-launches-1440.png')

  await page.getByRole('link', { name: config.site.name, exact: true }).click()
  await page.getByRole('textbox', { name: 'page.config.json' }).waitFor()
  const preview = page.frameLocator('iframe[title="Desktop preview"]')
  await preview.getByRole('heading', { level: 1 }).waitFor()
  // The cursor in the hero's heading: the form view shows the hero's fields.
  await page.getByRole('textbox', { name: 'page.config.json' }).click()
  await page.keyboard.press('Control+f')
  await page.getByRole('textbox', { name: 'Find' }).fill(`"heading": "${config.sections[0]!.heading}"`)
  // The search panel takes its query on a key press, as when typed.
  await page.getByRole('textbox', { name: 'Find' }).press('End')
  await page.getByRole('textbox', { name: 'Find' }).press('Enter')
  await page.getByRole('textbox', { name: 'Find' }).press('Escape')
  await page.waitForTimeout(1500)
  await shot(page, 'studio-editor-1440.png')

  await page.getByRole('button', { name: 'Publish', exact: true }).click()
  await page.getByRole('dialog').waitFor()
  await shot(page, 'studio-publish-1440.png')
  await page.getByRole('dialog').getByRole('button', { name: 'Publish now' }).click()
  await waitForPublished(page, 2).catch(() => undefined)
  await page
    .getByRole('list', { name: 'History' })
    .scrollIntoViewIfNeeded()
    .catch(() => undefined)
  await shot(page, 'studio-history-1440.png')
  // Ctrl+Space on a new line of the hero: the fields that fit there, with their help.
  await page.evaluate(() => window.scrollTo(0, 0))
  await page.getByRole('textbox', { name: 'page.config.json' }).click()
  await page.keyboard.press('Control+f')
  await page.getByRole('textbox', { name: 'Find' }).fill('"anchor": "top",')
  await page.getByRole('textbox', { name: 'Find' }).press('End')
  await page.getByRole('textbox', { name: 'Find' }).press('Enter')
  await page.getByRole('textbox', { name: 'Find' }).press('Escape')
  await page.keyboard.press('End')
  await page.keyboard.press('Enter')
  await page.keyboard.type('""')
  await page.keyboard.press('ArrowLeft')
  await page.keyboard.press('Control+Space')
  await page.locator('.cm-tooltip-autocomplete').waitFor()
  await page.waitForTimeout(500)
  const box = await page.locator('.cm-editor').boundingBox()
  const list = await page.locator('.cm-tooltip-autocomplete').boundingBox()
  const top = Math.max(0, list!.y - 160)
  await page.screenshot({
    path: path.join(outDir, 'studio-completion-1440.png'),
    clip: { x: box!.x, y: top, width: Math.min(960, 1440 - box!.x), height: Math.min(420, 900 - top) },
  })
  console.log('docs/images/studio-completion-1440.png')
  await page.keyboard.press('Escape')
  await page.keyboard.press('Control+z')
  await page.keyboard.press('Control+z')
  const editorUrl = page.url()
  await desktop.storageState({ path: path.join(dir, 'state.json') })

  const phone = await browser.newContext({
    viewport: { width: 390, height: 844 },
    deviceScaleFactor: 2,
    isMobile: true,
    hasTouch: true,
    storageState: path.join(dir, 'state.json'),
  })
  const small = await phone.newPage()
  small.setDefaultTimeout(60_000)
  await small.goto(`${server.url}/studio/`)
  await small.getByRole('list', { name: 'Launches' }).waitFor()
  await shot(small, 'studio-launches-390.png')
  await small.goto(editorUrl)
  await small.getByRole('textbox', { name: 'page.config.json' }).waitFor()
  await small.waitForTimeout(1500)
  await shot(small, 'studio-editor-390.png')
  await phone.close()
  await desktop.close()
} finally {
  await browser.close()
  await server.stop()
  rmSync(dir, { recursive: true, force: true })
}

async function shot(page: Page, name: string): Promise<void> {
  // The pointer out of the way: a hover tooltip is not what the picture is about.
  await page.mouse.move(0, 0)
  await page.screenshot({ path: path.join(outDir, name) })
  console.log(`docs/images/${name}`)
}
