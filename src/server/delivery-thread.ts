import { parentPort, workerData } from 'node:worker_threads'
import {
  createDeliveryWorker,
  createLaunchBook,
  lowerPriority,
  openDeliveryStore,
  type FromThread,
  type ThreadStart,
  type ToThread,
} from './delivery-worker.ts'

// A thread of the delivery process (delivery-process.ts starts one for each outbox worker after the first, with
// MAIL_WORKERS above 1): one worker with its own store connection and SMTP pool, told by the process when to deliver,
// which launches there are, and when to stop. It never releases claims: the process did that before it started.

const port = parentPort!
const { start, index } = workerData as ThreadStart
const tell = (message: FromThread) => port.postMessage(message)

lowerPriority()
const { store } = openDeliveryStore(start)
const book = createLaunchBook(start.compose)
const { worker, mailer } = createDeliveryWorker(start, store, book, index, (job, reason) =>
  tell({ type: 'failed', job, reason }),
)

let stopping: Promise<void> | undefined
async function stop(): Promise<void> {
  await worker.stop()
  await mailer.close?.()
  await store.close()
  tell({ type: 'stopped' })
  port.close()
}

port.on('message', (message: ToThread) => {
  if (message.type === 'kick') worker.kick()
  else if (message.type === 'launches') book.take(message.launches)
  else if (message.type === 'burst') worker.yieldToBurst(message.on)
  else if (message.type === 'stop') void (stopping ??= stop())
})
worker.start(start.pollMs)
tell({ type: 'ready' })
