import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import type { Browser, Page } from 'playwright-core'
import { launchBrowser, startServer } from '../tests/e2e/harness.ts'
import { writeFloorDist } from './floor.ts'
import { analyseTrace, cpuSlowdown, type LoadProfile, type TraceEvent } from './trace-tasks.ts'

/*
 * Where a phone's main thread goes while the page loads, hydrates and opens its dialog, and how long the
 * visitor waits on each interaction. Chromium at 4× CPU slowdown (CDP Emulation.setCPUThrottlingRate, as
 * Lighthouse's mobile preset assumes), a 412 px phone viewport, the built site served on 127.0.0.1.
 *
 * npx tsx bench/profile.ts [--dist dist] [--trace profiles/trace.json] [--runs 1] [--floor] [--unmarked] [--slowdown 4]
 *
 * `--floor` profiles the build's script-less copy (bench/floor.ts) instead of the page, load only. `--slowdown 1`
 * records at this machine's own speed, as Lighthouse does before it multiplies each task by 4 (its simulated
 * throttling). Each load also gives the blocking Lighthouse's simulation would count, from the tasks' CPU time.
 *
 * `profileLoad` records a performance trace and sums the renderer main thread's tasks by what started them
 * (the script evaluated or called, a timer, an event, parsing, style and layout); `measureInteractions` reads
 * the Event Timing API while a visitor closes the dialog that opened by itself, opens it with a button, types a
 * registration and submits it.
 */

const viewport = { width: 412, height: 823 }

async function throttledPage(browser: Browser, slowdown = cpuSlowdown, marks = true): Promise<Page> {
  const context = await browser.newContext({ viewport, deviceScaleFactor: 1.75, isMobile: true, hasTouch: true })
  const page = await context.newPage()
  const cdp = await context.newCDPSession(page)
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: slowdown })
  // A script run in every new document costs the navigation's commit a few ms of its own: none where nothing is marked.
  if (!marks) return page
  // Marks in the trace: when the dialog first shows (a MutationObserver in the page, not app code).
  await page.addInitScript(() => {
    addEventListener('load', () => performance.mark('profile:load'))
    const observer = new MutationObserver(() => {
      if (document.querySelector('[role="dialog"]')) {
        performance.mark('profile:dialog-visible')
        observer.disconnect()
      }
    })
    document.addEventListener('DOMContentLoaded', () =>
      observer.observe(document.body, { childList: true, subtree: true }),
    )
  })
  return page
}

/**
 * How `profileLoad` records: `slowdown` (default 4), `settleMs` after the load event (default 4,000), `trace` a file
 * for the raw trace, `marks` false for no marks script.
 */
export type ProfileOptions = { slowdown?: number; settleMs?: number; trace?: string; marks?: boolean }

/**
 * Loads `url` at the CPU slowdown with tracing on, waits after the load event (the dialog opens by itself and
 * settles within the default 4 s; a script-less page is quiet sooner),
 * and returns the main thread's tasks (optionally writing the raw trace for chrome://tracing or DevTools).
 */
export async function profileLoad(browser: Browser, url: string, options: ProfileOptions = {}): Promise<LoadProfile> {
  const { slowdown = cpuSlowdown, settleMs = 4000, trace: traceFile, marks = true } = options
  const page = await throttledPage(browser, slowdown, marks)
  try {
    await browser.startTracing(page, {
      categories: [
        'devtools.timeline',
        'disabled-by-default-devtools.timeline',
        'disabled-by-default-v8.cpu_profiler',
        'v8.execute',
        'blink.user_timing',
        'loading',
        'toplevel',
      ],
    })
    await page.goto(url, { waitUntil: 'load' })
    // A fixed wait, not a locator: Playwright's polling for an element would run in the page and show in the trace.
    await page.waitForTimeout(settleMs)
    const buffer = await browser.stopTracing()
    if (traceFile) writeFileSync(traceFile, buffer)
    const trace = JSON.parse(buffer.toString('utf8')) as { traceEvents: TraceEvent[] }
    return analyseTrace(trace.traceEvents, url, slowdown)
  } finally {
    await page.context().close()
  }
}

/** The longest Event Timing entry of a scripted visit, and every entry of 16 ms or more. */
export type InteractionFigures = {
  longestMs: number
  longest: string
  entries: Array<{ name: string; duration: number; target: string; step: string }>
}

