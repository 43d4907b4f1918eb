import { spawn } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { createRequire } from 'node:module'
import { SMTPServer } from 'smtp-server'
import { contactFunctionPath } from '../schema/function-path.ts'
import { localAnonKey } from '../schema/local-defaults.ts'

/*
 * `npx tsx bench/cpu-profile.ts [--seconds 10] [--min 0.02] [--smtp]`: where the Node server's CPU goes per
 * registration. Serves the built dist/ (npm run build) under V8's sampling profiler (`node --cpu-prof`: the request
 * thread, the SQLite writer thread and the delivery process each write a profile), sends registrations from 50
 * connections, stops the server, and prints each step's CPU per registration (self time: a step's own code, not what
 * it calls), every one of at least `--min` ms, grouped: the project's functions by file and name, a package's by its
 * name, Node's own by area. Figures for docs/performance.md, measured on this machine at its load; not a test.
 * `--smtp`: the mail goes over SMTP (SMTP_URL: an smtp-server sink in this process on 127.0.0.1) instead of to .eml
 * files, the profile runs until the sink has had nothing for 2 s (at most 3 minutes), and each process's CPU is given
 * per message received as well; the sink's own CPU per message (this process's, once the load is over) too.
 */

const { values } = parseArgs({
  options: { seconds: { type: 'string', default: '10' }, min: { type: 'string' }, smtp: { type: 'boolean' } },
})
const seconds = Number(values.seconds) || 10
const minimum = Number(values.min ?? '0.02')

/** The SMTP sink of `--smtp`: accepts every message, keeps none, counts them. */
async function startSink(): Promise<{ port: number; received(): number; lastAt(): number; stop(): Promise<void> }> {
  let received = 0
  let lastAt = Date.now()
  const smtp = new SMTPServer({
    authOptional: true,
    hideSTARTTLS: true,
    disableReverseLookup: true,
    logger: false,
    closeTimeout: 100,
    onData(stream, _session, callback) {
      stream.on('data', () => {})
      stream.on('end', () => {
        received += 1
        lastAt = Date.now()
        callback()
      })
    },
  })
  smtp.on('error', () => {})
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve))
  const address = smtp.server.address()
  return {
    port: typeof address === 'object' && address ? address.port : 0,
    received: () => received,
    lastAt: () => lastAt,
    stop: () => new Promise<void>((resolve) => smtp.close(() => resolve())),
  }
}

const cpuMs = () => {
  const { user, system } = process.cpuUsage()
  return (user + system) / 1000
}

type Request = { method: string; path: string; headers: Record<string, string>; body?: string }
type Autocannon = (options: {
  url: string
  connections: number
  duration: number
  requests: Array<Request & { setupRequest(request: Request): Request }>
}) => Promise<{ requests: { total: number } }>
// autocannon ships no types; the little of its API used here. Fewer than 1,000 requests a connection (the server's
// maxRequestsPerSocket) need none of the care bench/backend.ts takes of a closed connection.
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon

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
  if (modules) return `package ${modules[1]}`
  if (url.startsWith('node:')) return `Node: ${url.slice(5).split('/').slice(0, 2).join('/')}`
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

async function main(): Promise<void> {
  const work = mkdtempSync(path.join(tmpdir(), 'vip-cpu-profile-'))
  const profiles = path.join(work, 'profiles')
  const sink = values.smtp ? await startSink() : undefined
  const mailEnv = sink
    ? {
        SMTP_URL: `smtp://127.0.0.1:${sink.port}`,
        MAIL_FROM: 'Bench <no-reply@example.com>',
        PUBLIC_URL: 'http://127.0.0.1',
      }
    : {}
  const proc = spawn(
    process.execPath,
    ['--cpu-prof', `--cpu-prof-dir=${profiles}`, '--import', 'tsx', 'src/cli/serve.ts'],
    {
      env: {
        ...process.env,
        HOST: '127.0.0.1',
        PORT: '0',
        RATE_LIMIT_PER_MINUTE: '0',
        DATA_DIR: path.join(work, 'data'),
        ...mailEnv,
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  )
  let output = ''
  const url = await new Promise<string>((resolve, reject) => {
    proc.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString()
      const listening = /Listening on (http:\/\/\S+)/.exec(output)
      if (listening) resolve(listening[1]!.replace(/\/$/, ''))
    })
    proc.once('exit', () => reject(new Error(`the server stopped:\n${output}`)))
  })
  let n = 0
  const from = nowMicros()
  const result = await autocannon({
    url,
    connections: 50,
    duration: seconds,
    requests: [
      {
        method: 'POST',
        path: contactFunctionPath,
        headers: { apikey: localAnonKey, authorization: `Bearer ${localAnonKey}`, 'content-type': 'application/json' },
        setupRequest: (request: Request) => ({ ...request, body: registration((n += 1)) }),
      },
    ],
  })
  // The delivery process goes on sending after the load: its next seconds count too (over SMTP, until it is done).
  const sinkCpuBefore = cpuMs()
  const receivedBefore = sink?.received() ?? 0
  const drainEnd = Date.now() + 180_000
  do await new Promise((resolve) => setTimeout(resolve, sink ? 500 : 3_000))
  while (sink && Date.now() - sink.lastAt() < 2_000 && Date.now() < drainEnd)
  const load = { from, to: nowMicros() }
  const sinkMs = cpuMs() - sinkCpuBefore
  const stopped = new Promise((resolve) => proc.once('exit', resolve))
  proc.kill('SIGTERM')
  await stopped
  // The delivery process finishes writing its profile as it exits, after the server.
  await new Promise((resolve) => setTimeout(resolve, 2_000))
  const messages = sink?.received() ?? 0
  if (sink) {
    await sink.stop()
    const after = messages - receivedBefore
    console.log(
      `${messages} messages received, ${after} after the load: the sink's CPU ${(sinkMs / after).toFixed(3)} ms each`,
    )
  }
  report(profiles, result.requests.total, load, messages)
  rmSync(work, { recursive: true, force: true })
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

/** Prints each profile's total and its steps of at least `minimum` ms per registration (and per message, if any). */
function report(dir: string, requests: number, load: Window, messages: number): void {
  console.log(`${requests} registrations in ${seconds} s (${Math.round(requests / seconds)}/s)`)
  const files = readdirSync(dir).sort()
  // CPU.<date>.<time>.<pid>.<thread>.<n>.cpuprofile: the server's process started first, its delivery process after.
  const pids = [...new Set(files.map((file) => file.split('.')[3]))]
  for (const file of files) {
    const [, , , pid, thread] = file.split('.')
    const who = `${pid === pids[0] ? 'the server' : 'the delivery process'}, ${thread === '0' ? 'main thread' : `thread ${thread}`}`
    const times = selfTimes(JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as Profile, load)
    const total = [...times.values()].reduce((a, b) => a + b, 0)
    const perMessage = messages > 0 ? `, ${(total / messages).toFixed(3)} ms per message` : ''
    console.log(`\n${who}: ${(total / requests).toFixed(3)} ms CPU per registration${perMessage}`)
    for (const [step, ms] of [...times].sort((a, b) => b[1] - a[1])) {
      const per = ms / requests
      if (per < minimum) break
      const each = messages > 0 ? `  ${(ms / messages).toFixed(3)} ms/message` : ''
      console.log(`  ${per.toFixed(3)} ms${each}  ${step}`)
    }
  }
}

await main()
