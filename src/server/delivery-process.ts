import { Worker } from 'node:worker_threads'
import { lockDelivery } from './store/data-dir-lock.ts'
import type { DeliveryComposing, DeliveryStart, FromDelivery, ToDelivery } from './delivery-supervisor.ts'
import {
  createDeliveryWorker,
  createLaunchBook,
  lowerPriority,
  openDeliveryStore,
  workersOf,
  type FromThread,
  type LaunchBook,
  type ThreadStart,
  type ToThread,
} from './delivery-worker.ts'

// The delivery process (started and supervised by delivery-supervisor.ts, never run by hand): the outbox workers of
// the server that forked it, on the same SQLite database (or the same PostgreSQL): one on its main thread and, with
// MAIL_WORKERS above 1, each other on a thread of its own (delivery-thread.ts). It ends when told to, and when its
// server is gone (the IPC pipe closes, even on a SIGKILL of the server) once the batches in hand are sent and marked;
// a SIGKILL ends every thread with it, so its successor may free every claim it left.

const tell = (message: FromDelivery) => process.send?.(message)
// Set once the workers run; until then a stop has nothing in hand and ends the process at once.
let running: { kick(): void; burst(on: boolean): void; stop(): Promise<void> } | undefined
// The launches the queued notifications and replies are composed from, as the server last sent them.
let book: LaunchBook | undefined
let latestLaunches: DeliveryComposing['launches'] | undefined
let threads: Worker[] = []

/** A worker's thread: tsx registered first in it (a thread does not inherit the process's TypeScript loader). */
function startThread(start: DeliveryStart, index: number): Worker {
  const loader = JSON.stringify(import.meta.resolve('tsx/esm/api'))
  const entry = JSON.stringify(new URL('./delivery-thread.ts', import.meta.url).href)
  // With the launches as the server last sent them: a publish may have come while the process was starting.
  const compose = { ...start.compose, launches: latestLaunches ?? start.compose.launches }
  const thread = new Worker(`import(${loader}).then((tsx) => { tsx.register(); return import(${entry}) })`, {
    eval: true,
    workerData: { start: { ...start, compose }, index } satisfies ThreadStart,
  })
  thread.on('message', (message: FromThread) => {
    if (message.type === 'failed') tell({ type: 'failed', job: message.job, reason: message.reason })
  })
  // A worker that fails ends the process: its supervisor starts it again, and its successor frees every claim.
  thread.on('error', (error) => {
    console.error(`Delivery: outbox worker ${index + 1} failed: ${error.message}`)
    process.exit(1)
  })
  return thread
}

/** Resolves when the thread says `type` (ready, stopped), or has ended. */
function heard(thread: Worker, type: FromThread['type']): Promise<void> {
  return new Promise((resolve) => {
    thread.on('message', (message: FromThread) => message.type === type && resolve())
    thread.once('exit', () => resolve())
  })
}

async function run(start: DeliveryStart): Promise<void> {
  const launches = createLaunchBook(start.compose)
  book = launches
  lowerPriority()
  // On SQLite this is the only delivery process of DATA_DIR (its successor waits for the lock): claims left by a killed
  // predecessor are free to take at once. On PostgreSQL several servers' delivery processes share the outbox: each
  // claim is leased (SKIP LOCKED), and a claim left by a killed process is taken again once its lease ends, never
  // before; so no DATA_DIR lock and no releasing of claims there.
  const lock = start.databaseUrl ? { release() {} } : await lockDelivery(start.dataDir)
  const { store, releaseAllClaims } = openDeliveryStore(start)
  await releaseAllClaims?.()
  const { worker, mailer } = createDeliveryWorker(start, store, launches, 0, (job, reason) =>
    tell({ type: 'failed', job, reason }),
  )
  threads = Array.from({ length: workersOf(start.sending, start.workers) - 1 }, (_, i) => startThread(start, i + 1))
  const toThreads = (message: ToThread) => threads.forEach((thread) => thread.postMessage(message))
  let stopping: Promise<void> | undefined
  const stop = () =>
    (stopping ??= (async () => {
      const stopped = threads.map((thread) => heard(thread, 'stopped'))
      toThreads({ type: 'stop' })
      await worker.stop()
      await Promise.all(stopped)
      await mailer.close?.()
      await store.close()
      lock.release()
      process.exit(0)
    })())
  running = {
    kick() {
      worker.kick()
      toThreads({ type: 'kick' })
    },
    burst(on) {
      worker.yieldToBurst(on)
      toThreads({ type: 'burst', on })
    },
    stop,
  }
  process.removeAllListeners('disconnect')
  process.on('disconnect', () => void stop())
  process.on('SIGTERM', () => void stop())
  // The first worker starts at once; the threads join as each is up (loading the code takes a thread a moment).
  worker.start(start.pollMs)
  const { concurrency, ratePerSecond } = start.sending
  const cap = ratePerSecond === undefined ? '' : `, at most ${ratePerSecond} a second`
  console.log(
    `Delivery: ${threads.length + 1} outbox worker${threads.length > 0 ? 's' : ''}, ${concurrency} sends at once in all${cap}.`,
  )
  tell({ type: 'ready' })
}

/** The server's launches after a publish: every worker composes from them. */
function takeLaunches(launches: DeliveryComposing['launches']): void {
  if (!book) return
  latestLaunches = launches
  book.take(launches)
  for (const thread of threads) thread.postMessage({ type: 'launches', launches } satisfies ToThread)
}

// Ctrl-C reaches the whole process group: the server decides when this process stops (after its own requests).
process.on('SIGINT', () => {})
process.on('disconnect', () => process.exit(0))
process.on('message', (message: ToDelivery) => {
  if (message.type === 'kick') running?.kick()
  else if (message.type === 'burst') running?.burst(message.on)
  else if (message.type === 'launches') takeLaunches(message.launches)
  else if (message.type === 'stop') void (running ? running.stop() : process.exit(0))
  else if (message.type === 'start' && !running) {
    run(message.start).catch((error: unknown) => {
      console.error(`Delivery: the delivery process could not start: ${(error as Error).message}`)
      process.exit(1)
    })
  }
})
tell({ type: 'listening' })
