import { spawn } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { phaseAt, phaseScheduleOf, type PhaseSchedule } from '../../../schema/phase-schedule.ts'
import type { LaunchPublisher, PublishResult } from './launch-publisher.ts'
import { phasePagesDir, readVersionManifest, versionManifestFile, type LaunchVersion } from './launch-version.ts'
import type { LiveLaunches } from './live-launches.ts'
import { cspHashesOf, staticHostHeaders, styleHashesOf } from './security-headers.ts'

/**
 * Publishing to a static host (PUBLISH_COMMAND): after each publish of a launch, and at each of its phases' start,
 * the launch's pages as a static host serves them are put in DIST_DIR/.static/<slug>/ and the command is run with
 * PUBLISH_SLUG and PUBLISH_DIR in its environment (never in its text: a slug cannot inject anything). A failure
 * leaves the publish here as it is and is told to the person who published. Several servers on one database each
 * run the command for their own publishes; a phase start is sent by the one server that claims it (`claim`).
 */

/** What the static host is given to work with. */
export type StaticHostOptions = {
  /** PUBLISH_COMMAND, run by /bin/sh in `cwd`. */
  command: string
  cwd: string
  live: LiveLaunches
  /** DIST_DIR/.static: one folder per launch, made anew before each run. */
  dir: string
  /** DATA_DIR/static-host.json: when the command last ran for each launch (by the server's clock). */
  stateFile: string
  clock?: (() => Date) | undefined
  /** NOTIFY_TIME_ZONE: the phases' start times are read in launch.timeZone, else this. */
  timeZone: string
  /** VITE_SUPABASE_URL, for the _headers file of a phase's pages (its CSP), as the build writes it. */
  supabaseUrl: string | undefined
  /** Default 10 minutes: a command still running then is stopped and counted as failed. */
  timeoutMs?: number
  /** How often the clock is read again while waiting for a start (a clock set forward). Default 60 s. */
  recheckMs?: number
  log?: { info(line: string): void; error(line: string): void }
  /**
   * Several servers on one database: claims a phase start's run for this server (true) or learns that another server
   * has it (false), so the host receives each phase's folder once. Absent: this server alone runs it.
   */
  claim?: ((job: string, day: string) => Promise<boolean>) | undefined
}

// A timer longer than this fires at once (Node clamps it to 1 ms).
const maxTimerMs = 2 ** 31 - 1
// Files of a built folder that are the Node server's alone: the phases to come (their copy must not be public before
// their start), the function's contract (it names the notification address) and the build's fingerprint.
const serverOnly = new Set([phasePagesDir, versionManifestFile, '.build-stamp'])

/** The last lines of a command's output, for the person who published (its tool's own words). */
function lastLines(text: string, count = 5): string {
  return text
    .split('\n')
    .map((line) => line.trimEnd())
    .filter(Boolean)
    .slice(-count)
    .join('\n')
    .slice(-1_000)
}

type Log = NonNullable<StaticHostOptions['log']>

/** When the command last ran for each launch (DATA_DIR/static-host.json). */
function readRuns(stateFile: string): Record<string, number> {
  try {
    return JSON.parse(readFileSync(stateFile, 'utf8')) as Record<string, number>
  } catch {
    return {}
  }
}

function recordRun(stateFile: string, slug: string, at: number): void {
  const state = readRuns(stateFile)
  state[slug] = at
  writeFileSync(stateFile, `${JSON.stringify(state)}\n`)
}

function scheduleOf(version: LaunchVersion, timeZone: string): PhaseSchedule | undefined {
  const phases = version.contract.phases
  return phases && phaseScheduleOf(phases, phases.timeZone ?? timeZone)
}

/** The starts after "current", those that have come (`past`) or not yet. */
const startsOf = (schedule: PhaseSchedule | undefined, now: number, past: boolean) =>
  (schedule?.startsAt.slice(schedule.currentIndex + 1) ?? []).filter(
    (at): at is number => at !== undefined && at <= now === past,
  )

