import { spawnSync } from 'node:child_process'
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { findLaunches, loadLaunches } from '../src/config/launches.ts'
import { launchBrowser, startServer, type RunningServer } from '../tests/e2e/harness.ts'
import { findChromium } from '../tests/find-chromium.ts'
import { runBuildBench, type BuildFigures } from './builds.ts'
import { runStudioBench, type StudioFigures } from './studio.ts'
import { runDashboardBench, type DashboardFigures } from './dashboard.ts'
import { releaseBenchFigures } from './release.ts'
import { measureBundle, type AssetSize, type BundleFigures } from './bundle.ts'
import { writeFloorDist } from './floor.ts'
import {
  calibratedSlowdown,
  median,
  medianRun,
  runInTurns,
  runLighthouse,
  type FormFactor,
  type LighthouseRun,
  type Medians,
} from './lighthouse.ts'
import { measureInteractions, type InteractionFigures } from './profile.ts'
import { cpuSlowdown } from './trace-tasks.ts'

/*
 * `npm run bench [-- --runs 5] [-- --extra-runs 5] [-- --dist DIR]`: builds every launch into a temporary directory
 * (or measures DIR, a built dist/, as it is), serves them all with one Node server on 127.0.0.1, runs Lighthouse 5×
 * on mobile and on desktop on the default launch, 5× on mobile on the same pages with every script removed (the floor:
 * what the browser's own parsing, style, layout and paint cost, taken in turns with the page's runs), the page and
 * its floor again at the CPU multiplier that makes this machine Lighthouse's phone (from the runs' benchmarkIndex,
 * `calibratedSlowdown`), throttled in Chromium, and again at that multiplier with Lighthouse's simulated throttling
 * (the method PageSpeed Insights reports), 5× on mobile on each further launch (3 runs proved too few: one run's
 * render delay alone swings 300–570 ms on 2 shared cores) (at <slug>.localhost),
 * measures a visitor's longest interaction at 4× CPU (bench/profile.ts), sizes the default launch's bundle, runs the
 * backend's load bench (one launch; three and twenty side by side; with a webhook; the server's memory after each),
 * times builds of 1, 5 and 20 launches and a publish
 * (bench/builds.ts), measures the studio's first load (bench/studio.ts) and the leads page's dashboard on 20,000 leads
 * (bench/dashboard.ts) and the VIP release's allocate in order and burst of worksheets (bench/release.ts), prints one
 * table beside the previous commit's figures
 * and writes bench/results/latest.json and a line of bench/results/history.jsonl. Figures, not a pass/fail test: a
 * missed target is marked, not fatal.
 */

const { values: options } = parseArgs({
  options: {
    runs: { type: 'string', default: '5' },
    'extra-runs': { type: 'string', default: '5' },
    dist: { type: 'string' },
  },
})
const runs = Math.max(1, Number(options.runs) || 5)
// Each further launch is the same code with another config: fewer runs keep the bench's time in bounds.
const extraRuns = Math.max(1, Number(options['extra-runs']) || 5)
const resultsDir = path.resolve('bench/results')
const KiB = 1024

type Row = [measure: string, figure: string, target: string, met: boolean | undefined, previous?: string]

/** The figures of the last bench run of another commit than HEAD, from history.jsonl (absent on a first run). */
type HistoryRecord = {
  commit: string
  lighthouse?: {
    mobile?: Partial<LighthouseRun> & { worstTbt?: number }
    floor?: Partial<LighthouseRun> & { worstTbt?: number }
    launches?: Record<string, Partial<LighthouseRun> & { worstTbt?: number }>
    calibrated?: { cpuSlowdown?: number; page?: Partial<LighthouseRun>; floor?: Partial<LighthouseRun> }
    simulated?: { cpuSlowdown?: number; page?: Partial<LighthouseRun>; floor?: Partial<LighthouseRun> }
  }
  interaction?: { longestMs?: number }
  builds?: Partial<BuildFigures>
  studio?: Partial<StudioFigures>
  backend?: Record<string, number | string>
  dashboard?: Partial<DashboardFigures>
  release?: Record<string, number | string>
}

