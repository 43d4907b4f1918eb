import nodemailer from 'nodemailer'
import MailComposer from 'nodemailer/lib/mail-composer'
import { extraHeaders, fromHeader, headerSafe, recipientOf, singleAddress, type Mailer } from './mailer.ts'
import type { OutgoingMail } from '../store/store.ts'

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
      // Composed whole first (nodemailer's own MailComposer: the same headers and body the transport would stream),
      // then sent as raw bytes with the envelope it would use. Streamed part by part instead, the message left in
      // dozens of small socket writes, each a system call here and a read at the server: about half the CPU of a send.
      const message = new MailComposer(toNodemailerMessage(mail, options.from)).compile()
      const envelope = message.getEnvelope()
      await transport.sendMail({ raw: await message.build(), envelope })
    },
    close() {
      transport.close()
      return Promise.resolve()
    },
  }
}
