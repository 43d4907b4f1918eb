import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { startServer, type RunningServer } from '../tests/e2e/harness.ts'
import { findChromium } from '../tests/find-chromium.ts'
import { writeFloorDist } from './floor.ts'
import { calibrateSlowdown, median, runInTurns, type Medians, type Target } from './lighthouse.ts'

/*
 * `npx tsx bench/compare.ts --old DIR [--new DIR] [--runs 5] [--old-dist D] [--new-dist D]`: two checkouts of this
 * project (an older commit in a
 * `git worktree`, and this one) measured side by side in one run, as the shared machine's load moves every figure
 * between runs. Each checkout builds its own site into a temporary directory and serves it with its own server; the
 * floor of each (its pages with every script removed, bench/floor.ts) is served beside it. `--old-dist`/`--new-dist`
 * measure a checkout's existing build instead (a build takes minutes on a loaded machine). Lighthouse mobile runs
 * the four in turns, `runs` times each, and the table gives each one's medians, what the scripts add, and the load
 * average before and after. `--slowdown calibrated` runs them on the phone Lighthouse means whatever this machine's
 * speed (the multiplier from its benchmarkIndex, `calibratedSlowdown` in bench/lighthouse.ts); `--slowdown N` on N×;
 * without it Lighthouse's own 4×. `--method devtools` throttles the loads in Chromium instead of simulating
 * (see `ThrottlingMethod` in bench/lighthouse.ts: on a shared 2-core machine the simulation multiplies the waits).
 */

const { values: options } = parseArgs({
  options: {
    old: { type: 'string' },
    new: { type: 'string', default: '.' },
    runs: { type: 'string', default: '5' },
    'old-dist': { type: 'string' },
    'new-dist': { type: 'string' },
    slowdown: { type: 'string' },
    method: { type: 'string', default: 'simulate' },
  },
})
if (!options.old) {
  console.error(
    'Name the older checkout to compare with: --old DIR (for example a `git worktree add /tmp/old COMMIT`).',
  )
  process.exit(1)
}
if (options.method !== 'simulate' && options.method !== 'devtools') {
  console.error(`--method takes "simulate" (Lighthouse's default) or "devtools", not "${options.method}".`)
  process.exit(1)
}
const method = options.method
const runs = Math.max(1, Number(options.runs) || 5)
const checkouts = { old: path.resolve(options.old), new: path.resolve(options.new) }
if (options.slowdown !== undefined && options.slowdown !== 'calibrated' && !(Number(options.slowdown) >= 1)) {
  console.error(`--slowdown takes "calibrated" or a CPU multiplier of 1 or more, not "${options.slowdown}".`)
  process.exit(1)
}

