import { spawn, type ChildProcess } from 'node:child_process'
import { cpSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { chromium, type Browser, type Locator, type Page } from 'playwright-core'
import { afterAll, beforeAll } from 'vitest'
import { chromiumArgs, findChromium } from '../find-chromium.ts'

/** A free TCP port on 127.0.0.1. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      const port = typeof address === 'object' && address ? address.port : 0
      server.close(() => resolve(port))
    })
  })
}

/** A running site server (the Node entry, serving dist/ and the function) and how to stop it. */
export type RunningServer = { url: string; dataDir: string; process: ChildProcess; output: () => string; stop: () => Promise<void> }

/** Where and how to run the server. */
export type ServerOptions = {
  /** The project folder to run in (a copyProject copy); default this checkout. */
  cwd?: string
  /** src/cli/serve.ts (serve what is built), or src/cli/start.ts (npm start: build what is stale, then serve). */
  script?: string
  /** How long it may take to say it is listening (start.ts may build first). */
  timeoutMs?: number
  /** Keep the process's stdin open as a pipe (process.stdin), for a server driven by commands. */
  stdin?: boolean
}

/**
 * Starts `src/cli/serve.ts` on a free loopback port (or env.PORT) with its own temporary DATA_DIR, and waits
 * until it says it is listening. The rate limit is off unless `env` sets it.
 */
export async function startServer(env: Record<string, string> = {}, options: ServerOptions = {}): Promise<RunningServer> {
  const port = env.PORT ? Number(env.PORT) : await freePort()
  const dataDir = mkdtempSync(path.join(tmpdir(), 'vip-e2e-'))
  const child = spawn(process.execPath, ['--import', 'tsx', options.script ?? 'src/cli/serve.ts'], {
    cwd: options.cwd,
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, RATE_LIMIT_PER_MINUTE: '0', ...env },
    stdio: [options.stdin ? 'pipe' : 'ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()))
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()))
  const stop = async () => {
    if (child.exitCode === null && child.pid) {
      const exited = new Promise((resolve) => child.once('exit', resolve))
      process.kill(child.pid, 'SIGTERM')
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5000))])
      if (child.exitCode === null) process.kill(child.pid, 'SIGKILL')
    }
    rmSync(dataDir, { recursive: true, force: true })
  }
  const deadline = Date.now() + (options.timeoutMs ?? 30_000)
  while (!output.includes('Listening on')) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop()
      throw new Error(`The server did not start:\n${output}`)
    }
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  return { url: `http://127.0.0.1:${port}`, dataDir, process: child, output: () => output, stop }
}

/**
 * A throwaway copy of this project as a fresh clone has it (code, configs, images; node_modules linked), to add
 * launches to, build and run in without touching the checkout (its launches/, dist/ or function bundle).
 */
export function copyProject(): { root: string; remove(): void } {
  const root = mkdtempSync(path.join(tmpdir(), 'vip-project-'))
  for (const entry of ['src', 'schema', 'public', 'index.html', 'page.config.json', 'package.json', 'package-lock.json', 'tsconfig.json', 'vite.config.ts']) {
    cpSync(path.resolve(entry), path.join(root, entry), { recursive: true })
  }
  symlinkSync(path.resolve('node_modules'), path.join(root, 'node_modules'))
  return { root, remove: () => rmSync(root, { recursive: true, force: true }) }
}

/** Chromium with the project's flags (headless, no network, no sandbox as root). */
export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: process.env.CHROME_PATH || (await findChromium()), args: chromiumArgs })
}

/** The running server and browser of a test file, set up before its tests and stopped after them. */
export type E2eContext = { server: RunningServer; browser: Browser }

/** Starts a site server (with `env`) and Chromium for the calling test file, and stops both, by pid, after it. */
export function useServerAndBrowser(env: Record<string, string> = {}): E2eContext {
  const context = {} as E2eContext
  beforeAll(async () => {
    context.server = await startServer(env)
    context.browser = await launchBrowser()
  })
  afterAll(async () => {
    await context.browser?.close()
    await context.server?.stop()
  })
  return context
}

/** The registration section's inline form (the default config's labels). */
export function inlineForm(page: Page): Locator {
  return page.locator('#register form')
}

/** Fills the given fields of a registration form by their labels; the realtor choice by its radio. */
export async function fill(form: Locator, values: { name?: string; email?: string; phone?: string; realtor?: 'Yes' | 'No' }): Promise<void> {
  if (values.name !== undefined) await form.getByLabel('Full Name').fill(values.name)
  if (values.email !== undefined) await form.getByLabel('Email').fill(values.email)
  if (values.phone !== undefined) await form.getByLabel('Phone').fill(values.phone)
  if (values.realtor) await form.getByRole('radio', { name: values.realtor }).check()
}
