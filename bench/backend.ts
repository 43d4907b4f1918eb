import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import net from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { parseArgs } from 'node:util'
import Database from 'better-sqlite3'
import { contactFunctionPath } from '../schema/function-path.ts'
import { localAnonKey } from '../schema/local-defaults.ts'
import { createLaunch } from '../src/config/new-launch.ts'
import { defaultLaunchSlug } from '../src/cli/launch-catalog.ts'
import { defaultConcurrency } from '../src/server/delivery/outbox.ts'
import { openSqliteStore } from '../src/server/store/sqlite/sqlite-store.ts'
import { copyProject } from '../tests/e2e/harness.ts'
import { startTestReceiver } from '../tests/server/support/webhook-receiver.ts'
import { insertFsyncRate } from './backend-floors.ts'
import { startSmtpSink, type SmtpSink } from './smtp-sink.ts'
import { autocannon, type AutocannonRequest } from './load-client.ts'
import { ownCpuMs, untilIdle } from './process-cpu.ts'
import { measureSmtpCeiling } from './smtp-ceiling.ts'
import { postgresServersPhase, type PostgresPhaseDeps } from './postgres-servers.ts'

/**
 * The backend's load and durability bench (`npm run bench:backend`, and part of `npm run bench`):
 *   1. load      autocannon, 50 connections, 15 s, every request a new registration (1 in 20 a retry of one
 *                already acknowledged): requests/s, p50, p99, and whether every acknowledged registration is
 *                stored exactly once; then how long the outbox takes to write every notification (to .eml files: no
 *                SMTP_URL, the server's default).
 *   1b. smtp     the load of 1. with SMTP up (SMTP_URL: a real SMTP server on 127.0.0.1): every message received;
 *                the delivery's and the SMTP server's CPU per message after the load, beside this machine's ceiling
 *                measured right after on the same server (bench/smtp-ceiling.ts: pre-composed messages sent raw).
 *   2. outage    SMTP down: every registration still succeeds; SMTP back: every notification arrives, once.
 *   3. sigkill   SIGKILL mid-load, restart on the same DATA_DIR: every acknowledged lead is there.
 *   4. launches  the load of 1. on one server serving three launches (a copy of the project with two more in
 *                launches/), each request for the next launch by its host name (<slug>.localhost): requests/s
 *                beside 1.'s one-launch figure, and whether every lead is stored once, under its own launch.
 *   5. delivery  SIGKILL of the delivery process alone, mid-delivery over SMTP: every message arrives, repeats at
 *                most those in flight (counted by distinct Message-ID).
 *   6. webhook   the load of 1. with a CRM webhook on (WEBHOOK_URL, a real HTTP receiver on 127.0.0.1 that checks each
 *                call's signature): a third message queued with each lead, every call received and signed.
 *   7. launches20 the load of 4. over twenty launches.
 * After each load (1., 1b., 4., 6., 7.) the server's resident memory (RSS), so one launch and twenty can be compared.
 * Beside 1., in the same run: the floors (bench/backend-floors.ts) — a plain INSERT+fsync loop's rate and an empty
 * handler's rate under the same load — and, with `--old DIR` (another checkout, e.g. `git archive <commit>` unpacked
 * with node_modules linked; repeatable), the load of 1. on that checkout's server, just before this one's;
 * `--rounds N` takes the checkouts' loads (10 s each, not waiting for delivery) in turns N times first;
 * `--load-only` runs the floors and the loads (1. and 1b.) alone.
 * Everything runs on 127.0.0.1 in a temporary directory; every process started here is stopped by its pid.
 */

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      )
    })
  })
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

async function until(check: () => boolean | Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const end = Date.now() + timeoutMs
  while (Date.now() < end) {
    if (await check()) return true
    await sleep(100)
  }
  return check()
}

type Server = { url: string; proc: ChildProcess; startMs: number; stop(signal: NodeJS.Signals): Promise<void> }

