import { fork, type ChildProcess } from 'node:child_process'
import { createRequire } from 'node:module'
import { fileURLToPath, pathToFileURL } from 'node:url'
import type { MailSending, RetryPolicy } from './delivery/outbox.ts'
import type { OutboxJob } from './store/store.ts'
import type { FunctionLaunch } from '../../schema/function-launch.ts'
import { watchBursts } from './delivery/sending/burst-watch.ts'

/**
 * The delivery process of the Node server: its outbox worker runs in a child process (delivery-process.ts), so
 * sending, claiming and marking never delay an answer on the request thread. The server starts it, kicks it when a
 * lead is stored, restarts it when it dies, and stops it last on close. Both share DATA_DIR's SQLite database (WAL,
 * a busy timeout); the child holds DATA_DIR/delivery.lock, so a successor never sends beside one still finishing.
 * On PostgreSQL (DATABASE_URL) every server's delivery process claims from the one outbox with leases instead.
 */

/** What the delivery process needs to know, sent to it on start (secrets travel over the IPC pipe, not in env). */
export type DeliveryStart = {
  dataDir: string
  /**
   * PostgreSQL instead of DATA_DIR's SQLite: claims are leased (SKIP LOCKED), so other servers' processes deliver
   * beside it.
   */
  databaseUrl?: string | undefined
  defaultLaunch: string
  mail: { kind: 'smtp'; url: string; from: string } | { kind: 'eml'; from: string }
  webhook: { url: string; secret: string } | undefined
  retry: RetryPolicy
  webhookDelaysMs: number[]
  /** The send-rate cap and the sends at once (this process's own: each delivery process paces itself). */
  sending: MailSending
  /**
   * Outbox workers in the process (MAIL_WORKERS; unset: 2, or 1 on a single core): the first on its main thread, each
   * other on a thread of its own, all sharing `sending` (each a share of the sends at once and of the rate).
   */
  workers?: number | undefined
  /** How often it looks for retries that came due, besides the kicks. */
  pollMs: number
  /**
   * What it composes the queued notifications and replies from (compose-later.ts); the launches follow each publish.
   */
  compose: DeliveryComposing
}

/** The launches served now, each with where its unsubscribe and document links point. */
export type DeliveryLaunches = Array<{ contract: FunctionLaunch; linkBase: string }>

/** How the delivery process composes a lead's e-mails: like the function that stored it (the server's settings). */
export type DeliveryComposing = {
  launches: DeliveryLaunches
  timeZone: string
  notifyEmail: string | undefined
  unsubscribeSecret: string
  /** The suppression list's secret: the outbox checks every message's address against the list as it goes. */
  suppressionSecret?: string | undefined
}

/** A message that reached the failed state, as the delivery process tells the server (for the owners' alert). */
export type FailedMessage = Pick<OutboxJob, 'id' | 'kind' | 'leadId' | 'attempts'>

/** Server → delivery process. */
export type ToDelivery =
  | { type: 'start'; start: DeliveryStart }
  | { type: 'launches'; launches: DeliveryLaunches }
  | { type: 'kick' }
  /** A burst of registrations began (on) or ended: a batch each 5 s meanwhile (delivery/sending/burst-watch.ts). */
  | { type: 'burst'; on: boolean }
  | { type: 'stop' }
/** Delivery process → server. */
export type FromDelivery =
  { type: 'listening' } | { type: 'ready' } | { type: 'failed'; job: FailedMessage; reason: string }

/** The running delivery process, as the server holds it. */
export type DeliverySupervisor = {
  /** Starts the process (once). */
  start(): void
  /** Something was queued: deliver soon. Kicks within one turn of the event loop are sent as one. */
  kick(): void
  /** A registration was stored: a kick, and counted, so that in a burst of them the delivery yields to the answers. */
  leadStored(): void
  /**
   * The launches served now (after a publish): sent before any later kick, and to every process started from now on.
   */
  setLaunches(launches: DeliveryLaunches): void
  /** The current process id, if one runs. */
  pid(): number | undefined
  /** Resolves when a delivery process has started and reported ready. */
  ready(): Promise<void>
  /** Stops it after the batch in hand (killed after `graceMs`) and does not restart it. */
  stop(graceMs?: number): Promise<void>
}

export type SuperviseOptions = {
  start: DeliveryStart
  onFailed(job: FailedMessage, reason: string): void
  log?: { info(message: string): void; error(message: string): void }
  /**
   * First restart delay after an unexpected end; doubles up to 30 s, back to this once it ran a minute. Default 1 s.
   */
  restartMs?: number
}

