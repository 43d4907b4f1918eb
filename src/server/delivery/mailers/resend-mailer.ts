import { DeliveryError, isPermanentHttpStatus, retryAfterMs } from '../delivery-error.ts'
import { extraHeaders, fromHeader, headerSafe, recipientOf, singleAddress, type Mailer } from '../mailer.ts'

/** Options for Resend. */
export type ResendMailerOptions = {
  apiKey: string
  /** The From address, on a domain verified in Resend, e.g. "Site <no-reply@example.com>". */
  from: string
  /** https://api.resend.com unless testing. */
  baseUrl?: string
  fetch?: typeof fetch
  /** Give up on one request after this long (the outbox retries). Default 10 s. */
  timeoutMs?: number
}

/**
 * Sends notifications through Resend's HTTP API with fetch: the mailer for Supabase Edge Functions, which cannot
 * open SMTP ports. The message's idempotency key goes in Idempotency-Key, so a retried send is not doubled. A 4xx
 * answer other than 408/429 (a bad key, a refused address) is a permanent refusal; 5xx and network errors are retried;
 * a 429 slows the whole outbox down for its Retry-After.
 */
export function createResendMailer(options: ResendMailerOptions): Mailer {
  const doFetch = options.fetch ?? fetch
  const endpoint = `${(options.baseUrl ?? 'https://api.resend.com').replace(/\/+$/, '')}/emails`
  return {
    async send(mail) {
      const replyTo = singleAddress(mail.replyTo)
      const response = await doFetch(endpoint, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${options.apiKey}`,
          'content-type': 'application/json',
          'idempotency-key': headerSafe(mail.idempotencyKey).slice(0, 256),
        },
        body: JSON.stringify({
          from: fromHeader(options.from, mail.fromName),
          to: [recipientOf(mail.to)],
          subject: headerSafe(mail.subject),
          text: mail.text,
          html: mail.html,
          ...(replyTo ? { reply_to: replyTo } : {}),
          headers: { ...extraHeaders(mail), 'Message-ID': headerSafe(mail.messageId) },
        }),
        signal: AbortSignal.timeout(options.timeoutMs ?? 10_000),
      })
      if (!response.ok) {
        const detail = (await response.text().catch(() => '')).slice(0, 300)
        // 429: Resend's rate limit (per team, 2 a second unless raised); its Retry-After says when to send again.
        const slowDown =
          response.status === 429 ? { afterMs: retryAfterMs(response.headers.get('retry-after')) } : undefined
        throw new DeliveryError(
          `Resend answered ${response.status}${detail ? `: ${detail}` : ''}`,
          isPermanentHttpStatus(response.status),
          slowDown,
        )
      }
      await response.body?.cancel().catch(() => {})
    },
  }
}
