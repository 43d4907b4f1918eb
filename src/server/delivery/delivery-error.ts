/**
 * How a delivery went wrong, told apart the way the outbox needs: a temporary failure is retried with backoff, a
 * permanent refusal (SMTP 5xx, HTTP 4xx other than 408/429) ends the message as `failed` at once. Web-standard
 * only: the mailers and the webhook sender of both runtimes throw it.
 */

/**
 * A failed delivery; `permanent` means trying again the same way cannot succeed. `slowDown`: the receiver asked the
 * sender to slow down (HTTP 429), with how long to wait when it said (Retry-After).
 */
export class DeliveryError extends Error {
  override name = 'DeliveryError'
  constructor(
    message: string,
    readonly permanent: boolean,
    readonly slowDown?: { afterMs: number | undefined },
  ) {
    super(message)
  }
}

/**
 * A receiver's "slow down", or undefined: the whole sending rate backs off (sending/send-pace.ts), and the message is
 * put off without counting an attempt (the receiver's pace, not the message's fault). An SMTP 421 (service not
 * available: too many connections or messages) or 451 (local error, how providers say "rate limited"), or an HTTP 429
 * with its Retry-After. Another SMTP 4xx (a mailbox busy or full) is the message's own temporary failure: retried with
 * backoff and counted, so a message refused that way for days still ends as failed, and the rest go on.
 */
export function slowDownOf(error: unknown): { afterMs: number | undefined } | undefined {
  if (error instanceof DeliveryError) return error.slowDown
  const code = (error as { responseCode?: unknown } | null)?.responseCode
  return code === 421 || code === 451 ? { afterMs: undefined } : undefined
}

/**
 * Retry-After as milliseconds (RFC 9110 §10.2.3: seconds, or an HTTP date), at most an hour; undefined when absent or
 * unreadable.
 */
export function retryAfterMs(header: string | null, now = Date.now()): number | undefined {
  const value = header?.trim()
  if (!value) return undefined
  const ms = /^\d+$/.test(value) ? Number(value) * 1000 : Date.parse(value) - now
  return Number.isFinite(ms) ? Math.min(3_600_000, Math.max(0, ms)) : undefined
}

/** Whether an HTTP answer's status means "do not retry": every 4xx except 408 (timeout) and 429 (slow down). */
export function isPermanentHttpStatus(status: number): boolean {
  return status >= 400 && status < 500 && status !== 408 && status !== 429
}

/**
 * Whether an error from any sender is a permanent refusal: a DeliveryError says so itself; nodemailer's errors carry
 * the SMTP reply code (`responseCode`), and a 5xx reply is permanent (RFC 5321 §4.2.1). Anything else (a refused
 * connection, a timeout, a 4xx reply) is temporary.
 */
export function isPermanentFailure(error: unknown): boolean {
  if (error instanceof DeliveryError) return error.permanent
  const code = (error as { responseCode?: unknown } | null)?.responseCode
  return typeof code === 'number' && code >= 500 && code < 600
}

// Addresses and long digit runs (phone numbers) that receivers echo back in their error texts.
const addressPattern = /[^\s<>()"',;:]+@[^\s<>()"',;:]+/g
const phonePattern = /\+?\d[\d ()-]{6,}\d/g

/**
 * The last_error text of a failed delivery: the error's kind and message, with e-mail addresses and phone-like
 * numbers replaced, at most 300 characters. Receivers quote the rejected recipient ("550 <jane@…> unknown"); the
 * leads page and /healthz show this text, so it must not carry the person.
 */
export function describeDeliveryError(error: unknown): string {
  const plain = error instanceof DeliveryError || (error instanceof Error && error.name === 'Error')
  const raw = error instanceof Error ? `${plain ? '' : `${error.name}: `}${error.message}` : String(error)
  const code = (error as { responseCode?: unknown } | null)?.responseCode
  const prefixed = typeof code === 'number' && !raw.includes(String(code)) ? `SMTP ${code}: ${raw}` : raw
  const text = prefixed
    .replace(addressPattern, '<address>')
    .replace(phonePattern, '<number>')
    // eslint-disable-next-line no-control-regex -- the control characters are what this line removes
    .replace(/[\u0000-\u001f\u007f]+/g, ' ')
    .trim()
  return text.length > 300 ? `${text.slice(0, 297)}...` : text
}
