import { spawn, type ChildProcess } from 'node:child_process'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { contactFunctionPath } from '../schema/function-path.ts'
import { localAnonKey } from '../schema/local-defaults.ts'
import { migrateDatabase } from '../src/cli/db/db-migrate.ts'
import { startTestPostgres, type TestPostgres } from '../tests/server/support/postgres.ts'
import { autocannon } from './load-client.ts'
import { startSmtpSink } from './smtp-sink.ts'
import { childrenOf, ownCpuMs, treeCpuMs, untilIdle } from './process-cpu.ts'

/*
 * `npx tsx bench/cpu-profile.ts [--seconds 10] [--min 0.02] [--postgres] [--smtp] [--old DIR …] [--rounds N]
 * [--no-profile] [--drain] [--by-function]`: where the Node server's CPU goes per registration.
 * Serves the function (a stand-in page: the registrations are measured) under V8's sampling profiler (`node
 * --cpu-prof`: the request thread, the SQLite writer thread and the delivery process each write a profile), sends
 * registrations from 50 connections, stops the server, and prints each step's CPU per registration (self time: a
 * step's own code, not what it calls), every one of at least `--min` ms, grouped: the project's functions by file and
 * name, a package's by its name, Node's own by area. Before the steps, each process's CPU per registration as Linux
 * counts it (/proc): the server (all its threads), its delivery process, PostgreSQL (postmaster and backends) and the
 * load generator (this process, with the SMTP server when there is one).
 * `--postgres`: on a throwaway PostgreSQL cluster, a database fresh from the checkout's migrations for each load.
 * `--smtp`: SMTP up (a real SMTP server on 127.0.0.1, on a thread of this process) instead of the .eml files.
 * `--drain` (with `--smtp`): the delivery process's steps after the load instead, per message sent, from the load's end
 * until no message has arrived for 2 s (the queue drained): where sending a message's CPU goes.
 * `--by-function`: a package's and Node's steps by file and function too, not only by package and area.
 * `--old DIR` (repeatable): another checkout (a `git worktree` with node_modules linked) measured the same way, in
 * turns with this one, `--rounds` times (default 1), so a change is compared with its before on one machine at one
 * moment. Figures for docs/performance.md, measured on this machine at its load; not a test.
 */

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '10' },
    min: { type: 'string' },
    postgres: { type: 'boolean' },
    smtp: { type: 'boolean' },
    old: { type: 'string', multiple: true },
    rounds: { type: 'string', default: '1' },
    'no-profile': { type: 'boolean' },
    drain: { type: 'boolean' },
    'by-function': { type: 'boolean' },
  },
})
const seconds = Number(values.seconds) || 10
const minimum = Number(values.min ?? '0.02')
const profiling = values['no-profile'] !== true
const byFunction = values['by-function'] === true
const root = process.cwd()

type ProfileNode = { id: number; callFrame: { functionName: string; url: string; lineNumber: number } }
type Profile = { nodes: ProfileNode[]; startTime: number; samples: number[]; timeDeltas: number[] }

/** The load's start and end on the profiles' clock (µs of CLOCK_MONOTONIC, as process.hrtime). */
type Window = { from: number; to: number }
const nowMicros = () => Number(process.hrtime.bigint() / 1000n)

/** The step a sampled frame belongs to, named as a person reads it. */
function stepOf(frame: ProfileNode['callFrame']): string {
  const { url, functionName } = frame
  const name = functionName || '(anonymous)'
  if (!url) return name.startsWith('(') ? name : `V8 built-in: ${name}`
  const modules = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)
  if (modules) return byFunction ? `${url.split('node_modules/').pop()} ${name}` : `package ${modules[1]}`
  if (url.startsWith('node:'))
    return byFunction ? `${url} ${name}` : `Node: ${url.slice(5).split('/').slice(0, 2).join('/')}`
  const project = /\/(src\/.+|schema\/.+)$/.exec(url)
  if (project) return `${project[1]} ${name}`
  return `${url} ${name}`
}