/** Starts src/cli/serve.ts (or `script`) as one process (node --import tsx), so SIGKILL hits the server itself. */
async function startServer(env: Record<string, string>, cwd = root, script = 'src/cli/serve.ts'): Promise<Server> {
  const started = Date.now()
  const proc = spawn(process.execPath, ['--import', 'tsx', script], {
    cwd,
    // PAGE_CONFIG: one launch (the default one), whatever launches/ holds, unless the phase serves several.
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      HOST: '127.0.0.1',
      PORT: '0',
      RATE_LIMIT_PER_MINUTE: '0',
      PAGE_CONFIG: 'page.config.json',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let tail = ''
  const keep = (c: Buffer) => {
    tail = (tail + c.toString()).slice(-4000)
  }
  proc.stdout.on('data', keep)
  proc.stderr.on('data', keep)
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${tail}`)), 90_000)
    proc.stdout.on('data', () => {
      const match = /Listening on (http:\/\/\S+)/.exec(tail)
      if (match) {
        clearTimeout(timer)
        resolve(match[1]!)
      }
    })
    proc.once('exit', () => {
      clearTimeout(timer)
      reject(new Error(`server exited:\n${tail}`))
    })
  })
  return {
    url,
    proc,
    startMs: Date.now() - started,
    async stop(signal) {
      if (proc.exitCode !== null || proc.signalCode !== null) return
      const exited = new Promise((resolve) => proc.once('exit', resolve))
      proc.kill(signal)
      await exited
    },
  }
}

/**
 * A stand-in built site for each launch, where the server looks for it (dist/<slug>/): the bench measures the function.
 */
function writeDist(distRoot: string, slugs: string[]): void {
  for (const slug of slugs) {
    const dir = path.join(distRoot, slug)
    mkdirSync(dir, { recursive: true })
    writeFileSync(path.join(dir, 'index.html'), `<!doctype html><title>bench ${slug}</title>`)
    writeFileSync(path.join(dir, '404.html'), '<!doctype html><title>404</title>')
  }
}

/** The slug of the project's default launch (page.config.json). */
function defaultSlugOf(projectRoot: string): string {
  return (JSON.parse(readFileSync(path.join(projectRoot, 'page.config.json'), 'utf8')) as { launch: { slug: string } })
    .launch.slug
}

let counter = 0
// A retry sends exactly what the first attempt sent, as a browser retrying would.
const sent = new Map<string, string>()
function body(submissionId: string, launch?: string): string {
  const before = sent.get(submissionId)
  if (before) return before
  counter += 1
  const text = JSON.stringify({
    ...(launch ? { launch } : {}),
    name: `Bench Visitor ${counter}`,
    email: `visitor${counter}@example.com`,
    phone: '555-555-0100',
    // Half realtors, with what a realtor is asked (an older checkout drops the fields its form does not have).
    ...(counter % 2
      ? { isRealtor: 'yes', brokerage: 'Example Realty Inc., Brokerage', recoNumber: '5550100', forClient: 'no' }
      : { isRealtor: 'no' }),
    submissionId,
    pageUrl: 'https://bramblewood.example.com/',
    referrer: '',
    utm: { utm_source: 'bench' },
    consentText: 'By submitting, you agree to be contacted with VIP updates.',
    website: '',
  })
  sent.set(submissionId, text)
  return text
}

/** An autocannon request that registers a new lead each time (1 in `retryEvery` a retry) and records the 200s. */
function registrations(acked: string[], retryEvery = 0): AutocannonRequest {
  return {
    method: 'POST',
    path: contactFunctionPath,
    headers: { apikey: localAnonKey, authorization: `Bearer ${localAnonKey}`, 'content-type': 'application/json' },
    setupRequest(req, context) {
      const retry = retryEvery > 0 && acked.length > 0 && Math.random() < 1 / retryEvery
      const id = retry ? acked[Math.floor(Math.random() * acked.length)]! : crypto.randomUUID()
      context.id = id
      return { ...req, body: body(id) }
    },
    onResponse(status, _body, context) {
      if (status === 200) acked.push(String(context.id))
    },
  }
}

async function storedIds(dataDir: string): Promise<string[]> {
  const store = openSqliteStore(path.join(dataDir, 'leads.sqlite'), {
    readonly: true,
    defaultLaunch: defaultLaunchSlug() ?? 'default',
  })
  try {
    const ids: string[] = []
    for (let after = 0; ;) {
      const page = await store.listLeads(after, 5000)
      if (page.length === 0) return ids
      ids.push(...page.map((l) => l.submissionId))
      after = page.at(-1)!.id
    }
  } finally {
    await store.close()
  }
}

function emlCount(dataDir: string): number {
  const dir = path.join(dataDir, 'outbox')
  return existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.eml')).length : 0
}

/**
 * An autocannon request that registers a new lead each time for the next of `slugs` in turn, sent to that launch's
 * host name (as its page would be) and naming it; records each acknowledged id with its launch.
 */
function spreadRegistrations(slugs: string[], acked: Map<string, string>): AutocannonRequest {
  let next = 0
  return {
    method: 'POST',
    path: contactFunctionPath,
    headers: { apikey: localAnonKey, authorization: `Bearer ${localAnonKey}`, 'content-type': 'application/json' },
    setupRequest(req, context) {
      const launch = slugs[next++ % slugs.length]!
      const id = crypto.randomUUID()
      context.id = id
      context.launch = launch
      return {
        ...req,
        headers: { ...(req.headers as Record<string, string>), host: `${launch}.localhost` },
        body: body(id, launch),
      }
    },
    onResponse(status, _body, context) {
      if (status === 200) acked.set(String(context.id), String(context.launch))
    },
  }
}

/** Each stored lead's launch by submission id (a lead stored before launches existed has none: the default). */
function storedLaunches(dataDir: string, defaultLaunch: string): Map<string, string> {
  const db = new Database(path.join(dataDir, 'leads.sqlite'), { readonly: true })
  try {
    const rows = db.prepare('SELECT submission_id AS id, launch FROM leads').all() as Array<{
      id: string
      launch: string | null
    }>
    return new Map(rows.map((row) => [row.id, row.launch ?? defaultLaunch]))
  } finally {
    db.close()
  }
}

/** Every acknowledged id stored, and stored once. */
function compare(acked: string[], stored: string[]) {
  const storedSet = new Set(stored)
  const uniqueAcked = new Set(acked)
  const missing = [...uniqueAcked].filter((id) => !storedSet.has(id)).length
  const duplicates = stored.length - storedSet.size
  return { uniqueAcked: uniqueAcked.size, missing, duplicates }
}

/** The load over `count` launches (3: figures under `launches.`, else `launches<count>.`). */
async function launchesPhase(work: string, log: (line: string) => void, count = 3) {
  // A copy of the project with more launches (the default config under other names), so the server serves `count`.
  const project = copyProject()
  const prefix = count === 3 ? 'launches' : `launches${count}`
  const dataDir = path.join(work, prefix)
  try {
    const defaultLaunch = defaultSlugOf(project.root)
    const slugs = [
      defaultLaunch,
      ...Array.from({ length: count - 1 }, (_, i) =>
        i === 0 ? 'bench-second' : i === 1 ? 'bench-third' : `bench-${i + 1}`,
      ),
    ]
    // As `npm run new-launch -- <slug>` makes them: a copy of the default launch at https://<slug>.example.com/.
    for (const slug of slugs.slice(1)) createLaunch(slug, project.root, path.join(project.root, 'page.config.json'))
    writeDist(path.join(project.root, 'dist'), slugs)
    const server = await startServer({ DATA_DIR: dataDir, PAGE_CONFIG: '' }, project.root)
    const acked = new Map<string, string>()
    try {
      log(`launches: 50 connections for 15 s, spread over ${slugs.length} launches …`)
      const result = await autocannon({
        url: server.url,
        connections: 50,
        duration: 15,
        timeout: 10,
        requests: [spreadRegistrations(slugs, acked)],
      })
      const rssMiB = rssMiBOf(server.proc.pid)
      await sleep(1000)
      const stored = storedLaunches(dataDir, defaultLaunch)
      const missing = [...acked.keys()].filter((id) => !stored.has(id)).length
      const wrongLaunch = [...acked].filter(([id, launch]) => stored.has(id) && stored.get(id) !== launch).length
      const counts = slugs.map((slug) => [...stored.values()].filter((launch) => launch === slug).length)
      const perLaunch =
        count > 3
          ? `${Math.min(...counts)}–${Math.max(...counts)} each`
          : slugs.map((slug, i) => `${slug} ${counts[i]}`).join(', ')
      const figures = {
        'launches.count': slugs.length,
        'launches.requestsPerSecond': Math.round(result.requests.average),
        'launches.latencyP50Ms': result.latency.p50,
        'launches.latencyP99Ms': result.latency.p99,
        'launches.acknowledged': acked.size,
        'launches.storedByLaunch': perLaunch,
        'launches.acknowledgedButMissing': missing,
        'launches.storedUnderAnotherLaunch': wrongLaunch,
        'launches.non2xx': result.non2xx,
        'launches.errors': result.errors + result.timeouts,
        'launches.serverRssMiBAfterLoad': rssMiB,
      }
      return Object.fromEntries(
        Object.entries(figures).map(([key, value]) => [key.replace(/^launches\./, () => `${prefix}.`), value]),
      )
    } finally {
      await server.stop('SIGTERM')
    }
  } finally {
    project.remove()
  }
}

/** The outbox's messages by state, read beside the server. */
async function outboxCounts(dataDir: string) {
  const store = openSqliteStore(path.join(dataDir, 'leads.sqlite'), {
    readonly: true,
    defaultLaunch: defaultLaunchSlug() ?? 'default',
  })
  try {
    return await store.countMessages()
  } finally {
    await store.close()
  }
}

/** The empty handler's rate under the load's connections, for a shorter time (it is a floor, not the subject). */
async function emptyHandlerPhase(log: (line: string) => void) {
  const server = await startServer({}, root, 'bench/empty-server.ts')
  const acked: string[] = []
  try {
    log('floor: the empty handler, 50 connections for 5 s …')
    const result = await autocannon({
      url: server.url,
      connections: 50,
      duration: 5,
      timeout: 10,
      requests: [registrations(acked)],
    })
    return {
      'floor.emptyHandlerPerSecond': Math.round(result.requests.average),
      'floor.emptyHandlerP99Ms': result.latency.p99,
    }
  } finally {
    await server.stop('SIGTERM')
  }
}

/** CPU time (user + system) a process has used so far, in ms; 0 once it is gone. */
function cpuMsOf(pid: number | undefined): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
    // utime and stime, in clock ticks (100 a second on Linux).
    return (Number(fields[11]) + Number(fields[12])) * 10
  } catch {
    return 0
  }
}

/** A process's resident memory (VmRSS) in MiB, from /proc; 0 once it is gone. */
function rssMiBOf(pid: number | undefined): number {
  try {
    const kib = Number(/^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0)
    return Math.round(kib / 1024)
  } catch {
    return 0
  }
}

/** How the load phase runs: its length, whether to wait for every message to be delivered after it, more settings. */
type LoadOptions = {
  seconds?: number | undefined
  /** A burst of this many requests, as fast as they are answered, instead of `seconds` of load. */
  amount?: number | undefined
  waitForDelivery?: boolean
  env?: Record<string, string>
}

async function loadPhase(
  work: string,
  log: (line: string) => void,
  checkout = root,
  label = 'load',
  options: LoadOptions = {},
) {
  const seconds = options.seconds ?? 15
  const dataDir = path.join(work, label.replace(/[^\w-]/g, '-'))
  const server = await startServer({ DATA_DIR: dataDir, DIST_DIR: path.join(work, 'dist'), ...options.env }, checkout)
  const acked: string[] = []
  try {
    // A burst comes to a server that is up: its delivery process (and the threads of its workers) done starting, so
    // that loading its code is not counted as the cost of the messages it sends.
    await untilIdle([server.proc.pid])
    const length = options.amount === undefined ? `for ${seconds} s` : `, ${options.amount} requests`
    log(`${label}: 50 connections ${length}${checkout === root ? '' : ` on ${checkout}`} …`)
    // CPU used during the load by the server and by its delivery process (when it has one): less moved by the
    // machine's other load than the rates are.
    const children = childrenOf(server.proc.pid!)
    const cpuBefore = [cpuMsOf(server.proc.pid), ...children.map(cpuMsOf)]
    const result = await autocannon({
      url: server.url,
      connections: 50,
      ...(options.amount === undefined ? { duration: seconds } : { amount: options.amount }),
      timeout: 10,
      requests: [registrations(acked, 20)],
    })
    const cpuAfter = [cpuMsOf(server.proc.pid), ...children.map(cpuMsOf)]
    const rssMiB = rssMiBOf(server.proc.pid)
    // Requests still in flight when autocannon stops are answered (unheard) a moment later.
    await sleep(1000)
    const stored = await storedIds(dataDir)
    const check = compare(acked, stored)
    const sentDuringLoad = (await outboxCounts(dataDir)).sent
    // What /healthz says of the mail then: how many wait and how long the oldest has.
    const health = (await (await fetch(`${server.url}/healthz`)).json()) as {
      outbox?: { pending: number; oldestPendingSeconds: number }
    }
    // Every message queued (each lead's notification and reply) delivered: none pending, none failed.
    const drainStart = Date.now()
    const drainCpuBefore = children.reduce((sum, pid) => sum + cpuMsOf(pid), 0)
    // This process's CPU meanwhile: the SMTP server's, when the phase runs one here (autocannon is done by then).
    const benchCpuBefore = ownCpuMs()
    // The polls' own CPU (a count over the whole outbox each time) is left out of the SMTP server's.
    let pollCpuMs = 0
    const drained = await until(async () => {
      if (options.waitForDelivery === false) return true
      const pollStart = ownCpuMs()
      const counts = await outboxCounts(dataDir)
      pollCpuMs += ownCpuMs() - pollStart
      return counts.pending === 0 && counts.failed === 0
    }, 180_000)
    const drainSeconds = (Date.now() - drainStart) / 1000
    const drainCpuMs = children.reduce((sum, pid) => sum + cpuMsOf(pid), 0) - drainCpuBefore
    const benchCpuMs = ownCpuMs() - benchCpuBefore - pollCpuMs
    const counts = await outboxCounts(dataDir)
    const figures = {
      'load.requestsPerSecond': Math.round(result.requests.average),
      'load.latencyP50Ms': result.latency.p50,
      'load.latencyP99Ms': result.latency.p99,
      'load.requests': result.requests.total,
      'load.acknowledged': acked.length,
      'load.acknowledgedUnique': check.uniqueAcked,
      'load.stored': stored.length,
      'load.storedUnanswered': stored.length - check.uniqueAcked + check.missing,
      'load.acknowledgedButMissing': check.missing,
      'load.storedTwice': check.duplicates,
      'load.non2xx': result.non2xx,
      'load.errors': result.errors + result.timeouts,
      'load.serverCpuMsPerRequest': Number(((cpuAfter[0]! - cpuBefore[0]!) / result.requests.total).toFixed(2)),
      'load.deliveryProcessCpuMsPerRequest': Number(
        (cpuAfter.slice(1).reduce((a, b, i) => a + b - cpuBefore[i + 1]!, 0) / result.requests.total).toFixed(2),
      ),
      'load.messagesSentDuringLoad': sentDuringLoad,
      'load.healthzPendingAfterLoad': health.outbox?.pending ?? 'none',
      'load.healthzOldestPendingSecondsAfterLoad': health.outbox?.oldestPendingSeconds ?? 'none',
      'load.messagesSent': counts.sent,
      'load.messagesNotSent': counts.pending + counts.failed + counts.cancelled,
      'load.messagesWritten': emlCount(dataDir),
      // CPU the delivery process spent on each message sent after the load: what its rate is on a core of its own,
      // whatever else the machine runs (the drain's seconds move with the machine's load).
      'load.deliveryCpuMsPerMessageAfterLoad':
        counts.sent > sentDuringLoad ? Number((drainCpuMs / (counts.sent - sentDuringLoad)).toFixed(3)) : 0,
      ...(options.env?.SMTP_URL
        ? {
            'load.smtpServerCpuMsPerMessageAfterLoad':
              counts.sent > sentDuringLoad ? Number((benchCpuMs / (counts.sent - sentDuringLoad)).toFixed(3)) : 0,
          }
        : {}),
      // The drain's rate, to read beside the SMTP ceiling's (smtp.ceilingMessagesPerSecond).
      'load.deliveryMessagesPerSecondAfterLoad':
        drainSeconds > 0 ? Math.round((counts.sent - sentDuringLoad) / drainSeconds) : 0,
      'load.deliveryDoneSecondsAfterLoad': drained
        ? Number(drainSeconds.toFixed(1))
        : `not done after ${drainSeconds.toFixed(0)} s`,
      'load.serverRssMiBAfterLoad': rssMiB,
    }
    return Object.fromEntries(
      Object.entries(figures).map(([key, value]) => [key.replace(/^load\./, () => `${label}.`), value]),
    )
  } finally {
    await server.stop('SIGTERM')
  }
}

async function outagePhase(work: string, log: (line: string) => void) {
  const dataDir = path.join(work, 'outage')
  const smtpPort = await freePort()
  const server = await startServer({
    DATA_DIR: dataDir,
    DIST_DIR: path.join(work, 'dist'),
    SMTP_URL: `smtp://127.0.0.1:${smtpPort}`,
    PUBLIC_URL: 'http://127.0.0.1',
    MAIL_FROM: 'Bench <no-reply@example.com>',
    MAIL_RETRY_MIN_SECONDS: '1',
    MAIL_RETRY_MAX_SECONDS: '2',
    // Retries every 1–2 s would reach the default attempt limit within the outage; the real schedule takes hours.
    MAIL_MAX_ATTEMPTS: '100',
  })
  const received = new Map<string, number>()
  let smtp: SmtpSink | undefined
  try {
    log(`outage: 500 registrations with SMTP down (nothing on port ${smtpPort}) …`)
    const acked: string[] = []
    const result = await autocannon({
      url: server.url,
      connections: 10,
      amount: 500,
      timeout: 10,
      requests: [registrations(acked)],
    })
    const stored = await storedIds(dataDir)
    const check = compare(acked, stored)
    await sleep(2500)
    const deliveredWhileDown = received.size

    log('outage: SMTP back …')
    smtp = await startSmtpSink(smtpPort, (messages) => {
      // The team's notification only (the registrant's reply is another kind): `<submissionId>.notification`.
      for (const { key } of messages) {
        if (!key.endsWith('.notification')) continue
        const id = key.slice(0, -'.notification'.length)
        received.set(id, (received.get(id) ?? 0) + 1)
      }
    })
    const backAt = Date.now()
    const allArrived = await until(() => stored.every((id) => received.has(id)), 60_000)
    const recoverySeconds = (Date.now() - backAt) / 1000
    await sleep(3000)
    return {
      'outage.acknowledged': acked.length,
      'outage.non2xx': result.non2xx,
      'outage.stored': stored.length,
      'outage.acknowledgedButMissing': check.missing,
      'outage.deliveredWhileDown': deliveredWhileDown,
      'outage.delivered': stored.filter((id) => received.has(id)).length,
      'outage.deliveredTwice': [...received.values()].filter((n) => n > 1).length,
      'outage.secondsToDeliverAll': allArrived
        ? Number(recoverySeconds.toFixed(1))
        : `not done after ${recoverySeconds.toFixed(0)} s`,
    }
  } finally {
    await server.stop('SIGTERM')
    await smtp?.close()
  }
}

