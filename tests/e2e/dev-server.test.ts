import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { PageConfig } from '../../schema/page-config.ts'
import { freePort, launchBrowser, scaled, snoozeDialog } from './harness.ts'

// `npm run dev` with a config an editor is working on: a copy in a temp folder, its images linked.
const original = readFileSync('page.config.json', 'utf8')
const config = JSON.parse(original) as PageConfig
const heroHeading = config.sections.find((s) => s.type === 'hero')?.heading ?? ''
const dir = mkdtempSync(path.join(tmpdir(), 'vip-dev-'))
const configFile = path.join(dir, 'page.config.json')

let vite: ChildProcess
let url: string
let browser: Browser

beforeAll(async () => {
  symlinkSync(path.resolve('public'), path.join(dir, 'public'))
  symlinkSync(path.resolve('documents'), path.join(dir, 'documents'))
  writeFileSync(configFile, original.replace('"type": "hero"', '"type": "hero2"'))
  const port = await freePort()
  url = `http://127.0.0.1:${port}/`
  vite = spawn(
    process.execPath,
    ['node_modules/vite/bin/vite.js', '--port', String(port), '--strictPort', '--host', '127.0.0.1'],
    {
      env: { ...process.env, PAGE_CONFIG: configFile },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  )
  let output = ''
  vite.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()))
  vite.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()))
  // A bound on waiting for it to say it is ready, not a wait: a loaded machine starts Vite slowly.
  const deadline = Date.now() + scaled(90_000)
  while (!output.includes('ready in')) {
    if (vite.exitCode !== null || Date.now() > deadline) throw new Error(`vite did not start:\n${output}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  browser = await launchBrowser()
}, scaled(150_000))

afterAll(async () => {
  await browser?.close()
  if (vite?.pid && vite.exitCode === null) process.kill(vite.pid, 'SIGTERM')
  rmSync(dir, { recursive: true, force: true })
})

describe('the dev server with a config being edited', () => {
  it(
    'shows the problem in the browser, then the page the moment the file is fixed, then the next problem',
    async () => {
      const page = await browser.newPage()
      page.setDefaultTimeout(scaled(20_000))
      // Once the page shows, its dialog would open by itself and hide the heading from role-based locators.
      await snoozeDialog(page)
      await page.goto(url)
      await page.getByText(/sections\[0\]\.type 'hero2' is not a section type; did you mean 'hero'\?/).waitFor()
      await expect(page.getByText(/page\.config\.json:\d+:\d+/).count()).resolves.toBeGreaterThan(0)

      writeFileSync(configFile, original) // fixed: the page reloads by itself
      await page.getByRole('heading', { level: 1, name: heroHeading }).waitFor()

      writeFileSync(configFile, original.replace('"openDelayMs": 1000,', '"openDelayMs": 1000'))
      await page.getByText(/A comma is missing between two items/).waitFor()
      await page.close()
    },
    scaled(90_000),
  )
})
