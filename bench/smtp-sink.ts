import { createRequire } from 'node:module'
import { Worker } from 'node:worker_threads'

/*
 * The benches' SMTP server: a real smtp-server on 127.0.0.1 that accepts every message and keeps nothing, on a thread
 * of its own. In the bench's own thread it shared one event loop with the load generator: a burst's hundred thousand
 * messages then delayed the load's requests and the clock that times them (about 0.17 ms of that thread a
 * registration, beside autocannon's 0.07).
 */

/** What the sink tells of each message it accepted: its Message-ID, its X-Idempotency-Key, when it arrived (ms). */
export type SunkMessage = { messageId: string; key: string; at: number }

export type SmtpSink = { port: number; close(): Promise<void> }

// Plain JavaScript run from source (eval): a thread does not inherit the TypeScript loader.
const workerSource = `
const { parentPort, workerData } = require('node:worker_threads')
const { SMTPServer } = require(workerData.smtpServer)
let batch = []
const flush = () => {
  if (batch.length > 0) parentPort.postMessage({ messages: batch })
  batch = []
}
const timer = setInterval(flush, 20)
const header = (head, name) => new RegExp('^' + name + ': (\\\\S+)', 'im').exec(head)?.[1] ?? ''
const smtp = new SMTPServer({
  authOptional: true,
  hideSTARTTLS: true,
  disableReverseLookup: true,
  logger: false,
  closeTimeout: 100,
  onData(stream, _session, callback) {
    let head = ''
    stream.on('data', (c) => {
      if (head.length < 4000) head += c.toString('latin1')
    })
    stream.on('end', () => {
      batch.push({ messageId: header(head, 'Message-ID'), key: header(head, 'X-Idempotency-Key'), at: Date.now() })
      callback()
    })
  },
})
// A connection dropped mid-message is emitted as an error: counted by the caller, never thrown.
smtp.on('error', () => parentPort.postMessage({ error: true }))
smtp.listen(workerData.port, '127.0.0.1', () => parentPort.postMessage({ listening: smtp.server.address().port }))
parentPort.on('message', () =>
  smtp.close(() => {
    flush()
    clearInterval(timer)
    parentPort.postMessage({ closed: true })
  }),
)
`

/**
 * Starts the sink on 127.0.0.1:`port` (0: a free one, the sink's `port`); `onMessages` hears the messages accepted (a
 * few at a time, 20 ms apart at most), `onError` each connection dropped mid-message.
 */
export async function startSmtpSink(
  port: number,
  onMessages: (messages: SunkMessage[]) => void,
  onError: () => void = () => undefined,
): Promise<SmtpSink> {
  const worker = new Worker(workerSource, {
    eval: true,
    workerData: { port, smtpServer: createRequire(import.meta.url).resolve('smtp-server') },
  })
  let closed: () => void = () => undefined
  const listening = await new Promise<number>((resolve, reject) => {
    worker.once('error', reject)
    worker.on('message', (message: { listening?: number; messages?: SunkMessage[]; error?: true; closed?: true }) => {
      if (message.listening !== undefined) resolve(message.listening)
      if (message.messages) onMessages(message.messages)
      if (message.error) onError()
      if (message.closed) closed()
    })
  })
  return {
    port: listening,
    async close() {
      const done = new Promise<void>((resolve) => (closed = resolve))
      worker.postMessage('close')
      await done
      await worker.terminate()
    },
  }
}
