import { spawn } from 'node:child_process'
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { chromiumArgs } from '../tests/find-chromium.ts'

/** Lighthouse's form factors: `mobile` is its default (Moto G Power, slow 4G, simulated), `desktop` its preset. */
export type FormFactor = 'mobile' | 'desktop'

/**
 * Lighthouse's throttling methods. `simulate`, its default, loads the page at the machine's own speed and multiplies
 * each main-thread task's wall time by the CPU multiplier: on a shared 2-core machine a task's wall time is mostly
 * waiting for a core (a 22 ms task of 7 ms CPU), and the wait is multiplied too. `devtools` throttles the load itself
 * (Chromium pauses the page's main thread, as profile.ts does): a task takes its CPU time times the multiplier, plus
 * the wait once. The same network in both (slow 4G; devtools adds its packet-level latency factor).
 */
export type ThrottlingMethod = 'simulate' | 'devtools'

/** How a run throttles: the CPU multiplier (default: the form factor's) and the method (default `simulate`). */
export type Throttling = { cpuSlowdown?: number; method?: ThrottlingMethod }

/** Where to keep each run's whole Lighthouse report (JSON), to read what the kept figures leave out. */
export type Keep = { reportFile?: string }

/** The figures kept from one Lighthouse run. Scores 0–100; times in ms; bytes as transferred. */
export type LighthouseRun = {
  performance: number
  accessibility: number
  bestPractices: number
  seo: number
  fcp: number
  lcp: number
  tbt: number
  cls: number
  speedIndex: number
  totalBytes: number
  /** Every script the load fetched, as transferred (Lighthouse's resource-summary). */
  scriptBytes: number
  /** Audits that cost points (score below 1 in a scored category), so a missed target says why. */
  failing: string[]
  /** Lighthouse's estimated savings that would move LCP or FCP, or bytes: what holds the page back. */
  savings: string[]
  /** What the largest contentful paint was (the element's label, or its selector), and its phases in ms. */
  lcpElement: string
  lcpPhases: string
  /** Lighthouse's measure of this machine's CPU at the run (its `benchmarkIndex`: higher is faster). */
  benchmarkIndex: number
  /** The CPU multiplier the run simulated or applied (Lighthouse's mobile default is 4). */
  cpuSlowdown: number
  /**
   * How: `simulate` (Lighthouse's default: an unthrottled load, each task's duration multiplied) or `devtools` (the
   * load throttled in Chromium).
   */
  throttlingMethod: ThrottlingMethod
  /**
   * The load's tasks of 50 ms or more as Lighthouse simulated them (its long-tasks audit): start, duration and
   * where the time went, for example "at 912 ms, 143 ms: styleLayout 96, other 31, paintCompositeRender 16". Those
   * after the first contentful paint make the TBT.
   */
  longTasks: string[]
}

/**
 * The CPU multiplier that makes this machine the phone Lighthouse's mobile run means (a mid-tier phone, Moto G
 * Power class), from the machine's `benchmarkIndex`. Lighthouse's default of 4× assumes a high-end desktop of about
 * 1,500: on a faster machine 4× is a faster phone, and a task that blocks on the phone passes under 50 ms; on a
 * slower one the page is judged on a slower phone. The mapping is the Lighthouse team's calculator's
 * (github.com/patrickhulce/lighthouse-cpu-throttling-calculator, linked from Lighthouse's docs/throttling.md,
 * "Calibrating the CPU slowdown"): 150 → 1×, 800 → 2×, 1,300 → 3×, then 1× more each 233 (1,533 → 4×, 2,000 → 6×).
 * Below 150 the machine cannot play the phone: `undefined`.
 */
export function calibratedSlowdown(benchmarkIndex: number): number | undefined {
  if (!Number.isFinite(benchmarkIndex) || benchmarkIndex < 150) return undefined
  const multiplier =
    benchmarkIndex >= 1300
      ? 3 + (benchmarkIndex - 1300) / 233
      : benchmarkIndex >= 800
        ? 2 + (benchmarkIndex - 800) / 500
        : 1 + (benchmarkIndex - 150) / 650
  return Math.round(multiplier * 10) / 10
}