function previousRecord(head: string): HistoryRecord | undefined {
  const file = path.join(resultsDir, 'history.jsonl')
  if (!existsSync(file)) return undefined
  const records = readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line) as HistoryRecord)
  return records.filter((record) => record.commit !== head).at(-1)
}
type BackendFigures = Record<string, number | string>

function git(args: string[]): string {
  const result = spawnSync('git', args, { encoding: 'utf8' })
  return result.status === 0 ? result.stdout.trim() : ''
}

function build(distDir: string): void {
  console.log(`Building into ${distDir} …`)
  const result = spawnSync(path.resolve('node_modules/.bin/tsx'), ['src/cli/build.ts'], {
    stdio: 'inherit',
    env: { ...process.env, DIST_DIR: distDir },
  })
  if (result.status !== 0) throw new Error('The build failed (see above): nothing to measure.')
}

async function lighthouseMedians<F extends FormFactor>(
  url: string,
  chromePath: string,
  formFactors: readonly F[],
  count: number,
  label = '',
): Promise<Record<F, Medians>> {
  const out = {} as Record<F, Medians>
  for (const formFactor of formFactors) {
    const done: LighthouseRun[] = []
    for (let i = 1; i <= count; i++) {
      process.stdout.write(`Lighthouse ${label}${formFactor} ${i}/${count} … `)
      const started = Date.now()
      // Lighthouse now and then fails to record a trace (NO_NAVSTART, NO_FCP): such a run is repeated, twice at most.
      for (let attempt = 1; ; attempt++) {
        try {
          done.push(await runLighthouse(url, formFactor, chromePath))
          break
        } catch (error) {
          if (attempt === 3) throw error
          process.stdout.write(
            `(${(error as Error).message.split('\n').find((line) => line.includes('(NO_')) ?? 'failed'}; again) `,
          )
        }
      }
      console.log(`${((Date.now() - started) / 1000).toFixed(0)} s, performance ${done.at(-1)?.performance}`)
    }
    out[formFactor] = { median: medianRun(done), runs: done }
  }
  return out
}

async function backendFigures(): Promise<{ figures?: BackendFigures; note?: string }> {
  const file = path.resolve('bench/backend.ts')
  if (!existsSync(file)) return { note: 'not available (bench/backend.ts missing)' }
  try {
    const { runBackendBench } = (await import(file)) as { runBackendBench: () => Promise<BackendFigures> }
    console.log('Backend load bench …')
    return { figures: await runBackendBench() }
  } catch (error) {
    return { note: `failed: ${(error as Error).message}` }
  }
}

const kib = (bytes: number) => `${(bytes / KiB).toFixed(1)} KiB`
const ms = (value: number) => (value >= 1000 ? `${(value / 1000).toFixed(2)} s` : `${Math.round(value)} ms`)
const list = (assets: AssetSize[]) => assets.map((a) => `${a.name} ${kib(a.gzip)}`).join(' + ')

