import { spawn } from 'node:child_process'
import { createRequire } from 'node:module'
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { parseArgs } from 'node:util'
import nodemailer from 'nodemailer'
import { newLead, notificationFor, readPageConfig } from '../tests/server/support/fixtures.ts'
import { composeRawMessage, type RawMessage } from '../src/server/delivery/mailers/raw-message.ts'
import { sendComposed, toNodemailerMessage } from '../src/server/delivery/mailers/smtp-mailer.ts'
import { ownCpuMs } from './process-cpu.ts'

/*
 * This machine's SMTP ceiling, the floor the bench's mail figures stand beside: how fast an SMTP server on 127.0.0.1
 * accepts messages that are already composed (RFC 822 bytes, built before the clock starts), sent as the SMTP mailer
 * sends them (sendComposed: nodemailer's pool of pipelined connections) from a process of their own, `connections` at
 * a time. Nothing is composed, claimed or marked: what is left is the SMTP client and the server, the drain's upper
 * bound on this machine at its load. The sender's and the server's CPU per message are given too (the server is the
 * caller's, in its process: measured there).
 */

/** What one ceiling run measured. */
export type SmtpCeiling = {
  messagesPerSecond: number
  /** CPU of the sending process per message (nodemailer's pool and SMTP client alone). */
  senderCpuMsPerMessage: number
  /** CPU of the calling process (the SMTP server, when it runs nothing else then) per message. */
  receiverCpuMsPerMessage: number
}

const here = fileURLToPath(import.meta.url)

/**
 * Sends `messages` pre-composed messages to the SMTP server on 127.0.0.1:`port` (in this process) from a child process,
 * over `connections` pooled connections, and reports the rate and each side's CPU per message.
 */
export async function measureSmtpCeiling(port: number, connections: number, messages: number): Promise<SmtpCeiling> {
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href
  const child = spawn(
    process.execPath,
    [
      '--import',
      tsx,
      here,
      '--port',
      String(port),
      '--connections',
      String(connections),
      '--messages',
      String(messages),
    ],
    { stdio: ['ignore', 'pipe', 'inherit'], cwd: path.resolve(path.dirname(here), '..') },
  )
  let out = ''
  let receiverBefore = 0
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString()
    // The child says when its messages are built and its clock starts: the receiver's CPU counts from then.
    if (out.includes('sending\n') && receiverBefore === 0) receiverBefore = ownCpuMs()
  })
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve))
  const receiverMs = ownCpuMs() - receiverBefore
  const result = /^result (\{.*\})$/m.exec(out)?.[1]
  if (code !== 0 || !result) throw new Error(`the SMTP ceiling's sender failed (exit ${code}):\n${out.slice(-2000)}`)
  const sent = JSON.parse(result) as { seconds: number; cpuMs: number }
  return {
    messagesPerSecond: Math.round(messages / sent.seconds),
    senderCpuMsPerMessage: Number((sent.cpuMs / messages).toFixed(3)),
    receiverCpuMsPerMessage: Number((receiverMs / messages).toFixed(3)),
  }
}

/** The child: builds the messages (the team's notification of a lead, as the server composes it), then sends them. */
async function sendPrebuilt(port: number, connections: number, messages: number): Promise<void> {
  const page = readPageConfig()
  const from = 'Bench <no-reply@example.com>'
  const raws: RawMessage[] = []
  for (let i = 0; i < messages; i++) {
    const lead = newLead({ fields: { name: `Visitor ${i}`, email: `visitor${i}@example.com`, phone: '555-555-0100' } })
    raws.push(await composeRawMessage(toNodemailerMessage(notificationFor(lead, page), from)))
  }
  const transport = nodemailer.createTransport({
    host: '127.0.0.1',
    port,
    secure: false,
    pool: true,
    maxConnections: connections,
    maxMessages: Infinity,
  })
  process.stdout.write('sending\n')
  const cpuBefore = ownCpuMs()
  const started = performance.now()
  let next = 0
  // `connections` sends in flight at once, as the outbox keeps MAIL_CONCURRENCY of them.
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (next < raws.length) await sendComposed(transport, raws[next++]!)
    }),
  )
  const seconds = (performance.now() - started) / 1000
  const cpuMs = ownCpuMs() - cpuBefore
  transport.close()
  process.stdout.write(`result ${JSON.stringify({ seconds, cpuMs })}\n`)
}

if (process.argv[1] && path.resolve(process.argv[1]) === here) {
  const { values } = parseArgs({
    options: { port: { type: 'string' }, connections: { type: 'string' }, messages: { type: 'string' } },
  })
  await sendPrebuilt(Number(values.port), Number(values.connections ?? 8), Number(values.messages ?? 5000))
}