async function sigkillPhase(work: string, log: (line: string) => void) {
  const dataDir = path.join(work, 'sigkill')
  const env = { DATA_DIR: dataDir, DIST_DIR: path.join(work, 'dist') }
  const server = await startServer(env)
  const acked: string[] = []
  log('sigkill: 50 connections, SIGKILL after 3 s …')
  const load = autocannon({
    url: server.url,
    connections: 50,
    duration: 6,
    timeout: 2,
    requests: [registrations(acked)],
  })
  await sleep(3000)
  const pid = server.proc.pid
  await server.stop('SIGKILL')
  const ackedAtKill = acked.length
  await load

  log('sigkill: restarting on the same DATA_DIR …')
  const again = await startServer(env)
  try {
    const stored = await storedIds(dataDir)
    const check = compare(acked, stored)
    const answers = await fetch(`${again.url}${contactFunctionPath}`, {
      method: 'POST',
      headers: { apikey: localAnonKey, 'content-type': 'application/json' },
      body: body(crypto.randomUUID()),
    })
    const notified = await until(() => emlCount(dataDir) >= stored.length + 1, 120_000)
    return {
      'sigkill.killedPid': pid ?? 0,
      'sigkill.acknowledgedBeforeKill': ackedAtKill,
      'sigkill.storedAfterRestart': stored.length,
      'sigkill.storedUnanswered': stored.length - check.uniqueAcked + check.missing,
      'sigkill.acknowledgedButMissing': check.missing,
      'sigkill.storedTwice': check.duplicates,
      'sigkill.restartMs': again.startMs,
      'sigkill.answersAfterRestart': answers.status,
      'sigkill.allNotificationsWritten': notified ? 'yes' : `no (${emlCount(dataDir)} of ${stored.length + 1})`,
    }
  } finally {
    await again.stop('SIGTERM')
  }
}