/** The build's _headers allows the inline scripts and styles of the phase it put at the top: these pages' instead. */
async function rewriteHeaders(version: LaunchVersion, fresh: string, supabaseUrl: string | undefined): Promise<void> {
  const manifest = readVersionManifest(version.distDir)
  if (!existsSync(path.join(fresh, '_headers')) || !manifest) return
  const home = readFileSync(path.join(fresh, 'index.html'), 'utf8')
  const headers = {
    jsonLdHashes: await cspHashesOf(home),
    styleHashes: await styleHashesOf(home),
    https: true,
    tagManager: manifest.tagManager,
  }
  writeFileSync(path.join(fresh, '_headers'), staticHostHeaders(supabaseUrl ? { ...headers, supabaseUrl } : headers))
}

/** The launch's folder as a static host serves it: the phase in force at the top, nothing of the server's own. */
async function prepare(options: StaticHostOptions, now: number, slug: string, version: LaunchVersion) {
  mkdirSync(options.dir, { recursive: true })
  const target = path.join(options.dir, slug)
  const fresh = `${target}.new-${process.pid}`
  rmSync(fresh, { recursive: true, force: true })
  cpSync(version.distDir, fresh, {
    recursive: true,
    dereference: true,
    filter: (from) => !serverOnly.has(path.relative(version.distDir, from)),
  })
  const schedule = scheduleOf(version, options.timeZone)
  const phaseDir = schedule && path.join(version.distDir, phasePagesDir, phaseAt(schedule, now))
  if (phaseDir && existsSync(path.join(phaseDir, 'index.html'))) {
    cpSync(phaseDir, fresh, { recursive: true, dereference: true })
    await rewriteHeaders(version, fresh, options.supabaseUrl)
  }
  rmSync(target, { recursive: true, force: true })
  renameSync(fresh, target)
  return target
}

/** How a command that did not succeed ended, in plain words. */
function howItEnded(timedOut: boolean, timeoutMs: number, code: number | null, signal: NodeJS.Signals | null) {
  if (timedOut) return `it did not finish within ${Math.round(timeoutMs / 60_000)} minutes and was stopped`
  return code === null ? `it was stopped (${signal})` : `it ended with code ${code}`
}

type CommandRun = { options: StaticHostOptions; timeoutMs: number; log: Log; running: Map<string, { kill(): void }> }

/** Runs the command for `dir`: undefined when it succeeded, else its failure in plain words. */
function runCommand({ options, timeoutMs, log, running }: CommandRun, slug: string, dir: string) {
  return new Promise<string | undefined>((resolve) => {
    // Its own process group, so a command that started others is stopped whole.
    const child = spawn('/bin/sh', ['-c', options.command], {
      cwd: options.cwd,
      env: { ...process.env, PUBLISH_SLUG: slug, PUBLISH_DIR: dir },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    })
    let stdout = ''
    let stderr = ''
    let timedOut = false
    const kill = () => {
      try {
        process.kill(-child.pid!, 'SIGKILL')
      } catch {
        // Already gone.
      }
    }
    running.set(slug, { kill })
    const cut = setTimeout(() => {
      timedOut = true
      kill()
    }, timeoutMs)
    const keep = (text: string, chunk: Buffer) => (text + chunk.toString()).slice(-16_000)
    child.stdout.on('data', (chunk: Buffer) => (stdout = keep(stdout, chunk)))
    child.stderr.on('data', (chunk: Buffer) => (stderr = keep(stderr, chunk)))
    const done = (failure: string | undefined) => {
      clearTimeout(cut)
      running.delete(slug)
      const output = lastLines(`${stdout}\n${stderr}`, 20)
      if (output) log.info(`Static host (${slug}), the command said:\n${output}`)
      resolve(failure)
    }
    child.once('error', (error) => done(`it could not be started (${error.message})`))
    child.once('close', (code, signal) => {
      if (code === 0) return done(undefined)
      const said = lastLines(stderr) || lastLines(stdout)
      const how = howItEnded(timedOut, timeoutMs, code, signal)
      done(said ? `${said} (${how})` : how)
    })
  })
}