/** Self time per step in ms during the load, from one profile; idle time, start-up and stop left out. */
function selfTimes(profile: Profile, load: Window): Map<string, number> {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]))
  const times = new Map<string, number>()
  let at = profile.startTime
  profile.samples.forEach((id, i) => {
    at += profile.timeDeltas[i] ?? 0
    const frame = byId.get(id)?.callFrame
    if (!frame || frame.functionName === '(idle)' || at < load.from || at > load.to) return
    const step = stepOf(frame)
    times.set(step, (times.get(step) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000)
  })
  return times
}

/** A process's own CPU time in ms (user + system, all its threads), 0 once it is gone. */
function ownMs(pid: number | undefined): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
    return (Number(fields[11]) + Number(fields[12])) * 10
  } catch {
    return 0
  }
}

/** What a PostgreSQL process does, from the title it gives itself (`postgres: walwriter`, `postgres: user db …`). */
function postgresKindOf(pid: number): string {
  let title = ''
  try {
    title = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ')
  } catch {
    return 'ended'
  }
  if (/autovacuum/.test(title)) return 'autovacuum'
  if (/checkpointer|background writer|walwriter|launcher|archiver|stats/.test(title)) return 'background'
  return 'connections'
}

/**
 * The CPU ms each PostgreSQL process has used so far by pid, with its kind: the connections' backends, autovacuum,
 * the background processes; the postmaster with what its ended children used (a backend closed, an autovacuum worker
 * done) as 'postmaster and ended processes'.
 */
function postgresCpu(postmaster: number | undefined): Map<number, { kind: string; ms: number }> {
  const cpu = new Map<number, { kind: string; ms: number }>()
  if (postmaster === undefined) return cpu
  cpu.set(postmaster, { kind: 'postmaster and ended processes', ms: treeCpuMs(postmaster) })
  for (const child of childrenOf(postmaster)) {
    const ms = treeCpuMs(child)
    cpu.set(child, { kind: postgresKindOf(child), ms })
    // The postmaster's tree counts its live children too: here each is counted once, under its own kind.
    cpu.get(postmaster)!.ms -= ms
  }
  return cpu
}

/** The CPU ms PostgreSQL used between two readings, by kind of process. */
function postgresCpuByKind(
  before: Map<number, { kind: string; ms: number }>,
  after: Map<number, { kind: string; ms: number }>,
): Map<string, number> {
  const byKind = new Map<string, number>()
  for (const [pid, { kind, ms }] of after) byKind.set(kind, (byKind.get(kind) ?? 0) + ms - (before.get(pid)?.ms ?? 0))
  // A process gone since the first reading: its time moved to the postmaster's ended children.
  for (const [pid, { kind, ms }] of before) if (!after.has(pid)) byKind.set(kind, (byKind.get(kind) ?? 0) - ms)
  return byKind
}

/** A throwaway PostgreSQL for every load of the run, and its postmaster's pid. */
type Cluster = { cluster: TestPostgres; postmaster: number | undefined; databases: number }

async function startCluster(): Promise<Cluster> {
  const cluster = await startTestPostgres({ empty: true })
  const { rows } = await cluster.db.query("SELECT current_setting('data_directory') AS dir")
  const dir = (rows[0] as { dir: string }).dir
  const postmaster = Number(readFileSync(path.join(dir, 'postmaster.pid'), 'utf8').split('\n')[0]) || undefined
  return { cluster, postmaster, databases: 0 }
}

/** A database of its own in the cluster, migrated with `checkout`'s migrations; its name and URL. */
async function freshDatabase(pg: Cluster, checkout: string): Promise<{ name: string; url: string }> {
  const name = `profile_${process.pid}_${(pg.databases += 1)}`
  await pg.cluster.exec(`CREATE DATABASE ${name}`)
  const url = new URL(pg.cluster.url!)
  url.pathname = `/${name}`
  const migrated = await migrateDatabase(url.toString(), path.join(checkout, 'supabase/migrations'), {
    log: () => {},
    fail: (line) => console.error(line),
  })
  if (migrated !== 0) throw new Error('the migrations could not be applied')
  return { name, url: url.toString() }
}

type Statement = { calls: number; rows: number; exec: number; plan: number; query: string }

/**
 * The statements the database ran, from pg_stat_statements when the server preloads it (a DATABASE_URL server started
 * with `-c shared_preload_libraries=pg_stat_statements`), else undefined.
 */