function lighthouseRows(
  formFactor: FormFactor,
  run: LighthouseRun,
  worstTbt: number,
  before?: Partial<LighthouseRun> & { worstTbt?: number },
  launch = '',
): Row[] {
  const lh = `Lighthouse ${formFactor}${launch ? ` (${launch})` : ''}`
  const strict = formFactor === 'mobile'
  const was = (value: number | undefined, format: (v: number) => string) =>
    value === undefined || Number.isNaN(value) ? '' : format(value)
  const rows: Row[] = [
    [`${lh} performance`, String(run.performance), '100', run.performance === 100, was(before?.performance, String)],
    [
      `${lh} accessibility`,
      String(run.accessibility),
      '100',
      run.accessibility === 100,
      was(before?.accessibility, String),
    ],
    [
      `${lh} best practices`,
      String(run.bestPractices),
      '100',
      run.bestPractices === 100,
      was(before?.bestPractices, String),
    ],
    [`${lh} SEO`, String(run.seo), '100', run.seo === 100, was(before?.seo, String)],
    [`${lh} LCP`, ms(run.lcp), strict ? '≤ 1.1 s' : '', strict ? run.lcp <= 1100 : undefined, was(before?.lcp, ms)],
    [`${lh} TBT (median)`, ms(run.tbt), '≤ 50 ms', run.tbt <= 50, was(before?.tbt, ms)],
    [`${lh} TBT (worst run)`, ms(worstTbt), '', undefined, was(before?.worstTbt, ms)],
    [`${lh} CLS`, run.cls.toFixed(3), '0', run.cls < 0.0005, was(before?.cls, (v) => v.toFixed(3))],
  ]
  if (strict) {
    rows.push([
      `Page weight on a phone (total-byte-weight)`,
      `${kib(run.totalBytes)} (${Math.round(run.totalBytes)} B)`,
      '< 500 KB',
      run.totalBytes < 500_000,
      was(before?.totalBytes, kib),
    ])
    rows.push([
      `Scripts the load fetches, transferred`,
      kib(run.scriptBytes),
      '≤ 150 KiB',
      run.scriptBytes <= 150 * KiB,
      was(before?.scriptBytes, kib),
    ])
  }
  return rows
}

/** The floor's figures (the page without scripts) and what the scripts add to the page's, median against median. */
function floorRows(
  page: LighthouseRun,
  floor: LighthouseRun,
  worstFloorTbt: number,
  before?: Partial<LighthouseRun> & { worstTbt?: number },
): Row[] {
  const was = (value: number | undefined, format: (v: number) => string) =>
    value === undefined || Number.isNaN(value) ? '' : format(value)
  const added = page.tbt - floor.tbt
  return [
    ['Floor (the page, no scripts): TBT (median)', ms(floor.tbt), '', undefined, was(before?.tbt, ms)],
    ['Floor: TBT (worst run)', ms(worstFloorTbt), '', undefined, was(before?.worstTbt, ms)],
    [
      'Floor: LCP / FCP',
      `${ms(floor.lcp)} / ${ms(floor.fcp)}`,
      '',
      undefined,
      before?.lcp === undefined ? '' : `${ms(before.lcp)} / ${ms(before.fcp ?? Number.NaN)}`,
    ],
    ['Floor: performance', String(floor.performance), '', undefined, was(before?.performance, String)],
    [
      'What the scripts add: TBT (page − floor, medians)',
      `${added >= 0 ? '+' : ''}${ms(added)}`,
      '≤ 50 ms',
      added <= 50,
    ],
    [
      'What the scripts add: LCP (page − floor)',
      `${page.lcp - floor.lcp >= 0 ? '+' : ''}${ms(page.lcp - floor.lcp)}`,
      '',
      undefined,
    ],
    ['What the scripts add: bytes (page − floor)', kib(page.totalBytes - floor.totalBytes), '', undefined],
  ]
}

/**
 * The page and its floor as on Lighthouse's phone: the machine's benchmarkIndex, the multiplier it gives, and each
 * one's TBT and LCP at it (throttled in Chromium), with what the scripts add. `pair` is [page, floor].
 */