const categories = ['performance', 'accessibility', 'best-practices', 'seo'] as const

type Lhr = {
  runtimeError?: { code: string; message: string }
  environment?: { benchmarkIndex?: number }
  configSettings?: { throttlingMethod?: ThrottlingMethod; throttling?: { cpuSlowdownMultiplier?: number } }
  categories: Record<string, { score: number | null; auditRefs: { id: string; weight: number }[] }>
  audits: Record<
    string,
    {
      score: number | null
      numericValue?: number
      scoreDisplayMode: string
      metricSavings?: Record<string, number>
      details?: {
        overallSavingsBytes?: number
        items?: Array<LhrItem>
        debugData?: { tasks?: Array<Record<string, number>>; urls?: string[] }
      }
    }
  >
}

/** A row of an audit's details: a resource, an LCP phase, a node, or a nested table of those. */
type LhrItem = {
  resourceType?: string
  transferSize?: number
  phase?: string
  timing?: number
  node?: { nodeLabel?: string; selector?: string; snippet?: string }
  type?: string
  items?: LhrItem[]
}

/**
 * The LCP element and its phases (time to first byte, load delay, load time, render delay), from Lighthouse's audit.
 */
function lcpOf(lhr: Lhr): { lcpElement: string; lcpPhases: string } {
  const tables = lhr.audits['largest-contentful-paint-element']?.details?.items ?? []
  const rows = tables.flatMap((table) => table.items ?? [])
  const node = rows.find((row) => row.node)?.node
  const label = node?.nodeLabel?.replace(/\s+/g, ' ').trim()
  const lcpElement = node
    ? `${node.selector ?? '?'}${label ? ` "${label.length > 50 ? `${label.slice(0, 47)}…` : label}"` : ''}`
    : 'unknown'
  const lcpPhases = rows
    .filter((row) => row.phase !== undefined && row.timing !== undefined)
    .map((row) => `${row.phase} ${Math.round(row.timing!)} ms`)
    .join(', ')
  return { lcpElement, lcpPhases: lcpPhases || 'unknown' }
}

function longTasksOf(lhr: Lhr): string[] {
  const debug = lhr.audits['long-tasks']?.details?.debugData
  return (debug?.tasks ?? [])
    .map((task) => {
      const { startTime = 0, duration = 0, urlIndex, ...groups } = task
      const parts = Object.entries(groups)
        .filter(([, time]) => time >= 1)
        .sort((a, b) => b[1] - a[1])
        .map(([group, time]) => `${group} ${Math.round(time)}`)
      const url = urlIndex === undefined ? undefined : debug?.urls?.[urlIndex]
      return {
        startTime,
        line: `at ${Math.round(startTime)} ms, ${Math.round(duration)} ms: ${parts.join(', ')}${url && url !== 'Unattributable' ? ` (${url})` : ''}`,
      }
    })
    .sort((a, b) => a.startTime - b.startTime)
    .map((task) => task.line)
}

function savingsOf(lhr: Lhr): string[] {
  const out: string[] = []
  for (const [id, audit] of Object.entries(lhr.audits)) {
    if (audit.score === null || audit.score >= 1) continue
    const lcp = audit.metricSavings?.LCP ?? 0
    const fcp = audit.metricSavings?.FCP ?? 0
    const bytes = audit.details?.overallSavingsBytes ?? 0
    if (lcp < 50 && fcp < 50 && bytes < 10_240) continue
    const parts = [
      lcp >= 50 && `LCP −${Math.round(lcp)} ms`,
      fcp >= 50 && `FCP −${Math.round(fcp)} ms`,
      bytes >= 10_240 && `−${Math.round(bytes / 1024)} KiB`,
    ]
    out.push(`${id} (${parts.filter(Boolean).join(', ')})`)
  }
  return out.sort()
}

