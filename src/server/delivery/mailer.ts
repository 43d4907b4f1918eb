import { DeliveryError } from './delivery-error.ts'
import type { AddressKey, LeadStore, OutgoingMail } from '../store/store.ts'

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

/** The domain a Message-ID is made under: the address's, reduced to what a Message-ID may hold, else localhost. */
export function messageDomain(address: string): string {
  return address.split('@')[1]?.replace(/[^A-Za-z0-9.-]/g, '') || 'localhost'
}

/** The recipient, or a permanent DeliveryError: a message never goes to anything but one plain address. */
export function recipientOf(to: string): string {
  const address = singleAddress(to)
  if (!address)
    throw new DeliveryError(`The recipient is not one plain e-mail address: ${JSON.stringify(to.slice(0, 100))}`, true)
  return address
}

/**
 * Whether an address must not be written to (CASL): a lead of it withdrew, or it is on the suppression list (it
 * withdrew
 * and was erased). Without `keyOf` (no suppression secret) only the withdrawals are known.
 */
export async function isDoNotContact(
  store: Pick<LeadStore, 'isAddressWithdrawn' | 'isSuppressed'>,
  keyOf: ((email: string) => Promise<AddressKey>) | undefined,
  email: string,
): Promise<boolean> {
  if (await store.isAddressWithdrawn(email)) return true
  return keyOf !== undefined && (await store.isSuppressed(await keyOf(email)))
}

/** The address part of a From setting: "Name <a@b.c>" → "a@b.c"; "a@b.c" as it is. */
export function addressOf(from: string): string {
  return /<([^<>]+)>\s*$/.exec(from)?.[1]?.trim() ?? from.trim()
}

/**
 * The From header for a message: the mailer's own (MAIL_FROM) unless the message names its sender, then that name
 * with MAIL_FROM's address (the one the SMTP provider or Resend lets us send from). RFC 5322 quoted display name.
 */
export function fromHeader(mailerFrom: string, fromName: string | undefined): string {
  const name = fromName === undefined ? '' : headerSafe(fromName).replace(/["\\]/g, '')
  return name ? `"${name}" <${addressOf(mailerFrom)}>` : mailerFrom
}

/** A message's extra headers, names and values made header-safe; names that are not tokens are dropped. */
export function extraHeaders(mail: OutgoingMail): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(mail.headers ?? {}))
    if (/^[A-Za-z0-9-]+$/.test(name)) out[name] = headerSafe(value)
  return out
}