/** The publisher that also sends each successful publish to the static host; a failure becomes `warning`. */
function wrapPublisher(
  publisher: LaunchPublisher,
  send: (slug: string, why: string) => Promise<string | undefined>,
  check: () => void,
): LaunchPublisher {
  return {
    ...publisher,
    async publish(slug: string, configText: string): Promise<PublishResult> {
      const result = await publisher.publish(slug, configText)
      if (!result.ok) return result
      const failure = await send(slug, 'published')
      check()
      return failure ? { ...result, warning: `Published here; the static host's command failed: ${failure}` } : result
    },
  }
}

/** The static host: `wrap` a publisher so each publish is sent on; `start` arms the phase starts; `stop` at close. */
export function createStaticHost(options: StaticHostOptions) {
  const clock = options.clock ?? (() => new Date())
  const recheckMs = options.recheckMs ?? 60_000
  const log = options.log ?? { info: (line: string) => console.log(line), error: (line: string) => console.error(line) }
  const run: CommandRun = { options, timeoutMs: options.timeoutMs ?? 600_000, log, running: new Map() }
  let queue: Promise<unknown> = Promise.resolve()
  let timer: ReturnType<typeof setTimeout> | undefined
  let stopped = false

  /** Prepares the folder and runs the command for a launch, after any run before it; the failure, if any. */
  function send(slug: string, why: string): Promise<string | undefined> {
    const result = queue.then(async () => {
      const version = options.live.current().get(slug)?.version
      if (!version || stopped) return undefined
      const at = clock().getTime()
      let failure: string | undefined
      try {
        failure = await runCommand(run, slug, await prepare(options, clock().getTime(), slug, version))
      } catch (error) {
        failure = `the folder could not be prepared (${(error as Error).message})`
      }
      if (stopped) return failure
      recordRun(options.stateFile, slug, at)
      const took = ((clock().getTime() - at) / 1000).toFixed(1)
      if (failure) log.error(`Static host (${slug}, ${why}): PUBLISH_COMMAND failed: ${failure}`)
      else log.info(`Static host (${slug}, ${why}): PUBLISH_COMMAND done in ${took} s`)
      return failure
    })
    queue = result.catch(() => {})
    return result
  }

  /** Sends a launch at a phase's start, unless another server on the database has claimed that start. */
  async function sendPhaseStart(slug: string, started: number): Promise<unknown> {
    const day = new Date(started).toISOString().slice(0, 10)
    if (options.claim && !(await options.claim(`static-host:${slug}:${started}`, day))) {
      recordRun(options.stateFile, slug, clock().getTime())
      log.info(`Static host (${slug}, a phase started): another server sends it.`)
      return undefined
    }
    return send(slug, 'a phase started')
  }

  /** Runs the command for each launch a phase has started for since its last run, then waits for the next start. */
  function check(): void {
    if (stopped) return
    const now = clock().getTime()
    const state = readRuns(options.stateFile)
    const due: Array<Promise<unknown>> = []
    let next = Number.POSITIVE_INFINITY
    for (const launch of options.live.current().launches) {
      if (!launch.version || run.running.has(launch.slug)) continue
      const schedule = scheduleOf(launch.version, options.timeZone)
      const started = Math.max(...startsOf(schedule, now, true))
      if (started > (state[launch.slug] ?? Number.NEGATIVE_INFINITY)) due.push(sendPhaseStart(launch.slug, started))
      next = Math.min(next, ...startsOf(schedule, now, false))
    }
    if (timer) clearTimeout(timer)
    timer = undefined
    if (due.length > 0) {
      void Promise.all(due).then(check)
      return
    }
    if (next === Number.POSITIVE_INFINITY) return
    timer = setTimeout(check, Math.min(Math.max(0, next - now), recheckMs, maxTimerMs))
    timer.unref()
  }

  return {
    wrap: (publisher: LaunchPublisher) => wrapPublisher(publisher, send, check),
    /** Arms the next phase start; runs the command at once for a launch whose phase started since its last run. */
    start: check,
    /** Clears the timer and stops a command still running (its launch is sent again at the next start). */
    async stop(): Promise<void> {
      stopped = true
      if (timer) clearTimeout(timer)
      for (const running of run.running.values()) running.kill()
      await queue
    },
  }
}