function readRun(lhr: Lhr): LighthouseRun {
  if (lhr.runtimeError)
    throw new Error(`Lighthouse could not measure the page: ${lhr.runtimeError.code} ${lhr.runtimeError.message}`)
  const score = (id: string) => Math.round((lhr.categories[id]?.score ?? 0) * 100)
  const value = (id: string) => lhr.audits[id]?.numericValue ?? Number.NaN
  const failing = new Set<string>()
  for (const id of categories) {
    for (const ref of lhr.categories[id]?.auditRefs ?? []) {
      const audit = lhr.audits[ref.id]
      if (ref.weight > 0 && audit && audit.score !== null && audit.score < 1) failing.add(`${id}:${ref.id}`)
    }
  }
  return {
    performance: score('performance'),
    accessibility: score('accessibility'),
    bestPractices: score('best-practices'),
    seo: score('seo'),
    fcp: value('first-contentful-paint'),
    lcp: value('largest-contentful-paint'),
    tbt: value('total-blocking-time'),
    cls: value('cumulative-layout-shift'),
    speedIndex: value('speed-index'),
    totalBytes: value('total-byte-weight'),
    scriptBytes:
      lhr.audits['resource-summary']?.details?.items?.find((item) => item.resourceType === 'script')?.transferSize ??
      Number.NaN,
    failing: [...failing].sort(),
    savings: savingsOf(lhr),
    ...lcpOf(lhr),
    benchmarkIndex: lhr.environment?.benchmarkIndex ?? Number.NaN,
    cpuSlowdown: lhr.configSettings?.throttling?.cpuSlowdownMultiplier ?? Number.NaN,
    throttlingMethod: lhr.configSettings?.throttlingMethod ?? 'simulate',
    longTasks: longTasksOf(lhr),
  }
}

/**
 * Whether a live process of the group led by `pid` remains. Zombies do not count: helpers orphaned to an init
 * that does not reap them stay in the group as zombies for good. Reads /proc where there is one.
 */
function groupAlive(pid: number): boolean {
  if (!existsSync('/proc/self/stat')) {
    try {
      process.kill(-pid, 0)
      return true
    } catch {
      return false
    }
  }
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      // Fields after the parenthesised command: state, ppid, pgrp, …
      const fields = readFileSync(`/proc/${entry}/stat`, 'utf8')
        .replace(/^.*\) /s, '')
        .split(' ')
      if (Number(fields[2]) === pid && fields[0] !== 'Z') return true
    } catch {
      // the process ended while we looked
    }
  }
  return false
}

/**
 * Chromium's own browser UI kept out of the measured load. A fresh Chromium (one per run) starts its address bar's
 * suggestion popups as web pages in a renderer of their own (chrome://omnibox-popup.top-chrome/ and its AI-mode
 * page), even headless: about 1.1 s of CPU in the first seconds, which is when Lighthouse loads the page. On a
 * 2-core machine that renderer took a core from the page's tasks (one of its tasks ran 220 ms in a trace of the
 * page's load), and Lighthouse counts the page's tasks by their wall time. A phone loading the page runs no such UI.
 * Headless Chromium merges this list with its own (PaintHolding stays off).
 */
const lighthouseChromiumArgs = ['--disable-features=WebUIOmniboxPopup,WebUIOmniboxAimPopup']

/**
 * Chromium started for one run, with a fresh profile and a DevTools port, and how to stop it. It leads its own
 * process group, so stopping it also stops its renderer and helper processes, which otherwise keep writing to
 * the profile for a moment after the browser exits.
 */