const childFile = fileURLToPath(new URL('./delivery-process.ts', import.meta.url))

/**
 * The child's Node flags: the TypeScript loader this process runs under (tsx), or tsx's own when it has none (tests).
 */
function loaderArgs(): string[] {
  if (process.execArgv.some((arg) => arg.includes('tsx'))) return process.execArgv
  return ['--import', pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href]
}

/**
 * The delays before each restart: `first`, doubling up to 30 s, and `first` again after a process that ran a minute.
 */
function restartBackoff(first: number): (ranMs: number) => number {
  let delay = first
  return (ranMs) => {
    if (ranMs > 60_000) delay = first
    const now = delay
    delay = Math.min(30_000, delay * 2)
    return now
  }
}

/** A new delivery process, its output the server's, its messages over IPC. */
function forkDeliveryProcess(): ChildProcess {
  return fork(childFile, [], {
    execArgv: loaderArgs(),
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    serialization: 'json',
  })
}

/** Asks the process to stop after the batch in hand, and kills it if it has not ended after `graceMs`. */
async function stopProcess(proc: ChildProcess, graceMs: number): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()))
  if (proc.connected) proc.send({ type: 'stop' } satisfies ToDelivery)
  else proc.kill('SIGTERM')
  const cut = setTimeout(() => proc.kill('SIGKILL'), graceMs)
  await exited
  clearTimeout(cut)
}

/** Starts and supervises the delivery process. */
export function superviseDelivery(options: SuperviseOptions): DeliverySupervisor {
  let start = options.start
  const log = options.log ?? { info: (m: string) => console.log(m), error: (m: string) => console.error(m) }
  const nextDelay = restartBackoff(options.restartMs ?? 1_000)
  let child: ChildProcess | undefined
  let stopping = false
  let restartTimer: ReturnType<typeof setTimeout> | undefined
  let kickQueued = false
  let readyWaiters: Array<() => void> = []
  let isReady = false
  // Whether the process running now was sent its start (launches changed later are sent to it on their own).
  let startSent = false
  // To the process running now, once it is ready (before, it is sent its start, and the burst under way on ready).
  const tell = (message: ToDelivery) => child?.connected && isReady && child.send(message)
  const bursts = watchBursts((on) => tell({ type: 'burst', on }))
  // Kicks within one turn of the event loop are sent as one.
  const kick = () => {
    if (kickQueued) return
    kickQueued = true
    setImmediate(() => {
      kickQueued = false
      tell({ type: 'kick' })
    })
  }

  function spawnChild(): void {
    const startedAt = Date.now()
    const proc = forkDeliveryProcess()
    child = proc
    isReady = false
    startSent = false
    proc.on('message', (message: FromDelivery) => {
      // Sent once the child listens: a message sent before could reach it before its listener and be lost.
      if (message.type === 'listening') {
        proc.send({ type: 'start', start } satisfies ToDelivery)
        startSent = true
      } else if (message.type === 'ready') {
        isReady = true
        // A process started again during a burst yields to it too.
        if (bursts.on()) tell({ type: 'burst', on: true })
        for (const resolve of readyWaiters.splice(0)) resolve()
      } else if (message.type === 'failed') {
        options.onFailed(message.job, message.reason)
      }
    })
    // A send to a process that just died: its exit is handled below.
    proc.on('error', () => {})
    proc.once('exit', (code, signal) => {
      if (child === proc) child = undefined
      isReady = false
      if (stopping) return
      const delay = nextDelay(Date.now() - startedAt)
      log.error(
        `Delivery: the delivery process ended (${signal ?? `exit code ${code}`}); starting it again in ${delay / 1000} s. Queued messages wait in the outbox.`,
      )
      restartTimer = setTimeout(spawnChild, delay)
    })
  }

  return {
    start() {
      if (!child && !stopping && restartTimer === undefined) spawnChild()
    },
    kick,
    leadStored() {
      bursts.count()
      kick()
    },
    setLaunches(launches) {
      start = { ...start, compose: { ...start.compose, launches } }
      // One that has not been sent its start yet gets them with it.
      if (child?.connected && startSent) child.send({ type: 'launches', launches } satisfies ToDelivery)
    },
    pid: () => child?.pid,
    ready: () => (isReady ? Promise.resolve() : new Promise<void>((resolve) => readyWaiters.push(resolve))),
    async stop(graceMs = 15_000) {
      stopping = true
      clearTimeout(restartTimer)
      bursts.stop()
      if (child) await stopProcess(child, graceMs)
      readyWaiters = []
    },
  }
}
