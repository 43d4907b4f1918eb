import { spawn, type ChildProcess } from 'node:child_process'
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { freePort, launchBrowser, scaled } from './harness.ts'

// `npm run edit` gets the studio's canvas too (issue 44): the same client, on 127.0.0.1, no account. A heading typed
// in the phone preview and a section moved from the keyboard's Sections list reach the file by "Save to file".

const original = readFileSync('page.config.json', 'utf8')
const dir = mkdtempSync(path.join(tmpdir(), 'vip-edit-canvas-'))
const configFile = path.join(dir, 'page.config.json')
let editor: ChildProcess
let url: string
let browser: Browser

beforeAll(async () => {
  cpSync('public', path.join(dir, 'public'), { recursive: true })
  cpSync('documents', path.join(dir, 'documents'), { recursive: true })
  writeFileSync(configFile, original)
  const port = await freePort()
  editor = spawn(process.execPath, ['--import', 'tsx', 'src/cli/edit.ts', configFile], {
    env: { ...process.env, EDIT_PORT: String(port), PAGE_CONFIG: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  editor.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()))
  editor.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()))
  const deadline = Date.now() + scaled(150_000)
  while (!/Open (http:\S+)/.test(output)) {
    if (editor.exitCode !== null || Date.now() > deadline) throw new Error(`The editor did not start:\n${output}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  url = /Open (http:\S+)/.exec(output)![1]!
  browser = await launchBrowser()
}, scaled(210_000))

afterAll(async () => {
  await browser?.close()
  if (editor?.pid && editor.exitCode === null) {
    const exited = new Promise((resolve) => editor.once('exit', resolve))
    process.kill(editor.pid, 'SIGTERM')
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5000))])
    if (editor.exitCode === null) process.kill(editor.pid, 'SIGKILL')
  }
  rmSync(dir, { recursive: true, force: true })
})

describe('npm run edit: the canvas', () => {
  it(
    'edits the hero heading in the phone preview and moves a section up from the keyboard; Save to file writes both',
    async () => {
      const config = JSON.parse(original) as { sections: { heading: string }[] }
      const [hero, second, third] = config.sections.map((s) => s.heading)
      const context = await browser.newContext({ viewport: { width: 1440, height: 900 } })
      const page = await context.newPage()
      page.setDefaultTimeout(scaled(20_000))
      await page.goto(url)
      const phone = page.frameLocator('iframe[title="Phone preview"]')
      await phone.getByRole('heading', { level: 1 }).click()
      await page.keyboard.press('Control+a')
      await page.keyboard.type('Bramblewood Crossing, Phase Two')
      await page.keyboard.press('Enter')
      await page.getByRole('button', { name: `Move up: Feature: ${third}` }).focus()
      await page.keyboard.press('Enter')
      await page.getByRole('button', { name: 'Save to file', exact: true }).click()
      await page.getByText(/^Saved to the file as version 2\./).waitFor()
      const saved = JSON.parse(readFileSync(configFile, 'utf8')) as { sections: { heading: string }[] }
      expect(saved.sections.slice(0, 3).map((s) => s.heading)).toEqual([
        'Bramblewood Crossing, Phase Two',
        third,
        second,
      ])
      expect(hero).not.toBe('Bramblewood Crossing, Phase Two')
      await context.close()
    },
    scaled(120_000),
  )
})