/** The processes whose parent is `pid` (from /proc, as ps reads it): the server's delivery process. */
function childrenOf(pid: number): number[] {
  return readdirSync('/proc').flatMap((entry) => {
    if (!/^\d+$/.test(entry)) return []
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
      return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid ? [Number(entry)] : []
    } catch {
      return []
    }
  })
}

/**
 * SIGKILL of the delivery process alone, mid-delivery over SMTP: every message of every acknowledged registration
 * arrives (counted by distinct Message-ID), and the copies sent twice are at most the messages claimed and not yet
 * marked when it died (read from the database right after the kill, before its successor frees them).
 */
async function deliveryKillPhase(work: string, log: (line: string) => void) {
  const dataDir = path.join(work, 'delivery-kill')
  const smtpPort = await freePort()
  const received: string[] = []
  // The killed delivery process breaks its SMTP connection, which the SMTP server emits as an error: counted, not
  // thrown (unheard, it ended a bench run at 5fbd455's successor).
  let broken = 0
  const smtp = await startSmtpSink(
    smtpPort,
    (messages) => received.push(...messages.map((message) => message.messageId)),
    () => broken++,
  )
  const server = await startServer({
    DATA_DIR: dataDir,
    DIST_DIR: path.join(work, 'dist'),
    SMTP_URL: `smtp://127.0.0.1:${smtpPort}`,
    PUBLIC_URL: 'http://127.0.0.1',
    MAIL_FROM: 'Bench <no-reply@example.com>',
  })
  try {
    log('delivery kill: 2,000 registrations, SIGKILL of the delivery process mid-delivery …')
    const acked: string[] = []
    await autocannon({ url: server.url, connections: 10, amount: 2000, timeout: 10, requests: [registrations(acked)] })
    const expected = new Set(acked.flatMap((id) => [`<${id}.notification@`, `<${id}.reply@`]))
    await until(() => received.length >= 400, 60_000)
    const [child] = childrenOf(server.proc.pid!)
    if (child === undefined) return { 'deliveryKill.error': 'no delivery process found' }
    process.kill(child, 'SIGKILL')
    const db = new Database(path.join(dataDir, 'leads.sqlite'), { readonly: true })
    const inFlight = (
      db.prepare("SELECT count(*) AS n FROM outbox WHERE status = 'pending' AND locked_until IS NOT NULL").get() as {
        n: number
      }
    ).n
    db.close()
    const deliveredAtKill = received.length
    const distinct = () => new Set(received.filter((id) => expected.has(id.slice(0, id.indexOf('@') + 1)))).size
    const all = await until(() => distinct() >= expected.size, 180_000)
    await sleep(1000)
    const [successor] = childrenOf(server.proc.pid!)
    return {
      'deliveryKill.acknowledged': acked.length,
      'deliveryKill.messagesExpected': expected.size,
      'deliveryKill.deliveredAtKill': deliveredAtKill,
      'deliveryKill.inFlightAtMost': inFlight,
      'deliveryKill.notDelivered': expected.size - distinct(),
      'deliveryKill.repeated': received.length - new Set(received).size,
      'deliveryKill.restarted': successor !== undefined && successor !== child ? 'yes' : 'no',
      'deliveryKill.allDelivered': all ? 'yes' : 'no',
      'deliveryKill.brokenConnections': broken,
    }
  } finally {
    await server.stop('SIGTERM')
    await smtp.close()
  }
}

