import { spawn, spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import net from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { createInterface } from 'node:readline'
import { pathToFileURL } from 'node:url'
import { parseArgs } from 'node:util'
import { createLaunch } from '../src/config/new-launch.ts'
import { buildCacheDir, pageCodeFingerprint } from '../src/build/page-code.ts'
import { readBuildSettings } from '../src/server/env.ts'
import { copyProject } from '../tests/e2e/harness.ts'

/**
 * The build and publish bench (part of `npm run bench`, or alone: `npx tsx bench/builds.ts`), in a temporary copy of
 * the project with extra launches made by new-launch:
 *   - `npm run build` of 1 launch with no page code built yet (cold: the Vite build of the page code and the studio),
 *     then of 1, 5 and 20 launches with it built (what a build costs once the code is built: configs, images, pages);
 *   - publishing one launch among 20 through the running server's publisher (the studio's Publish): draft to live.
 * Each build is a process of its own, timed from start to exit.
 */

export type BuildFigures = {
  'build 1 launch, cold (s)': number
  'build 1 launch (s)': number
  'build 5 launches (s)': number
  'build 20 launches (s)': number
  '20 launches / 1 launch': number
  'publish 1 of 20 launches (s)': number
  'publish 1 of 20 again (s)': number
  'server start, 20 launches built (s)': number
}

const tsx = path.resolve('node_modules/.bin/tsx')

function timedBuild(root: string, distDir: string): number {
  const started = performance.now()
  const result = spawnSync(tsx, ['src/cli/build.ts'], {
    cwd: root,
    env: { ...process.env, DIST_DIR: distDir },
    encoding: 'utf8',
  })
  const seconds = (performance.now() - started) / 1000
  if (result.status !== 0) throw new Error(`The build failed:\n${result.stdout}\n${result.stderr}`)
  return Math.round(seconds * 10) / 10
}

/**
 * Starts a server of `root` (tests/e2e/publishing-server.ts) and publishes `slug` with its config changed twice: the
 * seconds to listening, then those of each publish.
 */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo
      probe.close(() => resolve(port))
    })
    probe.on('error', reject)
  })
}

async function timedPublishes(root: string, distDir: string, slug: string): Promise<number[]> {
  const port = await freePort()
  const server = spawn(process.execPath, ['--import', 'tsx', path.resolve('tests/e2e/publishing-server.ts')], {
    cwd: root,
    env: {
      ...process.env,
      DIST_DIR: distDir,
      DATA_DIR: path.join(root, '.data'),
      PORT: String(port),
      HOST: '127.0.0.1',
    },
    stdio: ['pipe', 'pipe', 'inherit'],
  })
  const lines = createInterface({ input: server.stdout })
  const results: string[] = []
  let waiting: ((line: string) => void) | undefined
  const startedAt = performance.now()
  let listening: () => void = () => {}
  const ready = new Promise<void>((resolve) => (listening = resolve))
  lines.on('line', (line) => {
    if (line.startsWith('Listening on ')) listening()
    if (!line.startsWith('publish-result ')) return
    if (waiting) waiting(line)
    else results.push(line)
  })
  const next = () =>
    new Promise<string>((resolve) =>
      results.length ? resolve(results.shift()!) : (waiting = (line) => ((waiting = undefined), resolve(line))),
    )
  try {
    await ready
    const seconds: number[] = [Math.round(((performance.now() - startedAt) / 1000) * 10) / 10]
    const configFile = path.join(root, 'launches', slug, 'page.config.json')
    for (const heading of ['Published by the bench', 'Published by the bench, again']) {
      const draft = path.join(root, `draft-${seconds.length}.json`)
      const text = readFileSync(configFile, 'utf8')
      writeFileSync(
        draft,
        text.replace(/"heading": "[^"]*"/, () => `"heading": "${heading}"`),
      )
      const started = performance.now()
      server.stdin.write(`publish ${slug} ${draft}\n`)
      const result = JSON.parse((await next()).slice('publish-result '.length)) as { ok: boolean; problems?: unknown }
      if (!result.ok) throw new Error(`The publish failed: ${JSON.stringify(result.problems)}`)
      seconds.push(Math.round(((performance.now() - started) / 1000) * 10) / 10)
    }
    return seconds
  } finally {
    server.kill('SIGTERM')
  }
}

/** Builds of one launch (twice: the first makes what the checkout caches), then five and twenty, timed. */
type BuildSeries = { first: number; one: number; five: number; twenty: number; twentyDist: string; launches: string[] }