function commitOf(dir: string): string {
  const result = spawnSync('git', ['-C', dir, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' })
  return result.status === 0 ? result.stdout.trim() : '?'
}

function build(dir: string, distDir: string): void {
  console.log(`Building ${dir} (${commitOf(dir)}) into ${distDir} …`)
  const result = spawnSync(path.join(dir, 'node_modules/.bin/tsx'), ['src/cli/build.ts'], {
    cwd: dir,
    stdio: 'inherit',
    env: { ...process.env, DIST_DIR: distDir },
  })
  if (result.status !== 0) throw new Error(`The build of ${dir} failed (see above).`)
}

const ms = (value: number) => `${Math.round(value)} ms`
const load = () =>
  loadavg()
    .map((v) => v.toFixed(2))
    .join(', ')

async function main(): Promise<void> {
  const chromePath = await findChromium()
  const work = mkdtempSync(path.join(tmpdir(), 'vip-bench-compare-'))
  const servers: RunningServer[] = []
  try {
    const targets: Target[] = []
    for (const [name, dir] of Object.entries(checkouts)) {
      const given = options[`${name as 'old' | 'new'}-dist`]
      const dist = given ? path.resolve(given) : path.join(work, name)
      const floor = path.join(work, `${name}-floor`)
      if (!given) build(dir, dist)
      writeFloorDist(dist, floor)
      // A loaded machine can take a minute to start a server.
      const page = await startServer({ DIST_DIR: dist }, { cwd: dir, timeoutMs: 180_000 })
      const bare = await startServer({ DIST_DIR: floor }, { cwd: dir, timeoutMs: 180_000 })
      servers.push(page, bare)
      targets.push({ name: `${name} page`, url: `${page.url}/` }, { name: `${name} floor`, url: `${bare.url}/` })
    }
    let cpuSlowdown =
      options.slowdown === undefined || options.slowdown === 'calibrated' ? undefined : Number(options.slowdown)
    let calibration = ''
    if (options.slowdown === 'calibrated') {
      console.log('Calibrating the CPU multiplier (3 Lighthouse runs of the new floor) …')
      const found = await calibrateSlowdown(targets.find((target) => target.name === 'new floor')!.url, chromePath)
      cpuSlowdown = found.cpuSlowdown
      calibration = `; calibrated: benchmarkIndex ${Math.round(found.benchmarkIndex)} → ${cpuSlowdown}× CPU`
      console.log(`benchmarkIndex ${Math.round(found.benchmarkIndex)}: ${cpuSlowdown}× CPU`)
    }
    const loadBefore = load()
    console.log(`Load average before: ${loadBefore}`)
    const results: Record<string, Medians> = await runInTurns(targets, 'mobile', chromePath, runs, undefined, {
      cpuSlowdown,
      method,
    })
    const loadAfter = load()
    const indexes = Object.values(results).flatMap(({ runs: all }) => all.map((run) => run.benchmarkIndex))
    const rows = targets.map(({ name }) => {
      const { median, runs: all } = results[name]!
      const tbts = all.map((run) => Math.round(run.tbt)).join(', ')
      return `| ${name} (${commitOf(checkouts[name.split(' ')[0] as 'old' | 'new'])}) | ${ms(median.tbt)} | ${tbts} | ${ms(median.lcp)} | ${ms(median.fcp)} | ${median.performance} |`
    })
    const tbt = (name: string) => results[name]!.median.tbt
    console.log(
      [
        '',
        `Lighthouse mobile at ${cpuSlowdown ?? 4}× CPU${calibration}, ${method === 'devtools' ? 'throttled in Chromium' : 'simulated'}, ${runs} runs each in turns; benchmarkIndex ${Math.round(Math.min(...indexes))}–${Math.round(Math.max(...indexes))} (median ${Math.round(median(indexes))}); load average ${loadBefore} before, ${loadAfter} after.`,
        '',
        '| Page | TBT median | TBT each run | LCP | FCP | performance |',
        '|---|---|---|---|---|---|',
        ...rows,
        '',
        `New page's TBT above its floor: ${ms(tbt('new page') - tbt('new floor'))} (target ≤ 50 ms) ${tbt('new page') - tbt('new floor') <= 50 ? '✓' : '✗'}`,
        `Old page's TBT above its floor: ${ms(tbt('old page') - tbt('old floor'))}`,
        `New floor's TBT against the old floor's: ${ms(tbt('new floor'))} / ${ms(tbt('old floor'))} (target ≤ half) ${tbt('new floor') <= tbt('old floor') / 2 ? '✓' : '✗'}`,
      ].join('\n'),
    )
    // What makes each TBT: every run's tasks of 50 ms or more as Lighthouse simulated them, and its FCP (TBT counts
    // what blocks after it).
    for (const { name } of targets) {
      console.log(`\n${name}: long tasks as Lighthouse simulated them`)
      for (const [i, run] of results[name]!.runs.entries()) {
        console.log(
          `  run ${i + 1} (TBT ${ms(run.tbt)}, FCP ${ms(run.fcp)}): ${run.longTasks.length ? run.longTasks.join('; ') : 'none'}`,
        )
      }
    }
  } finally {
    for (const server of servers) await server.stop()
    rmSync(work, { recursive: true, force: true })
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error)
  process.exit(1)
})