/**
 * The load of 1. with SMTP up: SMTP_URL names a real SMTP server on 127.0.0.1 (smtp-server, on a thread of this
 * process: bench/smtp-sink.ts) instead
 * of the .eml files a server without SMTP_URL writes. Every message must arrive: distinct Message-IDs received.
 */
async function smtpLoadPhase(work: string, log: (line: string) => void, options: SmtpLoadOptions = {}) {
  const ids = new Set<string>()
  let received = 0
  // Messages received in each second since the phase began: the highest is what a provider's send-rate cap sees.
  const perSecond = new Map<number, number>()
  const began = Date.now()
  const port = await freePort()
  let counting = true
  const smtp = await startSmtpSink(port, (messages) => {
    if (!counting) return
    for (const { messageId, at } of messages) {
      received += 1
      const second = Math.floor((at - began) / 1000)
      perSecond.set(second, (perSecond.get(second) ?? 0) + 1)
      ids.add(messageId)
    }
  })
  const env: Record<string, string> = {
    SMTP_URL: `smtp://127.0.0.1:${port}`,
    MAIL_FROM: 'Bench <no-reply@example.com>',
    PUBLIC_URL: 'http://127.0.0.1',
  }
  if (options.ratePerSecond !== undefined) env.MAIL_RATE_PER_SECOND = String(options.ratePerSecond)
  if (options.workers !== undefined) env.MAIL_WORKERS = String(options.workers)
  try {
    const figures = await loadPhase(work, log, options.checkout ?? root, 'smtp', {
      seconds: options.seconds,
      amount: options.registrations,
      env,
    })
    const found = {
      ...figures,
      'smtp.messagesReceived': received,
      'smtp.messagesReceivedDistinct': ids.size,
      'smtp.mostReceivedInOneSecond': Math.max(0, ...perSecond.values()),
    }
    // Beside the drain, this machine's ceiling in the same run: the same SMTP server taking pre-composed messages
    // over as many pipelined connections as the delivery has in all (bench/smtp-ceiling.ts).
    counting = false
    log(`smtp: the ceiling, ${ceilingMessages} pre-composed messages over ${defaultConcurrency} connections …`)
    const ceiling = await measureSmtpCeiling(port, defaultConcurrency, ceilingMessages)
    return {
      ...found,
      'smtp.ceilingMessagesPerSecond': ceiling.messagesPerSecond,
      'smtp.ceilingSenderCpuMsPerMessage': ceiling.senderCpuMsPerMessage,
      'smtp.ceilingSmtpServerCpuMsPerMessage': ceiling.receiverCpuMsPerMessage,
    }
  } finally {
    await smtp.close()
  }
}