async function startChromium(
  chromePath: string,
  profile: string,
): Promise<{ port: number; stop: () => Promise<void> }> {
  const child = spawn(
    chromePath,
    [
      ...chromiumArgs,
      ...lighthouseChromiumArgs,
      `--user-data-dir=${profile}`,
      '--remote-debugging-port=0',
      'about:blank',
    ],
    {
      stdio: 'ignore',
      detached: true,
    },
  )
  const pid = child.pid
  const stop = async () => {
    if (!pid || !groupAlive(pid)) return
    process.kill(-pid, 'SIGTERM')
    for (let waited = 0; groupAlive(pid) && waited < 5000; waited += 50)
      await new Promise((resolve) => setTimeout(resolve, 50))
    if (groupAlive(pid)) process.kill(-pid, 'SIGKILL')
    for (let waited = 0; groupAlive(pid) && waited < 5000; waited += 50)
      await new Promise((resolve) => setTimeout(resolve, 50))
  }
  // Chromium writes the port it chose (line 1) to DevToolsActivePort in the profile once it listens.
  const deadline = Date.now() + 20_000
  for (;;) {
    try {
      const port = Number(readFileSync(path.join(profile, 'DevToolsActivePort'), 'utf8').split('\n')[0])
      if (port > 0) return { port, stop }
    } catch {
      // not written yet
    }
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop()
      throw new Error(`Chromium at ${chromePath} did not open its DevTools port.`)
    }
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

/**
 * One Lighthouse run of `url` through its command line, in a Chromium started here with the project's flags and
 * a fresh profile (a reused one carries cache between runs); both are stopped by pid, also after `timeoutMs`.
 * `throttling` replaces the form factor's CPU multiplier (see `calibratedSlowdown`) or Lighthouse's method;
 * `keep.reportFile` keeps the whole report there.
 */
export async function runLighthouse(
  url: string,
  formFactor: FormFactor,
  chromePath: string,
  timeoutMs = 120_000,
  throttling: Throttling = {},
  keep: Keep = {},
): Promise<LighthouseRun> {
  const work = mkdtempSync(path.join(tmpdir(), 'vip-lighthouse-'))
  const report = path.join(work, 'report.json')
  const chromium = await startChromium(chromePath, path.join(work, 'profile'))
  const args = [
    url,
    '--quiet',
    '--output=json',
    `--output-path=${report}`,
    `--only-categories=${categories.join(',')}`,
    `--port=${chromium.port}`,
    ...(formFactor === 'desktop' ? ['--preset=desktop'] : []),
    ...(throttling.cpuSlowdown === undefined ? [] : [`--throttling.cpuSlowdownMultiplier=${throttling.cpuSlowdown}`]),
    ...(throttling.method === undefined ? [] : [`--throttling-method=${throttling.method}`]),
  ]
  try {
    const child = spawn(path.resolve('node_modules/.bin/lighthouse'), args, { stdio: ['ignore', 'ignore', 'pipe'] })
    let stderr = ''
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
    const timer = setTimeout(() => child.pid && process.kill(child.pid, 'SIGKILL'), timeoutMs)
    const code = await new Promise<number | null>((resolve, reject) => {
      child.once('error', reject)
      child.once('exit', resolve)
    }).finally(() => clearTimeout(timer))
    if (code !== 0) throw new Error(`Lighthouse (${formFactor}) exited with ${code}:\n${stderr.trim().slice(-2000)}`)
    if (keep.reportFile) copyFileSync(report, keep.reportFile)
    return readRun(JSON.parse(readFileSync(report, 'utf8')) as Lhr)
  } finally {
    await chromium.stop()
    rmSync(work, { recursive: true, force: true })
  }
}

/** The middle value (the mean of the two middle ones for an even count). */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  if (sorted.length === 0) return Number.NaN
  return sorted.length % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2
}

/** Each figure's median over the runs (figure by figure), with every audit that cost points in any run. */
export function medianRun(runs: LighthouseRun[]): LighthouseRun {
  const figure = (
    key: Exclude<
      keyof LighthouseRun,
      'failing' | 'savings' | 'lcpElement' | 'lcpPhases' | 'longTasks' | 'throttlingMethod'
    >,
  ) => median(runs.map((run) => run[key]))
  // The middle run by one figure: its details explain that figure (details from different runs do not add up).
  const middleBy = (key: 'lcp' | 'performance' | 'tbt') =>
    [...runs].sort((a, b) => a[key] - b[key])[Math.floor(runs.length / 2)]
  // The run whose LCP is the median's: its element and phases explain the figure reported.
  const lcpRun = middleBy('lcp')
  return {
    performance: figure('performance'),
    accessibility: figure('accessibility'),
    bestPractices: figure('bestPractices'),
    seo: figure('seo'),
    fcp: figure('fcp'),
    lcp: figure('lcp'),
    tbt: figure('tbt'),
    cls: figure('cls'),
    speedIndex: figure('speedIndex'),
    totalBytes: figure('totalBytes'),
    scriptBytes: figure('scriptBytes'),
    failing: [...new Set(runs.flatMap((run) => run.failing))].sort(),
    // The middle run's estimates (by performance score): estimates from different runs do not add up.
    savings: middleBy('performance')?.savings ?? [],
    lcpElement: lcpRun?.lcpElement ?? 'unknown',
    lcpPhases: lcpRun?.lcpPhases ?? 'unknown',
    benchmarkIndex: figure('benchmarkIndex'),
    cpuSlowdown: figure('cpuSlowdown'),
    throttlingMethod: runs[0]?.throttlingMethod ?? 'simulate',
    // The long tasks of the run whose TBT is the median's: they make the figure reported.
    longTasks: middleBy('tbt')?.longTasks ?? [],
  }
}

