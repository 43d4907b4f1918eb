import type { OutgoingMail } from './store.ts'

/**
 * Sends one composed notification. Resolves once the message is accepted (by the SMTP server, the mail API,
 * or written to disk); rejects otherwise, and the outbox tries again later. It may be called again for a
 * message it already sent (a crash between "sent" and "marked sent"): mailers pass the message's stable
 * id / idempotency key along so the copy can be recognised.
 */
export interface Mailer {
  send(mail: OutgoingMail): Promise<void>
  /** Closes pooled connections. */
  close?(): Promise<void>
}

/** Removes characters that must never reach a mail header (CR, LF and the other control characters). */
export function headerSafe(value: string): string {
  // eslint-disable-next-line no-control-regex
  return value.replace(/[\u0000-\u001f\u007f\u2028\u2029]+/g, ' ').trim()
}

// One plain address and nothing else: no display name, no list, no group syntax ("a@b.c Bcc: x@y.z").
const singleAddressPattern = /^[^\s@<>(),;:"\\[\]]+@[^\s@<>(),;:"\\[\]]+\.[^\s@<>(),;:"\\[\]]+$/

/** `value` if it is exactly one plain e-mail address, else undefined. Use it for To and Reply-To. */
export function singleAddress(value: string | undefined): string | undefined {
  const trimmed = value?.trim()
  return trimmed && singleAddressPattern.test(trimmed) ? trimmed : undefined
}

/** The recipient, or an error: a notification never goes to anything but one plain address. */
export function recipientOf(to: string): string {
  const address = singleAddress(to)
  if (!address) throw new Error(`The notification recipient is not one plain e-mail address: ${JSON.stringify(to.slice(0, 100))}`)
  return address
}