/** How many messages the SMTP ceiling sends: a few seconds' worth. */
const ceilingMessages = 6_000

/** The SMTP load's length (default 15 s) and the MAIL_RATE_PER_SECOND its server is given (default none). */
/** The checkout whose server runs it (--old DIR): this one unless given. */
type SmtpLoadOptions = {
  seconds?: number | undefined
  /** A burst of this many registrations instead of `seconds` of load: the same queue for checkouts compared. */
  registrations?: number | undefined
  ratePerSecond?: number | undefined
  /** MAIL_WORKERS for the server (its default unless given). */
  workers?: number | undefined
  checkout?: string | undefined
}

/** The load of 1. with the CRM webhook on, to a receiver on 127.0.0.1 that checks every call's signature. */
async function webhookPhase(work: string, log: (line: string) => void) {
  const secret = 'bench-webhook-secret-0123456789'
  const receiver = await startTestReceiver(secret)
  try {
    const figures = await loadPhase(work, log, root, 'webhook', {
      env: { WEBHOOK_URL: receiver.url, WEBHOOK_SECRET: secret },
    })
    const ids = new Set(receiver.calls.map((call) => String(call.headers['webhook-id'])))
    return {
      ...figures,
      'webhook.callsReceived': receiver.calls.length,
      'webhook.callsDistinct': ids.size,
      'webhook.callsBadlySigned': receiver.calls.filter((call) => !call.signed).length,
    }
  } finally {
    await receiver.stop()
  }
}

/** What the PostgreSQL phase (postgres-servers.ts) borrows from this file. */
function postgresDeps(work: string): PostgresPhaseDeps {
  return {
    startServer: (env) => startServer(env),
    load: (url, connections, seconds, acked) =>
      autocannon({ url, connections, duration: seconds, timeout: 10, requests: [registrations(acked)] }),
    distDir: path.join(work, 'dist'),
  }
}