/** One page to measure among others: a name for the table, and its URL. */
export type Target = { name: string; url: string }

/** The median and every run of one target. */
export type Medians = { median: LighthouseRun; runs: LighthouseRun[] }

/**
 * `count` Lighthouse runs of each target, taken in turns (run 1 of each, then run 2 of each, …) so a burst of load
 * on a shared machine falls on every target alike; each target's median figure by figure, and its runs. A run that
 * fails to record a trace (NO_NAVSTART, NO_FCP, which happens now and then) is repeated, twice at most.
 * `throttling` replaces the form factor's CPU multiplier or Lighthouse's method in every run; with `reportDir`, each
 * run's whole report is kept there as `<target's name>-<run>.json`.
 */
export async function runInTurns(
  targets: Target[],
  formFactor: FormFactor,
  chromePath: string,
  count: number,
  log: (line: string) => void = (line) => process.stdout.write(line),
  throttling: Throttling = {},
  reportDir?: string,
): Promise<Record<string, Medians>> {
  const done: Record<string, LighthouseRun[]> = Object.fromEntries(targets.map((target) => [target.name, []]))
  for (let i = 1; i <= count; i++) {
    for (const target of targets) {
      log(`Lighthouse ${target.name} ${formFactor} ${i}/${count} … `)
      const started = Date.now()
      for (let attempt = 1; ; attempt++) {
        try {
          // Up to 5 minutes a run: on 2 shared cores under heavy load a run has taken more than the default 2.
          const reportFile = reportDir && path.join(reportDir, `${target.name.replace(/[^\w.-]+/g, '-')}-${i}.json`)
          done[target.name]!.push(
            await runLighthouse(target.url, formFactor, chromePath, 300_000, throttling, { reportFile }),
          )
          break
        } catch (error) {
          if (attempt === 3) throw error
          log(`(${(error as Error).message.split('\n').find((line) => line.includes('(NO_')) ?? 'failed'}; again) `)
        }
      }
      const run = done[target.name]!.at(-1)!
      log(
        `${((Date.now() - started) / 1000).toFixed(0)} s, performance ${run.performance}, TBT ${Math.round(run.tbt)} ms, benchmarkIndex ${Math.round(run.benchmarkIndex)}\n`,
      )
    }
  }
  return Object.fromEntries(Object.entries(done).map(([name, runs]) => [name, { median: medianRun(runs), runs }]))
}

/**
 * The calibrated CPU multiplier for this machine now: the median `benchmarkIndex` of `count` Lighthouse runs of
 * `url` (Lighthouse measures it before each load; the loads themselves are not kept), through `calibratedSlowdown`.
 */
export async function calibrateSlowdown(
  url: string,
  chromePath: string,
  count = 3,
): Promise<{ benchmarkIndex: number; cpuSlowdown: number }> {
  const indexes: number[] = []
  for (let i = 0; i < count; i++) indexes.push((await runLighthouse(url, 'mobile', chromePath, 300_000)).benchmarkIndex)
  const benchmarkIndex = median(indexes)
  const cpuSlowdown = calibratedSlowdown(benchmarkIndex)
  if (cpuSlowdown === undefined)
    throw new Error(
      `This machine's Lighthouse benchmarkIndex is ${Math.round(benchmarkIndex)}: too slow to play the phone Lighthouse means (150 or more).`,
    )
  return { benchmarkIndex, cpuSlowdown }
}
