import { spawn, type ChildProcess } from 'node:child_process'
import { rmSync, symlinkSync } from 'node:fs'
import path from 'node:path'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { makeLaunchesProject } from '../fixtures/launches-project.ts'
import { replaceOnce } from '../fixtures/second-launch.ts'
import { freePort, launchBrowser, scaled } from './harness.ts'

// `npm run edit` without --launch, run in a throwaway project as a person runs it there.
const editScript = path.resolve('src/cli/edit.ts')
const renamed = (name: string) => (text: string) =>
  replaceOnce(text, '"name": "Willowmere Commons"', `"name": "${name}"`)

type Editor = { url: string; output: () => string; stop: () => Promise<void> }

async function startEdit(project: string): Promise<Editor> {
  symlinkSync(path.resolve('node_modules'), path.join(project, 'node_modules'))
  const port = await freePort()
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', editScript], {
    cwd: project,
    env: { ...process.env, EDIT_PORT: String(port), PAGE_CONFIG: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()))
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()))
  const stop = async () => {
    if (child.pid && child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve))
      process.kill(child.pid, 'SIGTERM')
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5000))])
      if (child.exitCode === null) process.kill(child.pid, 'SIGKILL')
    }
    rmSync(project, { recursive: true, force: true })
  }
  const deadline = Date.now() + 150_000
  while (!/Open (http:\S+)/.test(output)) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop()
      throw new Error(`The editor did not start:\n${output}`)
    }
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  return { url: /Open (http:\S+)/.exec(output)![1]!, output: () => output, stop }
}

let browser: Browser
beforeAll(async () => {
  browser = await launchBrowser()
})
afterAll(async () => {
  await browser?.close()
})

describe('npm run edit without --launch', () => {
  it(
    'lists the launches by name when there are several, and opens the one picked',
    async () => {
      const editor = await startEdit(makeLaunchesProject({ 'maple-ridge': renamed('Maple Ridge') }))
      try {
        expect(editor.output()).toContain('choose one in the browser')
        const page = await browser.newPage({ viewport: { width: 1280, height: 900 } })
        page.setDefaultTimeout(scaled(20_000))
        await page.goto(editor.url)
        const list = page.getByRole('list', { name: 'Launches' })
        await list.getByRole('link').first().waitFor()
        await expect(list.getByRole('link').allInnerTexts()).resolves.toEqual(['Willowmere Commons', 'Maple Ridge'])
        // Local: no sign-in, no leads, no people.
        await expect(page.getByRole('link', { name: 'Leads' }).count()).resolves.toBe(0)
        await expect(page.getByRole('button', { name: 'Sign out' }).count()).resolves.toBe(0)
        await list.getByRole('link', { name: 'Maple Ridge' }).click()
        const text = page.getByRole('textbox', { name: 'page.config.json' })
        await text.waitFor()
        await expect.poll(() => page.title()).toBe('Maple Ridge — page editor')
        await expect(page.getByRole('heading', { level: 1 }).innerText()).resolves.toContain('Maple Ridge')
        await expect(text.innerText()).resolves.toContain('"slug": "maple-ridge"')
        await page.getByRole('button', { name: 'Save to file' }).waitFor()
        expect(editor.output()).toContain('Editing Maple Ridge (launches/maple-ridge/page.config.json)')
        await page.close()
      } finally {
        await editor.stop()
      }
    },
    scaled(120_000),
  )

  it(
    'opens the only launch of a project at once',
    async () => {
      const editor = await startEdit(makeLaunchesProject({}, renamed('Cedar Hollow')))
      try {
        expect(editor.url).toMatch(/\/studio\/launches\/[a-z0-9-]+$/)
        const root = await fetch(new URL('/', editor.url), { redirect: 'manual' })
        expect(root.status).toBe(303)
        expect(new URL(root.headers.get('location')!, editor.url).href).toBe(editor.url)
        const html = await (await fetch(editor.url)).text()
        expect(html).toContain('name="editor-token"')
        expect(editor.output()).toContain('Editing Cedar Hollow (page.config.json)')
        expect(editor.output()).not.toContain('choose one in the browser')
      } finally {
        await editor.stop()
      }
    },
    scaled(120_000),
  )
})
