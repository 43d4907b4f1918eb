import { spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { findLaunches, loadLaunches } from '../src/config/launches.ts'
import { startServer, type RunningServer } from '../tests/e2e/harness.ts'
import { findChromium } from '../tests/find-chromium.ts'
import { measureBundle } from './bundle.ts'
import { writeFloorDist } from './floor.ts'
import { calibrateSlowdown, runInTurns, type Medians, type Target, type ThrottlingMethod } from './lighthouse.ts'

/*
 * `npx tsx bench/lighthouse-pair.ts [--dist DIR …] [--runs 3] [--method simulate|devtools] [--slowdown X]
 * [--reports DIR]`: only the bench's page-and-floor pair on Lighthouse's phone, for working on what the scripts add.
 * Each --dist (a built dist/, measured as it is; none: the working tree is built into a temporary directory) is
 * served with its floor (bench/floor.ts), and every page and floor is run in turns, so two builds given side by side
 * (before and after a change) meet the same load of a shared machine. The CPU multiplier is --slowdown, or the
 * calibrated one (`calibratedSlowdown`) from three mobile runs' benchmarkIndex. --reports keeps each run's report.
 * Prints each one's median LCP, FCP and TBT, the page's LCP over its floor's and the TBT it adds, and its initial JS.
 */

const { values: options } = parseArgs({
  options: {
    dist: { type: 'string', multiple: true },
    runs: { type: 'string', default: '3' },
    method: { type: 'string', default: 'simulate' },
    slowdown: { type: 'string' },
    reports: { type: 'string' },
  },
})
const method = options.method as ThrottlingMethod
if (method !== 'simulate' && method !== 'devtools') throw new Error('--method is simulate or devtools.')
const runs = Math.max(1, Number(options.runs) || 3)

const ms = (value: number) => `${Math.round(value)} ms`

function build(distDir: string): void {
  console.log(`Building into ${distDir} …`)
  const result = spawnSync(path.resolve('node_modules/.bin/tsx'), ['src/cli/build.ts'], {
    stdio: 'inherit',
    env: { ...process.env, DIST_DIR: distDir },
  })
  if (result.status !== 0) throw new Error('The build failed (see above): nothing to measure.')
}

/** One line per build: page and floor medians, the LCP ratio and the TBT the scripts add, with each run's LCP. */
function report(name: string, page: Medians, floor: Medians, initialJsGzip: number): string {
  const each = (m: Medians) => m.runs.map((run) => Math.round(run.lcp)).join(', ')
  return [
    `${name}: initial JS ${(initialJsGzip / 1024).toFixed(1)} KiB gzip`,
    `  page  LCP ${ms(page.median.lcp)} (${each(page)}), FCP ${ms(page.median.fcp)}, TBT ${ms(page.median.tbt)}`,
    `  floor LCP ${ms(floor.median.lcp)} (${each(floor)}), FCP ${ms(floor.median.fcp)}, TBT ${ms(floor.median.tbt)}`,
    `  LCP page / floor ${(page.median.lcp / floor.median.lcp).toFixed(2)}× (≤ 1.1×), TBT added ${ms(page.median.tbt - floor.median.tbt)} (≤ 50 ms)`,
    `  page's LCP element ${page.median.lcpElement}: ${page.median.lcpPhases}`,
  ].join('\n')
}

async function main(): Promise<void> {
  const chromePath = await findChromium()
  const defaultSlug = loadLaunches(findLaunches(process.cwd(), process.env)).find((launch) => launch.isDefault)!.slug
  const temporary: string[] = []
  const servers: RunningServer[] = []
  try {
    const dists = options.dist?.map((dir) => path.resolve(dir)) ?? []
    if (dists.length === 0) {
      const dir = mkdtempSync(path.join(tmpdir(), 'vip-pair-dist-'))
      temporary.push(dir)
      build(dir)
      dists.push(dir)
    }
    const builds: Array<{ name: string; page: Target; floor: Target; initialJsGzip: number }> = []
    for (const [i, dist] of dists.entries()) {
      const floorDir = mkdtempSync(path.join(tmpdir(), 'vip-pair-floor-'))
      temporary.push(floorDir)
      writeFloorDist(dist, floorDir)
      const page = await startServer({ DIST_DIR: dist })
      servers.push(page)
      const floor = await startServer({ DIST_DIR: floorDir })
      servers.push(floor)
      const name = dists.length > 1 ? `${i + 1}` : 'page'
      builds.push({
        name: `${name} (${dist})`,
        page: { name: `page ${name}`, url: `${page.url}/` },
        floor: { name: `floor ${name}`, url: `${floor.url}/` },
        initialJsGzip: measureBundle(path.join(dist, defaultSlug)).totals.initialJsGzip,
      })
    }
    let cpuSlowdown = options.slowdown === undefined ? undefined : Number(options.slowdown)
    if (cpuSlowdown === undefined) {
      console.log('Calibrating the CPU multiplier (3 mobile runs) …')
      const calibrated = await calibrateSlowdown(builds[0]!.page.url, chromePath)
      cpuSlowdown = calibrated.cpuSlowdown
      console.log(`benchmarkIndex ${Math.round(calibrated.benchmarkIndex)}: ${cpuSlowdown}×`)
    }
    if (options.reports) mkdirSync(options.reports, { recursive: true })
    const medians = await runInTurns(
      builds.flatMap((b) => [b.page, b.floor]),
      'mobile',
      chromePath,
      runs,
      undefined,
      { cpuSlowdown, method },
      options.reports,
    )
    console.log(`\n${runs} runs each, mobile at ${cpuSlowdown}× CPU, throttling: ${method}`)
    for (const b of builds) console.log(report(b.name, medians[b.page.name]!, medians[b.floor.name]!, b.initialJsGzip))
  } finally {
    for (const server of servers) await server.stop()
    for (const dir of temporary) rmSync(dir, { recursive: true, force: true })
  }
}

await main()