type EventEntry = { name: string; duration: number; target: string }

/**
 * A visitor's interactions at 4× CPU slowdown, read with the Event Timing API (`durationThreshold: 16`): the
 * dialog that opened by itself closed with Escape, reopened by a 'Register' button that opens it, a
 * registration typed into it, chosen with a click, submitted; done once the success notice shows.
 */
export async function measureInteractions(browser: Browser, url: string): Promise<InteractionFigures> {
  const page = await throttledPage(browser)
  await page.addInitScript(() => {
    const store: EventEntry[] = []
    ;(window as unknown as { __eventTimings: EventEntry[] }).__eventTimings = store
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries() as PerformanceEventTiming[]) {
        const target = entry.target as HTMLElement | null
        store.push({
          name: entry.name,
          duration: entry.duration,
          target: target ? `${target.tagName.toLowerCase()}${target.id ? `#${target.id}` : ''}` : '',
        })
      }
    }).observe({ type: 'event', durationThreshold: 16, buffered: true } as PerformanceObserverInit)
  })
  const entries: InteractionFigures['entries'] = []
  let seen = 0
  const collect = async (step: string) => {
    // Event Timing entries arrive after the next paint: give it a moment.
    await page.waitForTimeout(300)
    const all = await page.evaluate(() => (window as unknown as { __eventTimings: EventEntry[] }).__eventTimings)
    for (const entry of all.slice(seen)) entries.push({ ...entry, duration: Math.round(entry.duration), step })
    seen = all.length
  }
  try {
    await page.goto(url, { waitUntil: 'load' })
    const dialog = page.getByRole('dialog')
    await dialog.waitFor({ timeout: 30_000 })
    await dialog.locator('input[id$="_name"]').waitFor()
    await page.waitForTimeout(500)
    await collect('load')
    await page.keyboard.press('Escape')
    await dialog.waitFor({ state: 'detached' })
    await collect('close the dialog with Escape')
    const opener = page.locator('a[aria-haspopup="dialog"]').first()
    await opener.scrollIntoViewIfNeeded()
    await opener.click()
    await dialog.waitFor()
    await collect('open the dialog with a button')
    const form = dialog.locator('form')
    await form.locator('input[id$="_name"]').click()
    await page.keyboard.type('Pat Example', { delay: 50 })
    await form.locator('input[id$="_email"]').click()
    await page.keyboard.type('pat@example.com', { delay: 50 })
    await form.locator('input[id$="_phone"]').click()
    await page.keyboard.type('555-555-0100', { delay: 50 })
    await collect('type a registration')
    await form.locator('input[type="radio"]').last().click()
    await collect('choose an option')
    await form.locator('button[type="submit"]').click()
    await page.locator('.Toastify [role="alert"]').first().waitFor({ timeout: 30_000 })
    await collect('submit and see the notice')
  } finally {
    await page.context().close()
  }
  const longest = entries.reduce<(typeof entries)[number] | undefined>(
    (max, e) => (!max || e.duration > max.duration ? e : max),
    undefined,
  )
  return {
    longestMs: longest?.duration ?? 0,
    longest: longest ? `${longest.name} on ${longest.target || 'the page'} (${longest.step})` : 'none of 16 ms or more',
    entries,
  }
}