function calibratedRows(
  benchmarkIndex: number,
  slowdown: number | undefined,
  pair: Medians[] | undefined,
  before?: { cpuSlowdown?: number; page?: Partial<LighthouseRun>; floor?: Partial<LighthouseRun> },
  method: 'devtools' | 'simulate' = 'devtools',
): Row[] {
  const machine: Row = [
    "This machine's Lighthouse benchmarkIndex (median of the mobile runs)",
    `${Math.round(benchmarkIndex)}${slowdown ? `: Lighthouse's phone at ${slowdown}× CPU (its default assumes 4× on about 1,500)` : ': too slow to play the phone'}`,
    '',
    undefined,
    before?.cpuSlowdown === undefined ? '' : `${before.cpuSlowdown}×`,
  ]
  const [page, floor] = pair ?? []
  const first = method === 'devtools' ? [machine] : []
  if (!slowdown || !page || !floor) return first
  const how = method === 'devtools' ? 'throttled in Chromium' : "simulated by Lighthouse (PageSpeed Insights' method)"
  const at = `at ${slowdown}× CPU, ${how}`
  const was = (value: number | undefined) => (value === undefined || Number.isNaN(value) ? '' : ms(value))
  const added = page.median.tbt - floor.median.tbt
  const lcpRatio = page.median.lcp / floor.median.lcp
  return [
    ...first,
    [
      `Page ${at}: TBT (median) / each run`,
      `${ms(page.median.tbt)} / ${page.runs.map((run) => Math.round(run.tbt)).join(', ')}`,
      '',
      undefined,
      was(before?.page?.tbt),
    ],
    [
      `Floor ${at}: TBT (median) / each run`,
      `${ms(floor.median.tbt)} / ${floor.runs.map((run) => Math.round(run.tbt)).join(', ')}`,
      '',
      undefined,
      was(before?.floor?.tbt),
    ],
    [`What the scripts add ${at}: TBT`, `${added >= 0 ? '+' : ''}${ms(added)}`, '≤ 50 ms', added <= 50],
    [
      `Page / floor ${at}: LCP`,
      `${ms(page.median.lcp)} / ${ms(floor.median.lcp)} (${lcpRatio.toFixed(2)}×)`,
      '≤ 1.1×',
      lcpRatio <= 1.1,
      before?.page?.lcp === undefined ? '' : `${ms(before.page.lcp)} / ${ms(before.floor?.lcp ?? Number.NaN)}`,
    ],
  ]
}

function bundleRows(bundle: BundleFigures): Row[] {
  return [
    [
      'Initial JS, gzip',
      `${kib(bundle.totals.initialJsGzip)} (${list(bundle.initialJs)})`,
      '≤ 75 KiB',
      bundle.totals.initialJsGzip <= 75 * KiB,
    ],
    ['Initial CSS, gzip', `${kib(bundle.totals.initialCssGzip)} (${list(bundle.initialCss)})`, '', undefined],
    ['HTML (index.html), gzip', kib(bundle.html.gzip), '', undefined],
    ...bundle.lazy.map((asset): Row => [`Lazy chunk ${asset.name}, gzip`, kib(asset.gzip), '', undefined]),
  ]
}

function printTable(rows: Row[], previousCommit = ''): void {
  const cells = rows.map(([measure, figure, target, met, previous = '']) => [
    measure,
    figure,
    target,
    met === undefined ? '' : met ? '✓' : '✗',
    previous,
  ])
  const header = [
    'Measure',
    'Figure',
    'Target',
    '',
    previousCommit ? `Before (${previousCommit.slice(0, 7)})` : 'Before',
  ]
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((row) => row[i]?.length ?? 0)))
  const line = (row: string[]) => `| ${row.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join(' | ')} |`
  console.log(['', line(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...cells.map(line)].join('\n'))
}