async function statementsOf(pg: Cluster, database: string): Promise<Statement[] | undefined> {
  try {
    await pg.cluster.exec('CREATE EXTENSION IF NOT EXISTS pg_stat_statements')
    const { rows } = await pg.cluster.db.query(
      `SELECT calls::int, rows::int, total_exec_time AS exec, total_plan_time AS plan, query FROM pg_stat_statements
       WHERE dbid = (SELECT oid FROM pg_database WHERE datname = $1)`,
      [database],
    )
    return rows as Statement[]
  } catch {
    return undefined
  }
}

/**
 * Prints the statements per registration, and each statement that took at least 1 % of the database's time (execution
 * and planning, as pg_stat_statements times them): its calls and time per registration, its rows and times a call.
 */
function reportStatements(before: Statement[], after: Statement[], requests: number): void {
  const earlier = new Map(before.map((s) => [s.query, s]))
  const runs = after
    .map((s) => {
      const was = earlier.get(s.query)
      return {
        ...s,
        calls: s.calls - (was?.calls ?? 0),
        rows: s.rows - (was?.rows ?? 0),
        exec: s.exec - (was?.exec ?? 0),
        plan: s.plan - (was?.plan ?? 0),
      }
    })
    .filter((s) => s.calls > 0)
  const calls = runs.reduce((sum, s) => sum + s.calls, 0)
  const total = runs.reduce((sum, s) => sum + s.exec + s.plan, 0)
  console.log(
    `   statements per registration: ${(calls / requests).toFixed(2)}, their time ${((total * 1000) / requests).toFixed(0)} µs a registration`,
  )
  const per = (ms: number, n: number) => ((ms * 1000) / n).toFixed(0)
  for (const s of runs.filter((r) => r.exec + r.plan >= total / 100).sort((a, b) => b.exec + b.plan - a.exec - a.plan))
    console.log(
      `     ${per(s.exec + s.plan, requests)} µs and ${(s.calls / requests).toFixed(3)} calls a registration; a call: ${(s.rows / s.calls).toFixed(1)} rows, execution ${per(s.exec, s.calls)} µs, planning ${per(s.plan, s.calls)} µs: ${s.query.replace(/\s+/g, ' ').slice(0, 80)}`,
    )
}

/** The benches' SMTP server (bench/smtp-sink.ts) on a free port, counting the messages it accepts. */
async function startCountingSink(): Promise<{ port: number; received: () => number; close(): Promise<void> }> {
  let received = 0
  const sink = await startSmtpSink(0, (messages) => (received += messages.length))
  return { port: sink.port, received: () => received, close: () => sink.close() }
}