/** Runs the phases and returns the figures (flat keys, numbers or short text), `backend.verdict` first. */
export async function runBackendBench(
  options: {
    log?: (line: string) => void
    old?: string[]
    loadOnly?: boolean
    rounds?: number
    postgresSeconds?: number
  } = {},
): Promise<Record<string, number | string>> {
  const log = options.log ?? ((line: string) => console.error(line))
  const work = mkdtempSync(path.join(tmpdir(), 'vip-bench-'))
  writeDist(path.join(work, 'dist'), [defaultSlugOf(root)])
  try {
    log('floor: a plain INSERT+fsync loop for 5 s …')
    const insertRate = insertFsyncRate(5)
    const old: Record<string, number | string> = {}
    // --rounds N: the checkouts' loads (10 s each, no wait for delivery) taken in turns N times, then the full load.
    for (let round = 1; round <= (options.rounds ?? 0); round++) {
      for (const dir of [...(options.old ?? []), root]) {
        const name = dir === root ? 'this' : path.basename(dir)
        Object.assign(
          old,
          await loadPhase(work, log, path.resolve(dir), `round${round}:${name}`, {
            seconds: 10,
            waitForDelivery: false,
          }),
        )
      }
    }
    if (!options.rounds)
      for (const dir of options.old ?? [])
        Object.assign(old, await loadPhase(work, log, path.resolve(dir), `old:${path.basename(dir)}`))
    const figures: Record<string, number | string> = {
      'floor.insertFsyncPerSecond': insertRate,
      ...(await emptyHandlerPhase(log)),
      ...old,
      ...(await loadPhase(work, log)),
      ...(await smtpLoadPhase(work, log)),
    }
    if (!options.loadOnly) {
      Object.assign(
        figures,
        // A phase that cannot run is reported as such; the other phases' figures still count.
        await launchesPhase(work, log).catch((error: unknown) => ({
          'launches.error': (error as Error).message.split('\n')[0] ?? 'failed',
        })),
        await launchesPhase(work, log, 20).catch((error: unknown) => ({
          'launches20.error': (error as Error).message.split('\n')[0] ?? 'failed',
        })),
        await webhookPhase(work, log),
        // The same load on PostgreSQL (DATABASE_URL), one server and then two on one database, beside SQLite's `load.`.
        await postgresServersPhase(work, log, postgresDeps(work), options.postgresSeconds).catch((error: unknown) => ({
          'postgres.error': (error as Error).message.split('\n')[0] ?? 'failed',
        })),
        await outagePhase(work, log),
        await sigkillPhase(work, log),
        await deliveryKillPhase(work, log),
      )
    }
    figures['load.vsInsertFsyncLoop'] =
      `${Math.round((Number(figures['load.requestsPerSecond']) / insertRate) * 100)} %`
    figures['load.vsEmptyHandler'] =
      `${Math.round((Number(figures['load.requestsPerSecond']) / Number(figures['floor.emptyHandlerPerSecond'])) * 100)} %`
    for (const prefix of ['postgres1', 'postgres2']) {
      if (typeof figures[`${prefix}.requestsPerSecond`] !== 'number') continue
      figures[`${prefix}.throughputVsSqlite`] =
        `${Math.round((Number(figures[`${prefix}.requestsPerSecond`]) / Number(figures['load.requestsPerSecond'])) * 100)} %`
    }
    for (const prefix of ['launches', 'launches20', 'webhook']) {
      if (typeof figures[`${prefix}.requestsPerSecond`] !== 'number') continue
      figures[`${prefix}.throughputVsOneLaunch`] =
        `${Math.round((Number(figures[`${prefix}.requestsPerSecond`]) / Number(figures['load.requestsPerSecond'])) * 100)} %`
    }
    const others = options.loadOnly
      ? []
      : [
          figures['outage.non2xx'] !== 0 && 'registrations failed while SMTP was down',
          figures['outage.acknowledgedButMissing'] !== 0 && 'leads missing after the SMTP outage',
          figures['outage.delivered'] !== figures['outage.stored'] && 'notifications missing after SMTP returned',
          figures['outage.deliveredTwice'] !== 0 && 'a notification delivered twice',
          figures['sigkill.acknowledgedButMissing'] !== 0 && 'acknowledged leads missing after SIGKILL',
          figures['launches.error'] !== undefined && `the three-launch phase failed (${figures['launches.error']})`,
          ...(figures['launches.error'] === undefined
            ? [
                figures['launches.acknowledgedButMissing'] !== 0 && 'acknowledged leads missing with three launches',
                figures['launches.storedUnderAnotherLaunch'] !== 0 && 'a lead stored under another launch',
                figures['launches.non2xx'] !== 0 && 'registrations refused with three launches',
              ]
            : []),
          figures['launches20.error'] !== undefined &&
            `the twenty-launch phase failed (${figures['launches20.error']})`,
          ...(figures['launches20.error'] === undefined
            ? [
                figures['launches20.acknowledgedButMissing'] !== 0 && 'acknowledged leads missing with twenty launches',
                figures['launches20.storedUnderAnotherLaunch'] !== 0 &&
                  'a lead stored under another launch (twenty launches)',
                figures['launches20.non2xx'] !== 0 && 'registrations refused with twenty launches',
              ]
            : []),
          figures['webhook.acknowledgedButMissing'] !== 0 && 'acknowledged leads missing with the webhook on',
          figures['postgres.error'] !== undefined && `the PostgreSQL phase failed (${figures['postgres.error']})`,
          ...(['postgres1', 'postgres2'] as const).flatMap((prefix) =>
            figures['postgres.error'] !== undefined
              ? []
              : [
                  figures[`${prefix}.acknowledgedButMissing`] !== 0 &&
                    `acknowledged leads missing on PostgreSQL (${prefix.slice(-1)} server(s))`,
                  figures[`${prefix}.storedTwice`] !== 0 &&
                    `a lead stored twice on PostgreSQL (${prefix.slice(-1)} server(s))`,
                  figures[`${prefix}.non2xx`] !== 0 &&
                    `registrations refused on PostgreSQL (${prefix.slice(-1)} server(s))`,
                ],
          ),
          figures['webhook.non2xx'] !== 0 && 'registrations refused with the webhook on',
          typeof figures['webhook.deliveryDoneSecondsAfterLoad'] !== 'number' &&
            'messages not all delivered with the webhook on',
          figures['webhook.callsBadlySigned'] !== 0 && 'a webhook call badly signed',
          Number(figures['webhook.callsDistinct']) < Number(figures['webhook.stored']) && 'webhook calls missing',
          figures['sigkill.allNotificationsWritten'] !== 'yes' && 'notifications missing after SIGKILL',
          figures['deliveryKill.notDelivered'] !== 0 && 'messages missing after SIGKILL of the delivery process',
          Number(figures['deliveryKill.repeated']) > Number(figures['deliveryKill.inFlightAtMost']) &&
            'more messages repeated than were in flight',
          figures['deliveryKill.restarted'] !== 'yes' &&
            `the delivery process was not started again${figures['deliveryKill.error'] ? ` (${figures['deliveryKill.error']})` : ''}`,
        ]
    const failures = [
      figures['load.acknowledgedButMissing'] !== 0 && 'acknowledged leads missing after load',
      figures['load.storedTwice'] !== 0 && 'a lead stored twice under load',
      // Stored but never acknowledged is allowed only for requests cut off when the run ended (≤ 1 per connection).
      Number(figures['load.storedUnanswered']) > 50 &&
        'more leads stored than acknowledged, beyond those cut off at the end',
      figures['load.non2xx'] !== 0 && 'registrations refused under load',
      typeof figures['load.deliveryDoneSecondsAfterLoad'] !== 'number' && 'messages not all delivered after load',
      figures['load.messagesNotSent'] !== 0 && 'messages left pending or failed after load',
      figures['smtp.acknowledgedButMissing'] !== 0 && 'acknowledged leads missing under load with SMTP',
      figures['smtp.non2xx'] !== 0 && 'registrations refused under load with SMTP',
      typeof figures['smtp.deliveryDoneSecondsAfterLoad'] !== 'number' &&
        'messages not all delivered over SMTP after load',
      figures['smtp.messagesReceivedDistinct'] !== figures['smtp.messagesSent'] &&
        'messages sent over SMTP and not received',
      ...others,
    ].filter(Boolean)
    return { 'backend.verdict': failures.length === 0 ? 'pass' : `FAIL: ${failures.join('; ')}`, ...figures }
  } finally {
    rmSync(work, { recursive: true, force: true })
  }
}

