import { execFile, spawn, type ChildProcess } from 'node:child_process'
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import {
  chromium,
  type Browser,
  type BrowserContext,
  type BrowserContextOptions,
  type Locator,
  type Page,
} from 'playwright-core'
import { afterAll, beforeAll, expect } from 'vitest'
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
export type RunningServer = {
  url: string
  dataDir: string
  process: ChildProcess
  output: () => string
  stop: () => Promise<void>
}

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
 * A server on a COPY of the root page.config.json and public/ (what a publish writes goes there, not to this checkout).
 */
export type ServerOnCopy = {
  server: RunningServer
  dir: string
  configFile: string
  original: string
  stop(): Promise<void>
}

/** Copies the root config and its pictures into a temp folder and serves them with what is built (DIST_DIR). */
export async function startServerOnCopy(prefix: string): Promise<ServerOnCopy> {
  const original = readFileSync('page.config.json', 'utf8')
  const dir = mkdtempSync(path.join(tmpdir(), prefix))
  cpSync('public', path.join(dir, 'public'), { recursive: true })
  cpSync('documents', path.join(dir, 'documents'), { recursive: true })
  const configFile = path.join(dir, 'page.config.json')
  writeFileSync(configFile, original)
  const server = await startServer({ PAGE_CONFIG: configFile, DIST_DIR: path.resolve(process.env.DIST_DIR || 'dist') })
  return {
    server,
    dir,
    configFile,
    original,
    async stop() {
      await server.stop()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

/**
 * Starts `src/cli/serve.ts` on a free loopback port (or env.PORT) with its own temporary DATA_DIR, and waits
 * until it says it is listening. The rate limit is off unless `env` sets it.
 */
export async function startServer(
  env: Record<string, string> = {},
  options: ServerOptions = {},
): Promise<RunningServer> {
  const port = env.PORT ? Number(env.PORT) : await freePort()
  const dataDir = mkdtempSync(path.join(tmpdir(), 'vip-e2e-'))
  // Without the test runner's NODE_ENV=test, as `npm start` runs: React's production build, as in production.
  const { NODE_ENV: _testRunner, ...inherited } = process.env
  const child = spawn(process.execPath, ['--import', 'tsx', options.script ?? 'src/cli/serve.ts'], {
    cwd: options.cwd,
    env: { ...inherited, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, RATE_LIMIT_PER_MINUTE: '0', ...env },
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
      // Ended by the signal, it has no exit code but a signal code: killing it again would throw ESRCH.
      if (child.exitCode === null && child.signalCode === null) process.kill(child.pid, 'SIGKILL')
    }
    rmSync(dataDir, { recursive: true, force: true })
  }
  // A loaded machine starts tsx slowly; under E2E_SLOW (a slow machine) the wait is longer too.
  const deadline = Date.now() + scaled(options.timeoutMs ?? 90_000)
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
 * A throwaway copy of this project (or of the checkout at `from`) as a fresh clone has it (code, configs, images;
 * node_modules linked), to add launches to, build and run in without touching the checkout (its launches/, dist/ or
 * function bundle).
 */
export function copyProject(from = path.resolve('.')): { root: string; remove(): void } {
  const root = mkdtempSync(path.join(tmpdir(), 'vip-project-'))
  for (const entry of [
    'src',
    'schema',
    'public',
    'documents',
    'index.html',
    'page.config.json',
    'package.json',
    'package-lock.json',
    'tsconfig.json',
    'vite.config.ts',
  ]) {
    // An older checkout (bench/builds.ts --old) may not have every entry yet.
    if (existsSync(path.join(from, entry))) cpSync(path.join(from, entry), path.join(root, entry), { recursive: true })
  }
  symlinkSync(path.join(from, 'node_modules'), path.join(root, 'node_modules'))
  return { root, remove: () => rmSync(root, { recursive: true, force: true }) }
}

/** `E2E_SLOW=1`: every page runs on a CPU this many times slower (Chromium's throttling), as on a cheap phone. */
export const cpuSlowdown = process.env.E2E_SLOW && process.env.E2E_SLOW !== '0' ? 4 : 1

/** A time limit for the e2e suite: `ms` as measured at full speed, scaled up when `E2E_SLOW` slows the CPU. */
export function scaled(ms: number): number {
  return ms * cpuSlowdown
}

async function throttle(page: Page): Promise<Page> {
  if (cpuSlowdown === 1) return page
  const session = await page.context().newCDPSession(page)
  await session.send('Emulation.setCPUThrottlingRate', { rate: cpuSlowdown })
  return page
}

/**
 * Chromium with the project's flags (headless, no network, no sandbox as root). Every page it makes (through
 * `newPage` or a context's `newPage`, or opened by a page) is throttled under `E2E_SLOW` before it is returned,
 * so a test that makes its own context is slowed as well.
 */
export async function launchBrowser(): Promise<Browser> {
  const browser = await chromium.launch({
    executablePath: process.env.CHROME_PATH || (await findChromium()),
    args: chromiumArgs,
  })
  if (cpuSlowdown === 1) return browser
  const newContext = browser.newContext.bind(browser)
  const newPage = browser.newPage.bind(browser)
  browser.newContext = async (options) => {
    const context = await newContext(options)
    const contextNewPage = context.newPage.bind(context)
    context.newPage = async () => throttle(await contextNewPage())
    // A page opened by another (a popup, target=_blank) is throttled as soon as it appears.
    context.on('page', (page) => void throttle(page).catch(() => undefined))
    return context
  }
  browser.newPage = async (options) => throttle(await newPage(options))
  return browser
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

/** A realtor's answers in the default config's form (shown once "Are You A Realtor?" is Yes). */
export const realtorAnswers = { brokerage: 'Example Realty Inc., Brokerage', reco: '5550123', forClient: 'No' } as const

/**
 * Taps a radio button as a person does and waits until it shows as chosen. Not Playwright's `check()`, which reads
 * the state the instant after the tap: under a loaded CI run it once read it unchanged ("did not change its state"),
 * which nine 4×-slowed reruns did not reproduce. A likely cause, found later: the form's section moving as the page's
 * skipped parts rendered (see scrollThroughPage). A tap that is really lost still fails.
 */
export async function choose(radio: Locator): Promise<void> {
  await radio.click()
  await expect.poll(() => radio.isChecked(), { timeout: scaled(5_000) }).toBe(true)
}

/**
 * Fills the given fields of a registration form by their labels; the realtor choice by its radio in the "Are You A
 * Realtor?" group. A realtor (Yes) also gets the brokerage's answers the form then asks for, unless `realtorFields` is
 * false.
 */
export async function fill(
  form: Locator,
  values: { name?: string; email?: string; phone?: string; realtor?: 'Yes' | 'No'; realtorFields?: boolean },
): Promise<void> {
  if (values.name !== undefined) await form.getByLabel('Full Name').fill(values.name)
  if (values.email !== undefined) await form.getByLabel('Email').fill(values.email)
  if (values.phone !== undefined) await form.getByLabel('Phone').fill(values.phone)
  if (values.realtor)
    await choose(form.getByRole('group', { name: /Are You A Realtor\?/ }).getByRole('radio', { name: values.realtor }))
  if (values.realtor === 'Yes' && values.realtorFields !== false) {
    await form.getByLabel('Brokerage').fill(realtorAnswers.brokerage)
    await form.getByLabel('RECO registration number').fill(realtorAnswers.reco)
    await choose(
      form.getByRole('group', { name: /on behalf of a client/ }).getByRole('radio', { name: realtorAnswers.forClient }),
    )
  }
}

// Deciding the registration dialog's state. It opens by itself about a second after the page loads, and while it is
// open react-modal hides the rest of the page from role-based locators (aria-hidden). A test must never race that
// timer: it starts with the visitor's snooze set (the dialog stays shut), or waits for the dialog and closes it, or
// waits for it and works in it.

/** What a test wants of the dialog that opens by itself (see openPage). */
export type DialogPlan = 'snoozed' | 'registered-before' | 'wait-and-close' | 'expect-open'

/** How openPage makes and loads the page. */
export type OpenPageOptions = {
  /**
   * `snoozed`: the visitor closed the dialog a moment ago (src/page/dialog-memory.ts), so it does not open by itself
   * (the launch's modal.snoozeDays must be above 0; no fake clock set before today). `registered-before`: this
   * browser registered before, so the dialog never opens by itself (for a launch whose snoozeDays is 0).
   * `wait-and-close`: a first visit; the dialog is waited for, ready, then closed with Escape. `expect-open`: a first
   * visit, returned with the dialog open and ready.
   */
  dialog: DialogPlan
  viewport?: { width: number; height: number }
  /** Further options for the page's own context (javaScriptEnabled, bypassCSP, …). */
  context?: BrowserContextOptions
  /** Run on the page before it loads: routes, listeners, init scripts. */
  before?: (page: Page) => Promise<void> | void
  /** Playwright's time limit for each step, at full speed (scaled under E2E_SLOW); default 10 s. */
  stepTimeoutMs?: number
  /** Slow this page's CPU this many times (Chromium's throttling) whether or not E2E_SLOW is set. */
  cpuSlowdown?: number
}

/**
 * A page of its own context (closed with the page), loaded from `url` with the dialog in the state `options.dialog`
 * asks for, and the page's islands hydrated (typing or clicking earlier would not reach React).
 */
export async function openPage(browser: Browser, url: string, options: OpenPageOptions): Promise<Page> {
  const context = await browser.newContext({
    ...options.context,
    ...(options.viewport ? { viewport: options.viewport } : {}),
  })
  const page = await context.newPage()
  page.once('close', () => void context.close().catch(() => undefined))
  page.setDefaultTimeout(scaled(options.stepTimeoutMs ?? 10_000) * (options.cpuSlowdown ?? 1))
  if (options.cpuSlowdown && options.cpuSlowdown > cpuSlowdown) {
    const session = await context.newCDPSession(page)
    await session.send('Emulation.setCPUThrottlingRate', { rate: options.cpuSlowdown })
  }
  if (options.dialog === 'snoozed') await snoozeDialog(page)
  if (options.dialog === 'registered-before') await snoozeDialog(page, 'registered-before')
  await options.before?.(page)
  await page.goto(url, { waitUntil: 'load' })
  if (options.context?.javaScriptEnabled === false) return page
  await waitForHydration(page)
  if (options.dialog === 'wait-and-close') await closeDialogByEscape(page, await waitForDialog(page))
  // The open dialog holds the page still (its body does not scroll): a test that keeps it open works inside it.
  if (options.dialog === 'expect-open') await waitForDialog(page)
  else await scrollThroughPage(page)
  return page
}

/**
 * Presets the dialog's memory (src/page/dialog-memory.ts, one localStorage entry) before every document the page
 * loads, unless the browser already remembers something: the visitor closed it just now (`snoozed`, holds for a
 * launch whose modal.snoozeDays is above 0), or registered here before (`registered-before`, holds for every launch).
 */
export async function snoozeDialog(page: Page, memory: 'snoozed' | 'registered-before' = 'snoozed'): Promise<void> {
  await page.addInitScript(
    ({ key, registered }) => {
      try {
        if (localStorage.getItem(key) === null)
          localStorage.setItem(key, JSON.stringify(registered ? { registered: true } : { closedAt: Date.now() }))
      } catch {
        // an opaque origin (about:blank) has no storage: nothing to preset there
      }
    },
    { key: 'registration-dialog', registered: memory === 'registered-before' },
  )
}

/**
 * Waits until every island of the page is hydrated: its root made, and each form (the lazily loaded registration
 * form) and each link or button in it holding its React props. A root is made before its hydration has ended (it
 * yields): until a link's props are there, a tap on it is the browser's plain link (to #register), not the app's.
 */
export async function waitForHydration(page: Page): Promise<void> {
  await expect
    .poll(
      () =>
        page.evaluate(() => {
          const reactKey = (element: Element, prefix: string) =>
            Object.keys(element).some((key) => key.startsWith(prefix))
          const islands = [...document.querySelectorAll('[data-island]')]
          return islands.every(
            (island) =>
              reactKey(island, '__reactContainer') &&
              [...island.querySelectorAll('form, a, button')].every((element) => reactKey(element, '__reactProps')),
          )
        }),
      { timeout: scaled(15_000) },
    )
    .toBe(true)
}

/**
 * Scrolls down the whole page a viewport at a time and back to the top, as a visitor reading it does, so that every
 * part its first render skipped (`content-visibility: auto`: the sections after the first, the footer) has been
 * rendered once and keeps its real height from then on (`contain-intrinsic-size: auto`). Until a part is seen its
 * height is a guess, and seeing it moves what lies below it: a tap on a link further down, scrolled to while the
 * parts between render, could go down on one element and up on another (the privacy test's footer link once waited
 * 40 s for a navigation that never started). Each step waits two frames, the time the browser takes to render what
 * came near the viewport.
 */
export async function scrollThroughPage(page: Page): Promise<void> {
  // waitForFunction rather than evaluate, for its time limit: a page that stops rendering frames fails here. No
  // function declared inside: tsx (bench scripts) would wrap it in a helper the page does not have.
  await page.waitForFunction(
    async () => {
      for (let top = 0, through = false; ;) {
        window.scrollTo({ top, behavior: 'instant' })
        await new Promise<void>((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve())))
        if (through) return true
        through = top + window.innerHeight >= document.documentElement.scrollHeight
        top = through ? 0 : top + window.innerHeight
      }
    },
    undefined,
    { timeout: scaled(15_000) },
  )
}

/**
 * Waits for the registration dialog (opened by its timer or by a button) to be ready for a visitor: its form shown,
 * hydrated, and the focus inside it (react-modal's Escape and Tab handling work only then). Returns the dialog.
 */
export async function waitForDialog(page: Page): Promise<Locator> {
  const dialog = page.getByRole('dialog')
  await dialog.waitFor({ timeout: scaled(15_000) })
  await expect
    .poll(
      () =>
        page.evaluate(() => {
          const element = document.querySelector('[role="dialog"]')
          const input = element?.querySelector('form input')
          return Boolean(
            input &&
            Object.keys(input).some((key) => key.startsWith('__reactProps')) &&
            element?.contains(document.activeElement),
          )
        }),
      { timeout: scaled(15_000) },
    )
    .toBe(true)
  return dialog
}

/** Closes the open dialog as a visitor does with Escape, and waits until it is gone and the page is shown again. */
export async function closeDialogByEscape(page: Page, dialog: Locator = page.getByRole('dialog')): Promise<void> {
  await dialog.press('Escape')
  await dialog.waitFor({ state: 'detached', timeout: scaled(10_000) })
  const hidden = () => page.evaluate(() => document.getElementById('root')?.getAttribute('aria-hidden') ?? null)
  await expect
    .poll(hidden, { timeout: scaled(10_000), message: 'the page is still aria-hidden after the dialog closed' })
    .toBe(null)
}

/**
 * Installs the page's fake clock paused at `at`. It starts an hour earlier: time flows between install and pause, and
 * on a loaded machine that can be more than a second, which would make pausing at a time just after it throw
 * ("Cannot fast-forward to the past"). Call before the page loads; nothing runs on the clock meanwhile.
 */
export async function installPausedClock(page: Page, at: Date): Promise<void> {
  await page.clock.install({ time: new Date(at.getTime() - 60 * 60 * 1000) })
  await page.clock.pauseAt(at)
}

/**
 * Holds every toast of the page open: react-toastify closes a toast when its progress bar's CSS animation ends (the
 * bar is there, transparent, when hidden), and this stylesheet pauses that animation over the bar's own inline
 * `running`. A test then reads a toast at its own pace however slow the machine, with no mouse over it. Once per
 * document.
 */
export async function holdToasts(page: Page): Promise<void> {
  // A constructed stylesheet, adopted by the document: the page's CSP (style-src) refuses an added <style> element.
  await page.evaluate(() => {
    const marked = window as { e2eToastsHeld?: boolean }
    if (marked.e2eToastsHeld) return
    const sheet = new CSSStyleSheet()
    sheet.replaceSync('.Toastify__progress-bar { animation-play-state: paused !important; }')
    document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet]
    marked.e2eToastsHeld = true
  })
}

/**
 * The toast whose text includes `title`, once it shows and its entrance animation has ended, held open (holdToasts),
 * so it stays for the test's checks however slow the machine. Call right after the step that brings it.
 */
export async function waitForToast(page: Page, title: string): Promise<Locator> {
  await holdToasts(page)
  const toast = page.locator('.Toastify__toast').filter({ hasText: title }).first()
  await toast.waitFor({ timeout: scaled(15_000) })
  const entering = () =>
    toast.evaluate((element) => element.getAnimations().filter((animation) => animation.playState === 'running').length)
  await expect.poll(entering, { timeout: scaled(10_000), message: 'the toast is still sliding in' }).toBe(0)
  const closing = await toast
    .locator('.Toastify__progress-bar')
    .evaluate((bar) => getComputedStyle(bar).animationPlayState)
  expect(closing, 'the toast is not held open: its closing animation still runs').toBe('paused')
  return toast
}

/**
 * Waits until the studio says `Version <version> is live`, or fails at once with the studio's own words when it says
 * the publish was refused or failed (a problem, a build error), instead of waiting out the time limit in silence.
 */
export async function waitForPublished(page: Page, version: number, timeout = scaled(180_000)): Promise<void> {
  const live = page.getByText(`Version ${version} is live`)
  const refused = page.getByRole('alert').filter({ hasText: /Not published|could not|failed/i })
  await live.or(refused).first().waitFor({ timeout })
  if (!(await live.isVisible()))
    throw new Error(`The studio did not publish version ${version}: ${(await refused.first().innerText()).trim()}`)
}

/**
 * `npm run studio:invite` for `email` as `role` against a running server's DATA_DIR (with `env` and `cwd` as its
 * project needs), then the link opened in a new context (1440 px unless `viewport`) and `password` chosen there, as
 * an invited person does: that context and its page, signed in at the studio's landing page.
 */
export async function inviteAndSetPassword(
  browser: Browser,
  server: Pick<RunningServer, 'url' | 'dataDir'>,
  options: {
    email: string
    role?: 'owner' | 'editor' | 'sales'
    password: string
    env?: Record<string, string>
    cwd?: string
    viewport?: { width: number; height: number }
    bypassCSP?: boolean
  },
): Promise<{ context: BrowserContext; page: Page }> {
  const { stdout } = await new Promise<{ stdout: string }>((resolve, reject) =>
    execFile(
      'npm',
      ['run', '-s', 'studio:invite', '--', '--email', options.email, '--role', options.role ?? 'owner'],
      {
        cwd: options.cwd,
        env: { ...process.env, DATA_DIR: server.dataDir, PORT: new URL(server.url).port, ...options.env },
      },
      (error, out) =>
        error ? reject(error instanceof Error ? error : new Error('the command failed')) : resolve({ stdout: out }),
    ),
  )
  const link = /(http:\/\/\S+\/studio\/invite\/\S+)/.exec(stdout)?.[1]
  if (!link) throw new Error(`npm run studio:invite printed no link:\n${stdout}`)
  // bypassCSP: for a test that injects axe-core into the pages (a strict CSP blocks Playwright's addScriptTag).
  const context = await browser.newContext({
    viewport: options.viewport ?? { width: 1440, height: 900 },
    bypassCSP: options.bypassCSP ?? false,
  })
  const page = await context.newPage()
  page.setDefaultTimeout(scaled(30_000))
  await page.goto(server.url + new URL(link).pathname)
  await page.getByLabel('New password', { exact: true }).fill(options.password)
  await page.getByLabel('New password again').fill(options.password)
  await page.getByRole('button', { name: 'Save password' }).click()
  return { context, page }
}