/** The profile as a table for people. */
export function formatProfile(profile: LoadProfile): string {
  const scale = cpuSlowdown / profile.slowdown
  const lines = [
    `Main thread at ${profile.slowdown}× CPU: ${profile.totalTaskMs} ms in tasks of 5 ms or more (${profile.totalCpuMs} ms of CPU), ${profile.blockingMs} ms beyond 50 ms each`,
    `Blocking as Lighthouse's simulation would count it (each task's CPU time × ${cpuSlowdown}, beyond 50 ms, but the first parse, layout and paint): ${Math.round(profile.lanternBlockingMs)} ms`,
    `Marks: ${Object.entries(profile.marks)
      .map(([name, at]) => `${name.replace('profile:', '')} ${Math.round(at)} ms`)
      .join(', ')}`,
    `Script by file (profiler samples, ms): ${Object.entries(profile.scriptByFile)
      .map(([file, ms]) => `${file} ${ms}`)
      .join(', ')}`,
    `CPU by kind of work (ms, ${Math.round(Object.values(profile.breakdown).reduce((sum, v) => sum + v, 0))} in all): ${Object.entries(
      profile.breakdown,
    )
      .map(([kind, ms]) => `${kind} ${ms}`)
      .join(', ')}`,
    '',
    'By what ran (ms in tasks · CPU ms · blocking · longest · tasks):',
    ...profile.byLabel.map(
      (g) =>
        `  ${String(g.ms).padStart(5)} ${String(g.cpuMs).padStart(5)} ${String(g.blockingMs).padStart(5)} ${String(g.longestMs).padStart(5)} ${String(g.tasks).padStart(3)}  ${g.label}`,
    ),
    '',
    `Tasks of ${40 / scale} ms or more, or of ${10} ms of CPU (start, duration, CPU, * for what the first paint needs, what ran, where the time went):`,
    ...profile.tasks
      .filter((t) => t.duration * scale >= 40 || t.cpu >= 10)
      .map(
        (t) =>
          `  ${String(t.start).padStart(5)} ms ${String(t.duration).padStart(5)} ms (CPU ${String(t.cpu).padStart(4)})${t.firstPaintNeeds ? '*' : ' '} ${t.label}  ${Object.entries(
            t.detail,
          )
            .map(([k, v]) => `${k} ${v}`)
            .join(', ')}`,
      ),
  ]
  return lines.join('\n')
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({
    options: {
      dist: { type: 'string', default: 'dist' },
      trace: { type: 'string' },
      runs: { type: 'string', default: '1' },
      floor: { type: 'boolean', default: false },
      // No marks script in the page (as Lighthouse loads it): its MutationObserver runs on every change while parsing.
      unmarked: { type: 'boolean', default: false },
      slowdown: { type: 'string', default: String(cpuSlowdown) },
    },
  })
  const slowdown = Math.max(1, Number(values.slowdown) || cpuSlowdown)
  let dist = path.resolve(values.dist)
  let floorDir: string | undefined
  if (values.floor) {
    floorDir = mkdtempSync(path.join(tmpdir(), 'vip-profile-floor-'))
    writeFloorDist(dist, floorDir)
    dist = floorDir
  }
  const server = await startServer({ DIST_DIR: dist })
  const browser = await launchBrowser()
  const blocking: number[] = []
  try {
    for (let run = 1; run <= Number(values.runs); run++) {
      const trace =
        values.trace && Number(values.runs) > 1
          ? values.trace.replace(/(\.json)?$/, () => `-${run}.json`)
          : values.trace
      // The floor runs no script and opens no dialog: nothing to mark, and quiet a moment after its load event.
      const profile = await profileLoad(browser, `${server.url}/`, {
        trace,
        slowdown,
        ...(values.floor ? { marks: false, settleMs: 1500 } : values.unmarked ? { marks: false } : {}),
      })
      blocking.push(profile.lanternBlockingMs)
      console.log(`\n== ${values.floor ? 'Floor' : 'Page'} load, run ${run} ==\n${formatProfile(profile)}`)
      if (values.floor) continue
      const interactions = await measureInteractions(browser, `${server.url}/`)
      console.log(`\nLongest interaction: ${interactions.longestMs} ms, ${interactions.longest}`)
      const worstByStep = new Map<string, InteractionFigures['entries'][number]>()
      for (const e of interactions.entries)
        if ((worstByStep.get(e.step)?.duration ?? -1) < e.duration) worstByStep.set(e.step, e)
      for (const [step, e] of worstByStep)
        console.log(`  ${String(e.duration).padStart(4)} ms  ${step}: longest ${e.name} on ${e.target || 'the page'}`)
    }
    const sorted = [...blocking].sort((a, b) => a - b)
    console.log(
      `\nBlocking as Lighthouse's simulation would count it, from CPU time: median ${Math.round(sorted[Math.floor(sorted.length / 2)] ?? 0)} ms (${blocking.map(Math.round).join(', ')}); load average ${loadavg()
        .map((v) => v.toFixed(2))
        .join(', ')}`,
    )
  } finally {
    if (floorDir) rmSync(floorDir, { recursive: true, force: true })
    await browser.close()
    await server.stop()
  }
}
