import { Readable } from 'node:stream'
import nodemailer from 'nodemailer'
import type Mail from 'nodemailer/lib/mailer'
import type MailMessage from 'nodemailer/lib/mailer/mail-message'
import { composeRawMessage, type RawMessage } from './raw-message.ts'
import { extraHeaders, fromHeader, headerSafe, recipientOf, singleAddress, type Mailer } from '../mailer.ts'
import type { OutgoingMail } from '../../store/store.ts'

/** The nodemailer message for a stored notification: the same headers whichever transport carries it. */
export function toNodemailerMessage(mail: OutgoingMail, from: string) {
  return {
    from: fromHeader(from, mail.fromName),
    to: recipientOf(mail.to),
    replyTo: singleAddress(mail.replyTo),
    subject: headerSafe(mail.subject),
    text: mail.text,
    html: mail.html,
    messageId: headerSafe(mail.messageId),
    headers: { ...extraHeaders(mail), 'X-Idempotency-Key': headerSafe(mail.idempotencyKey) },
    // Never let nodemailer read files or URLs named in the message: content is ours, but keep it inert.
    disableFileAccess: true,
    disableUrlAccess: true,
  }
}

/**
 * Sends a composed message through the transport's pool, its bytes as they are: the pool's own send, which sendMail
 * ends in. sendMail({ raw }) would first wrap the bytes in a new MimeNode, whose stream pipes them through three
 * transform streams more; the pool reads only the message's envelope, its Message-ID and its stream.
 */
export function sendComposed(transport: Mail, message: RawMessage): Promise<void> {
  const { node, raw } = message
  node.createReadStream = () => Readable.from([raw], { objectMode: false })
  const mail = { data: {}, message: node } as unknown as MailMessage
  return new Promise((resolve, reject) => {
    transport.transporter.send(mail, (error) => (error ? reject(error) : resolve()))
  })
}

/** Options for SMTP delivery. */
export type SmtpMailerOptions = {
  /** smtp://user:pass@host:587 (STARTTLS when offered) or smtps://user:pass@host:465. */
  url: string
  /** The From address, e.g. "Site <no-reply@example.com>". */
  from: string
  /** Connections in the pool (MAIL_CONCURRENCY: one for each of the outbox's parallel sends). Default 4. */
  maxConnections?: number
}

/**
 * Sends messages through an SMTP server, over a pool of connections, each pipelining its commands when the server
 * offers PIPELINING. A 5xx reply rejects with nodemailer's error carrying `responseCode`, which the outbox takes as a
 * permanent refusal, a 421/451 as a request to slow down (delivery-error.ts).
 */
export function createSmtpMailer(options: SmtpMailerOptions): Mailer {
  const url = new URL(options.url)
  const transport = nodemailer.createTransport({
    host: url.hostname,
    port: url.port ? Number(url.port) : url.protocol === 'smtps:' ? 465 : 587,
    secure: url.protocol === 'smtps:',
    auth: url.username ? { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) } : undefined,
    pool: true,
    maxConnections: Math.max(1, options.maxConnections ?? 4),
    // A pooled connection stays open for any number of messages (nodemailer's default closes it after 100): a
    // reconnect costs a new greeting, which many servers delay on purpose.
    maxMessages: Infinity,
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 30_000,
  })
  return {
    async send(mail) {
      // Composed whole first, in one pass (raw-message.ts: nodemailer's MailComposer and its encoders, the bytes its
      // streams would make), then handed to the pool as they are. Streamed part by part instead, composing took half
      // the CPU of a send, and the message left in dozens of small socket writes.
      await sendComposed(transport, await composeRawMessage(toNodemailerMessage(mail, options.from)))
    },
    close() {
      transport.close()
      return Promise.resolve()
    },
  }
}