/** Starts `checkout`'s server (node --import tsx src/cli/serve.ts), profiled unless --no-profile; its URL. */
async function startServer(
  checkout: string,
  env: Record<string, string>,
  profiles: string,
): Promise<{ url: string; proc: ChildProcess }> {
  const args = profiling ? ['--cpu-prof', `--cpu-prof-dir=${profiles}`] : []
  const proc = spawn(process.execPath, [...args, '--import', 'tsx', 'src/cli/serve.ts'], {
    cwd: checkout,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      HOST: '127.0.0.1',
      PORT: '0',
      RATE_LIMIT_PER_MINUTE: '0',
      PAGE_CONFIG: 'page.config.json',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  let output = ''
  const url = await new Promise<string>((resolve, reject) => {
    proc.stdout.on('data', (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-4000)
      const listening = /Listening on (http:\/\/\S+)/.exec(output)
      if (listening) resolve(listening[1]!.replace(/\/$/, ''))
    })
    proc.once('exit', () => reject(new Error(`the server stopped:\n${output}`)))
  })
  return { url, proc }
}

/** How many .eml files a directory holds (0 when there is none). */
function emlFiles(dir: string): number {
  try {
    return readdirSync(dir).filter((file) => file.endsWith('.eml')).length
  } catch {
    return 0
  }
}

/** One load on `checkout`'s server: its figures printed, its profiles read. */
async function measure(checkout: string, label: string, work: string, pg: Cluster | undefined): Promise<void> {
  const dir = mkdtempSync(path.join(work, 'load-'))
  const profiles = path.join(dir, 'profiles')
  const dist = path.join(dir, 'dist')
  const slug = (
    JSON.parse(readFileSync(path.join(checkout, 'page.config.json'), 'utf8')) as { launch: { slug: string } }
  ).launch.slug
  mkdirSync(path.join(dist, slug), { recursive: true })
  writeFileSync(path.join(dist, slug, 'index.html'), '<!doctype html><title>profile</title>')
  writeFileSync(path.join(dist, slug, '404.html'), '<!doctype html><title>404</title>')
  const smtp = values.smtp ? await startCountingSink() : undefined
  const env: Record<string, string> = { DATA_DIR: path.join(dir, 'data'), DIST_DIR: dist }
  const database = pg ? await freshDatabase(pg, checkout) : undefined
  if (database) {
    env.DATABASE_URL = database.url
    env.SUPPRESSION_SECRET = 'profile-suppression-secret-0123456789'
  }
  if (smtp) {
    env.SMTP_URL = `smtp://127.0.0.1:${smtp.port}`
    env.MAIL_FROM = 'Profile <no-reply@example.com>'
    env.PUBLIC_URL = 'http://127.0.0.1'
  }
  const server = await startServer(checkout, env, profiles)
  const pid = server.proc.pid!
  try {
    let n = 0
    await untilIdle([pid])
    const children = childrenOf(pid)
    const cpu = () => [
      ownMs(pid),
      children.reduce((sum, child) => sum + treeCpuMs(child), 0),
      treeCpuMs(pg?.postmaster),
      ownCpuMs(),
    ]
    const statements = database && (await statementsOf(pg!, database.name))
    const before = cpu()
    const postgresBefore = postgresCpu(pg?.postmaster)
    const from = nowMicros()
    const result = await autocannon({
      url: server.url,
      connections: 50,
      duration: seconds,
      requests: [
        {
          method: 'POST',
          path: contactFunctionPath,
          headers: {
            apikey: localAnonKey,
            authorization: `Bearer ${localAnonKey}`,
            'content-type': 'application/json',
          },
          setupRequest: (request) => ({ ...request, body: registration((n += 1)) }),
        },
      ],
    })
    const used = cpu().map((after, i) => after - before[i]!)
    const postgresUsed = postgresCpuByKind(postgresBefore, postgresCpu(pg?.postmaster))
    // The messages the delivery process sent during the load: received by the SMTP server, or written as .eml files.
    const sent = smtp ? smtp.received() : emlFiles(path.join(env.DATA_DIR!, 'outbox'))
    const statementsAfter = database && statements && (await statementsOf(pg!, database.name))
    const drain = values.drain && smtp ? await drained(smtp, children) : undefined
    // The delivery process goes on sending after the load: its next seconds count in the profiles too.
    if (!drain) await new Promise((resolve) => setTimeout(resolve, 3_000))
    const load = drain?.window ?? { from, to: nowMicros() }
    const requests = result.requests.total
    const per = (ms: number) => (ms / Math.max(1, requests)).toFixed(3)
    console.log(
      `\n== ${label}: ${requests} registrations in ${seconds} s (${Math.round(result.requests.average)}/s), p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms, non-2xx ${result.non2xx}` +
        `${smtp ? `, ${smtp.received()} messages received by SMTP by now` : ''}`,
    )
    console.log(
      `   CPU ms per registration during the load: server ${per(used[0]!)}, delivery process ${per(used[1]!)}` +
        `${pg ? `, PostgreSQL ${per(used[2]!)}` : ''}, load generator ${per(used[3]!)}; the delivery process sent ` +
        `${sent} messages during it, ${(used[1]! / Math.max(1, sent)).toFixed(3)} ms CPU a message`,
    )
    if (pg)
      console.log(
        `   PostgreSQL's by process: ${[...postgresUsed]
          .sort((a, b) => b[1] - a[1])
          .map(([kind, ms]) => `${kind} ${per(ms)}`)
          .join(', ')}`,
      )
    if (statements && statementsAfter) reportStatements(statements, statementsAfter, requests)
    const stopped = new Promise((resolve) => server.proc.once('exit', resolve))
    server.proc.kill('SIGTERM')
    await stopped
    if (profiling) {
      // The delivery process finishes writing its profile as it exits, after the server.
      await new Promise((resolve) => setTimeout(resolve, 2_000))
      if (drain) report(profiles, drain.messages, load, 'message sent after the load')
      else report(profiles, requests, load)
    }
  } finally {
    if (server.proc.exitCode === null && server.proc.signalCode === null) server.proc.kill('SIGKILL')
    await smtp?.close()
    // On DATABASE_URL's server (not a throwaway cluster) the database would stay.
    if (database) await pg!.cluster.exec(`DROP DATABASE IF EXISTS ${database.name} WITH (FORCE)`)
    rmSync(dir, { recursive: true, force: true })
  }
}

async function main(): Promise<void> {
  const work = mkdtempSync(path.join(tmpdir(), 'vip-cpu-profile-'))
  const pg = values.postgres ? await startCluster() : undefined
  try {
    const checkouts = [...(values.old ?? []).map((dir) => path.resolve(dir)), root]
    for (let round = 1; round <= Math.max(1, Number(values.rounds) || 1); round++)
      for (const checkout of checkouts)
        await measure(checkout, `round ${round}, ${checkout === root ? 'this checkout' : checkout}`, work, pg)
  } finally {
    await pg?.cluster.stop()
    rmSync(work, { recursive: true, force: true })
  }
}

/** A new registration, half of them realtors'. */
function registration(n: number): string {
  return JSON.stringify({
    name: `Profile Visitor ${n}`,
    email: `visitor${n}@example.com`,
    phone: '555-555-0100',
    ...(n % 2
      ? { isRealtor: 'yes', brokerage: 'Example Realty Inc., Brokerage', recoNumber: '5550100', forClient: 'no' }
      : { isRealtor: 'no' }),
    submissionId: crypto.randomUUID(),
    pageUrl: 'https://bramblewood.example.com/',
    referrer: '',
    utm: { utm_source: 'bench' },
    consentText: 'By submitting, you agree to be contacted with VIP updates.',
    website: '',
  })
}

/**
 * Waits from the load's end until the SMTP server has received nothing for 2 s: that window, the messages received in
 * it and the delivery process's CPU per message (Linux's count).
 */
async function drained(
  smtp: { received(): number },
  children: number[],
): Promise<{ window: Window; messages: number }> {
  const from = nowMicros()
  const before = smtp.received()
  const cpuBefore = children.reduce((sum, child) => sum + treeCpuMs(child), 0)
  let last = before
  let lastAt = from
  while (nowMicros() - lastAt < 2_000_000) {
    await new Promise((resolve) => setTimeout(resolve, 100))
    if (smtp.received() !== last) {
      last = smtp.received()
      lastAt = nowMicros()
    }
  }
  const messages = last - before
  const cpu = children.reduce((sum, child) => sum + treeCpuMs(child), 0) - cpuBefore
  console.log(
    `   after the load: ${messages} messages in ${((lastAt - from) / 1e6).toFixed(1)} s, ` +
      `delivery process ${(cpu / Math.max(1, messages)).toFixed(3)} ms CPU a message`,
  )
  return { window: { from, to: lastAt }, messages }
}

/** Prints each profile's total and its steps of at least `minimum` ms per registration (or per `unit`). */
function report(dir: string, requests: number, load: Window, unit = 'registration'): void {
  const files = readdirSync(dir).sort()
  // CPU.<date>.<time>.<pid>.<thread>.<n>.cpuprofile: the server's process started first, its delivery process after.
  const pids = [...new Set(files.map((file) => file.split('.')[3]))]
  for (const file of files) {
    const [, , , pid, thread] = file.split('.')
    const who = `${pid === pids[0] ? 'the server' : 'the delivery process'}, ${thread === '0' ? 'main thread' : `thread ${thread}`}`
    const times = selfTimes(JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as Profile, load)
    const total = [...times.values()].reduce((a, b) => a + b, 0)
    if (total / requests < minimum) continue
    console.log(`\n${who}: ${(total / requests).toFixed(3)} ms CPU per ${unit} (profiler samples)`)
    for (const [step, ms] of [...times].sort((a, b) => b[1] - a[1])) {
      const per = ms / requests
      if (per < minimum) break
      console.log(`  ${per.toFixed(3)} ms  ${step}`)
    }
  }
}

await main()