/** The load with SMTP up alone (`--smtp-only`): every message received once, and when the last one left. */
async function runSmtpOnly(options: SmtpLoadOptions): Promise<Record<string, number | string>> {
  const work = mkdtempSync(path.join(tmpdir(), 'vip-bench-'))
  writeDist(path.join(work, 'dist'), [defaultSlugOf(root)])
  try {
    const found: Record<string, number | string> = await smtpLoadPhase(work, (line) => console.error(line), options)
    const bad = [
      found['smtp.acknowledgedButMissing'] !== 0 && 'acknowledged leads missing',
      typeof found['smtp.deliveryDoneSecondsAfterLoad'] !== 'number' && 'messages not all delivered',
      found['smtp.messagesReceivedDistinct'] !== found['smtp.messagesSent'] && 'messages sent and not received',
      found['smtp.messagesReceived'] !== found['smtp.messagesReceivedDistinct'] && 'messages received twice',
      options.ratePerSecond !== undefined &&
        Number(found['smtp.mostReceivedInOneSecond']) > options.ratePerSecond &&
        'more messages in one second than MAIL_RATE_PER_SECOND',
    ].filter(Boolean)
    return { 'backend.verdict': bad.length === 0 ? 'pass' : `FAIL: ${bad.join('; ')}`, ...found }
  } finally {
    rmSync(work, { recursive: true, force: true })
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  // --old DIR (repeatable): another checkout's load first; --load-only: the floors and the loads, no other phase;
  // --postgres-only [--seconds N] [--with-sqlite]: the PostgreSQL phase alone (one and two servers), N seconds each,
  // after the SQLite load (1., N seconds, not waiting for delivery) with --with-sqlite, each beside SQLite's rate;
  // --smtp-only [--seconds N | --registrations N] [--mail-rate R] [--mail-workers W] [--old DIR]: the load with SMTP
  // up (1b.) alone (N seconds, or a burst of N registrations: the same queue whatever the machine's load), its server
  // given MAIL_RATE_PER_SECOND=R and MAIL_WORKERS=W (on DIR's checkout instead of this one with --old).
  const { values } = parseArgs({
    options: {
      old: { type: 'string', multiple: true },
      'load-only': { type: 'boolean' },
      rounds: { type: 'string' },
      'postgres-only': { type: 'boolean' },
      'with-sqlite': { type: 'boolean' },
      'smtp-only': { type: 'boolean' },
      seconds: { type: 'string' },
      registrations: { type: 'string' },
      'mail-rate': { type: 'string' },
      'mail-workers': { type: 'string' },
    },
  })
  let figures: Record<string, number | string>
  if (values['smtp-only']) {
    figures = await runSmtpOnly({
      seconds: values.seconds === undefined ? undefined : Number(values.seconds),
      registrations: values.registrations === undefined ? undefined : Number(values.registrations),
      ratePerSecond: values['mail-rate'] === undefined ? undefined : Number(values['mail-rate']),
      workers: values['mail-workers'] === undefined ? undefined : Number(values['mail-workers']),
      checkout: values.old?.[0] === undefined ? undefined : path.resolve(values.old[0]),
    })
  } else if (values['postgres-only']) {
    const work = mkdtempSync(path.join(tmpdir(), 'vip-bench-'))
    writeDist(path.join(work, 'dist'), [defaultSlugOf(root)])
    try {
      const seconds = Number(values.seconds ?? 15)
      const log = (line: string) => console.error(line)
      const sqlite = values['with-sqlite']
        ? await loadPhase(work, log, root, 'load', { seconds, waitForDelivery: false })
        : {}
      const found: Record<string, number | string> = {
        ...sqlite,
        ...(await postgresServersPhase(work, log, postgresDeps(work), seconds)),
      }
      for (const prefix of ['postgres1', 'postgres2'])
        if (
          typeof sqlite['load.requestsPerSecond'] === 'number' &&
          typeof found[`${prefix}.requestsPerSecond`] === 'number'
        )
          found[`${prefix}.throughputVsSqlite`] =
            `${Math.round((Number(found[`${prefix}.requestsPerSecond`]) / sqlite['load.requestsPerSecond']) * 100)} %`
      const bad = Object.entries(found).filter(
        ([key, value]) => /acknowledgedButMissing|storedTwice|non2xx$/.test(key) && value !== 0,
      )
      figures = {
        'backend.verdict': bad.length === 0 ? 'pass' : `FAIL: ${bad.map(([key]) => key).join(', ')}`,
        ...found,
      }
    } finally {
      rmSync(work, { recursive: true, force: true })
    }
  } else {
    figures = await runBackendBench({
      old: values.old,
      loadOnly: values['load-only'],
      rounds: Number(values.rounds ?? 0),
    })
  }
  const width = Math.max(...Object.keys(figures).map((k) => k.length))
  for (const [key, value] of Object.entries(figures)) console.log(`${key.padEnd(width)}  ${value}`)
  process.exitCode = figures['backend.verdict'] === 'pass' ? 0 : 1
}