async function main(): Promise<void> {
  const chromePath = await findChromium()
  const launches = loadLaunches(findLaunches(process.cwd(), process.env))
  const defaultLaunch = launches.find((launch) => launch.isDefault)!
  const further = launches.filter((launch) => launch !== defaultLaunch)
  const tempDist = options.dist ? undefined : mkdtempSync(path.join(tmpdir(), 'vip-bench-dist-'))
  const distDir = options.dist ? path.resolve(options.dist) : (tempDist as string)
  const floorDir = mkdtempSync(path.join(tmpdir(), 'vip-bench-floor-'))
  let server: RunningServer | undefined
  let floorServer: RunningServer | undefined
  try {
    if (tempDist) build(tempDist)
    const bundle = measureBundle(path.join(distDir, defaultLaunch.slug))
    writeFloorDist(distDir, floorDir)
    server = await startServer({ DIST_DIR: distDir })
    floorServer = await startServer({ DIST_DIR: floorDir })
    console.log(
      `Serving ${launches.map((launch) => launch.slug).join(', ')} from ${distDir} at ${server.url}, and without scripts at ${floorServer.url}`,
    )
    const pageName = further.length ? defaultLaunch.slug : 'page'
    // The page and its floor in turns, so the machine's load falls on both alike.
    const mobile = await runInTurns(
      [
        { name: pageName, url: `${server.url}/` },
        { name: 'floor', url: `${floorServer.url}/` },
      ],
      'mobile',
      chromePath,
      runs,
    )
    // This machine as the phone Lighthouse means, whatever its speed: on a fast one 4× leaves every task short.
    const benchmarkIndex = median(Object.values(mobile).flatMap((m) => m.runs.map((run) => run.benchmarkIndex)))
    const phoneSlowdown = calibratedSlowdown(benchmarkIndex)
    // The page and its floor in turns at that multiplier, throttled one way: each run's name says which.
    const atPhone = (method: 'devtools' | 'simulate', suffix: string) =>
      phoneSlowdown
        ? runInTurns(
            [
              { name: `${pageName} at ${phoneSlowdown}×${suffix}`, url: `${server!.url}/` },
              { name: `floor at ${phoneSlowdown}×${suffix}`, url: `${floorServer!.url}/` },
            ],
            'mobile',
            chromePath,
            runs,
            undefined,
            { cpuSlowdown: phoneSlowdown, method },
          )
        : Promise.resolve(undefined)
    const calibrated = await atPhone('devtools', '')
    // [page, floor], in the order they were given.
    const calibratedPair = calibrated && Object.values(calibrated)
    // The same at the same multiplier with Lighthouse's own simulation, the method PageSpeed Insights reports.
    const simulated = await atPhone('simulate', ', simulated')
    const simulatedPair = simulated && Object.values(simulated)
    const { desktop } = await lighthouseMedians(
      `${server.url}/`,
      chromePath,
      ['desktop'],
      runs,
      further.length ? `${defaultLaunch.slug} ` : '',
    )
    const lighthouse = { mobile: mobile[pageName]!, desktop }
    const floor = mobile.floor!
    await floorServer.stop()
    floorServer = undefined
    // Each further launch on its own host name, as a visitor reaches it (Chrome resolves *.localhost to this machine).
    const port = new URL(server.url).port
    const perLaunch: Array<{ slug: string; mobile: Medians }> = []
    for (const launch of further) {
      const { mobile } = await lighthouseMedians(
        `http://${launch.slug}.localhost:${port}/`,
        chromePath,
        ['mobile'],
        extraRuns,
        `${launch.slug} `,
      )
      perLaunch.push({ slug: launch.slug, mobile })
    }
    console.log(`Interactions at ${cpuSlowdown}× CPU …`)
    const browser = await launchBrowser()
    let interaction: InteractionFigures
    try {
      interaction = await measureInteractions(browser, `${server.url}/`)
    } finally {
      await browser.close()
    }
    await server.stop()
    server = undefined
    console.log('Studio first load …')
    const studio = await runStudioBench(distDir).catch((error: unknown) => ({
      note: `failed: ${(error as Error).message}`,
    }))
    console.log('Dashboard on 20,000 leads …')
    const dashboard = await runDashboardBench().catch((error: unknown) => ({
      note: `failed: ${(error as Error).message}`,
    }))
    console.log('VIP release: allocate in order, a burst of worksheets …')
    const release = await releaseBenchFigures().catch((error: unknown) => ({
      note: `failed: ${(error as Error).message}`,
    }))
    const backend = await backendFigures()
    console.log('Build and publish bench …')
    const builds = await runBuildBench().catch((error: unknown) => ({ note: `failed: ${(error as Error).message}` }))

    const head = git(['rev-parse', 'HEAD'])
    const previous = previousRecord(head)
    const worstTbt = (formFactor: FormFactor) => Math.max(...lighthouse[formFactor].runs.map((run) => run.tbt))
    const worstOf = (medians: Medians) => Math.max(...medians.runs.map((run) => run.tbt))
    const rows: Row[] = [
      ...lighthouseRows(
        'mobile',
        lighthouse.mobile.median,
        worstTbt('mobile'),
        previous?.lighthouse?.mobile,
        further.length ? `${defaultLaunch.slug}, ${runs} runs` : '',
      ),
      ...floorRows(lighthouse.mobile.median, floor.median, worstOf(floor), previous?.lighthouse?.floor),
      ...calibratedRows(benchmarkIndex, phoneSlowdown, calibratedPair, previous?.lighthouse?.calibrated),
      ...calibratedRows(benchmarkIndex, phoneSlowdown, simulatedPair, previous?.lighthouse?.simulated, 'simulate'),
      ...perLaunch.flatMap(({ slug, mobile }) =>
        lighthouseRows(
          'mobile',
          mobile.median,
          worstOf(mobile),
          previous?.lighthouse?.launches?.[slug],
          `${slug}, ${mobile.runs.length} runs`,
        ),
      ),
      [
        `Longest interaction at ${cpuSlowdown}× CPU (Event Timing)`,
        `${interaction.longestMs} ms: ${interaction.longest}`,
        '≤ 100 ms',
        interaction.longestMs <= 100,
        previous?.interaction?.longestMs === undefined ? '' : `${previous.interaction.longestMs} ms`,
      ],
      ...lighthouseRows(
        'desktop',
        lighthouse.desktop.median,
        worstTbt('desktop'),
        undefined,
        further.length ? `${defaultLaunch.slug}, ${runs} runs` : '',
      ),
      ...bundleRows(bundle),
      ...('note' in studio
        ? [['Studio figures', String(studio.note), '', undefined] as Row]
        : Object.entries(studio).map(([key, value]): Row => {
            const before = previous?.studio?.[key as keyof StudioFigures]
            return [key, String(value), '', undefined, before === undefined ? '' : String(before)]
          })),
      ...('note' in dashboard
        ? [['Dashboard figures', String(dashboard.note), '', undefined] as Row]
        : Object.entries(dashboard).map(([key, value]): Row => {
            const before = previous?.dashboard?.[key]
            return [key, String(value), '< 100 ms', value < 100, before === undefined ? '' : String(before)]
          })),
      ...Object.entries(release).map(([key, value]): Row => {
        const before = previous?.release?.[key]
        const timed = key.startsWith('allocate in order, 1,000')
        const met = timed ? Number(value) < 2000 : key.endsWith('numbered once') ? value === 'yes' : undefined
        return [key, String(value), timed ? '< 2 s' : '', met, before === undefined ? '' : String(before)]
      }),
      ...('note' in builds
        ? [['Build and publish figures', String(builds.note), '', undefined] as Row]
        : Object.entries(builds).map(([key, value]): Row => {
            const before = previous?.builds?.[key as keyof BuildFigures]
            const target = key === '20 launches / 1 launch' ? '≤ 3' : key.startsWith('publish') ? '≤ 5 s' : ''
            const met =
              key === '20 launches / 1 launch' ? value <= 3 : key.startsWith('publish') ? value <= 5 : undefined
            return [key, String(value), target, met, before === undefined ? '' : String(before)]
          })),
      ...(backend.figures
        ? Object.entries(backend.figures).map(([key, value]): Row => {
            const before = previous?.backend?.[key]
            return [
              `Backend ${key.replace(/^backend\./, '')}`,
              String(value),
              '',
              undefined,
              before === undefined ? '' : String(before),
            ]
          })
        : [['Backend figures', backend.note ?? '', '', undefined] as Row]),
    ]
    printTable(rows, previous?.commit)
    if (!backend.figures) console.log(`\nbackend figures: ${backend.note}`)
    for (const formFactor of ['mobile', 'desktop'] as const) {
      const { failing, savings, lcpElement, lcpPhases } = lighthouse[formFactor].median
      console.log(`\n${formFactor}: LCP element ${lcpElement}; phases ${lcpPhases}`)
      if (failing.length) console.log(`\n${formFactor}: audits that cost points: ${failing.join(', ')}`)
      if (savings.length) console.log(`${formFactor}: Lighthouse's estimated savings: ${savings.join(', ')}`)
    }

    const record = {
      commit: head,
      // Uncommitted changes to tracked files: the figures may not belong to the commit alone.
      dirty: git(['status', '--porcelain', '--untracked-files=no']) !== '',
      date: new Date().toISOString(),
      runs,
      // mobile and desktop: the default launch's, comparable with records from before launches; launches: mobile of
      // each further one.
      lighthouse: {
        mobile: { ...lighthouse.mobile.median, worstTbt: worstTbt('mobile') },
        // The same page with every script removed, measured in turns with it (bench/floor.ts).
        floor: { ...floor.median, worstTbt: worstOf(floor) },
        desktop: { ...lighthouse.desktop.median, worstTbt: worstTbt('desktop') },
        defaultLaunch: defaultLaunch.slug,
        launches: Object.fromEntries(
          perLaunch.map(({ slug, mobile }) => [
            slug,
            { ...mobile.median, worstTbt: worstOf(mobile), runs: mobile.runs.length },
          ]),
        ),
        // The page and its floor at this machine's calibrated multiplier, throttled in Chromium.
        calibrated: {
          benchmarkIndex,
          cpuSlowdown: phoneSlowdown,
          ...(calibratedPair && { page: calibratedPair[0]!.median, floor: calibratedPair[1]!.median }),
        },
        // The same pair with Lighthouse's simulated throttling at that multiplier (PageSpeed Insights' method).
        simulated: {
          cpuSlowdown: phoneSlowdown,
          ...(simulatedPair && { page: simulatedPair[0]!.median, floor: simulatedPair[1]!.median }),
        },
      },
      interaction: { longestMs: interaction.longestMs, longest: interaction.longest },
      bundle: {
        initialJsGzip: bundle.totals.initialJsGzip,
        initialCssGzip: bundle.totals.initialCssGzip,
        initialGzip: bundle.totals.initialGzip,
        lazyGzip: bundle.totals.lazyGzip,
        htmlGzip: bundle.html.gzip,
        lazy: Object.fromEntries(bundle.lazy.map((asset) => [asset.name, asset.gzip])),
      },
      backend: backend.figures ?? { note: backend.note },
      builds,
      studio,
      dashboard,
      release,
    }
    mkdirSync(resultsDir, { recursive: true })
    writeFileSync(
      path.join(resultsDir, 'latest.json'),
      `${JSON.stringify({ ...record, detail: { lighthouseRuns: { mobile: lighthouse.mobile.runs, floor: floor.runs, ...(calibrated && Object.fromEntries(Object.entries(calibrated).map(([name, m]) => [name, m.runs]))), ...(simulated && Object.fromEntries(Object.entries(simulated).map(([name, m]) => [name, m.runs]))), desktop: lighthouse.desktop.runs, ...Object.fromEntries(perLaunch.map(({ slug, mobile }) => [`mobile ${slug}`, mobile.runs])) }, interactions: interaction.entries, bundle } }, null, 2)}\n`,
    )
    appendFileSync(path.join(resultsDir, 'history.jsonl'), `${JSON.stringify(record)}\n`)
    console.log(
      `\nWrote ${path.relative(process.cwd(), path.join(resultsDir, 'latest.json'))} and appended to history.jsonl (${record.commit ? record.commit.slice(0, 7) : 'not a git checkout'}${record.dirty ? ', uncommitted changes' : ''}).`,
    )
  } catch (error) {
    if (server) console.error(`The server said:\n${server.output().trim().split('\n').slice(-20).join('\n')}`)
    throw error
  } finally {
    await server?.stop()
    await floorServer?.stop()
    rmSync(floorDir, { recursive: true, force: true })
    if (tempDist) rmSync(tempDist, { recursive: true, force: true })
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error)
  process.exit(1)
})