/**
 * `npm run build` of the project copy at `root` with 1, 5 and 20 launches, `addLaunch` making each extra one, each
 * build into a new folder (`dists`, for the caller to remove); `label` names the checkout in the log.
 */
function timedBuildSeries(
  root: string,
  dists: string[],
  addLaunch: (name: string) => void,
  log: (line: string) => void,
  label = '',
): BuildSeries {
  const dist = () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'vip-bench-build-'))
    dists.push(dir)
    return dir
  }
  const first = timedBuild(root, dist())
  log(`${label}build 1 launch, first (makes what is cached): ${first} s`)
  const one = timedBuild(root, dist())
  log(`${label}build 1 launch: ${one} s`)
  const launches = Array.from({ length: 19 }, (_, i) => `bench-launch-${String(i + 1).padStart(2, '0')}`)
  launches.slice(0, 4).forEach(addLaunch)
  const five = timedBuild(root, dist())
  log(`${label}build 5 launches: ${five} s`)
  launches.slice(4).forEach(addLaunch)
  const twentyDist = dist()
  const twenty = timedBuild(root, twentyDist)
  log(`${label}build 20 launches: ${twenty} s`)
  return { first, one, five, twenty, twentyDist, launches }
}

/** Runs the build and publish bench; every temporary folder is removed. */
export async function runBuildBench(log: (line: string) => void = console.log): Promise<BuildFigures> {
  const project = copyProject()
  const dists: string[] = []
  try {
    // Cold: this code version's page code removed from the cache (the first build makes it again).
    const fingerprint = pageCodeFingerprint(path.resolve('.'), readBuildSettings(process.env))
    rmSync(path.join(buildCacheDir, 'page-code', fingerprint), { recursive: true, force: true })
    const series = timedBuildSeries(
      project.root,
      dists,
      (name) => createLaunch(name, project.root, path.join(project.root, 'page.config.json')),
      log,
    )
    const [start, publish, again] = await timedPublishes(project.root, series.twentyDist, series.launches[9]!)
    log(`server start with 20 launches: ${start} s; publish 1 of 20: ${publish} s, again ${again} s`)
    return {
      'build 1 launch, cold (s)': series.first,
      'build 1 launch (s)': series.one,
      'build 5 launches (s)': series.five,
      'build 20 launches (s)': series.twenty,
      '20 launches / 1 launch': Math.round((series.twenty / series.one) * 10) / 10,
      'publish 1 of 20 launches (s)': publish!,
      'publish 1 of 20 again (s)': again!,
      'server start, 20 launches built (s)': start!,
    }
  } finally {
    for (const dir of dists) rmSync(dir, { recursive: true, force: true })
    project.remove()
  }
}

/**
 * `npm run build` of 1, 5 and 20 launches of another checkout (`--old DIR`, e.g. a `git worktree` of an older commit
 * with node_modules linked), in a temporary copy, the extra launches made by its own `new-launch`: an older commit's
 * build beside this one's in one run.
 */
export function oldBuildFigures(dir: string, log: (line: string) => void = console.log): Record<string, number> {
  const project = copyProject(dir)
  const dists: string[] = []
  const newLaunch = (name: string) => {
    const result = spawnSync(tsx, ['src/cli/new-launch.ts', name], { cwd: project.root, encoding: 'utf8' })
    if (result.status !== 0) throw new Error(`new-launch ${name} failed in ${dir}:\n${result.stdout}\n${result.stderr}`)
  }
  try {
    const { one, five, twenty } = timedBuildSeries(project.root, dists, newLaunch, log, `${path.basename(dir)}: `)
    return {
      'build 1 launch (s)': one,
      'build 5 launches (s)': five,
      'build 20 launches (s)': twenty,
      '20 launches / 1 launch': Math.round((twenty / one) * 10) / 10,
    }
  } finally {
    for (const made of dists) rmSync(made, { recursive: true, force: true })
    project.remove()
  }
}

// `npx tsx bench/builds.ts [--old DIR]`: with --old, that checkout's builds first, then this one's, in one run.
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { values } = parseArgs({ options: { old: { type: 'string' } } })
  const old = values.old ? oldBuildFigures(path.resolve(values.old)) : undefined
  const figures = await runBuildBench()
  console.log(JSON.stringify(old ? { [path.basename(values.old!)]: old, this: figures } : figures, null, 2))
}
