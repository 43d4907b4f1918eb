import { headerSafe, recipientOf, singleAddress, type Mailer } from './mailer.ts'

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
 * open SMTP ports. The notification's idempotency key goes in Idempotency-Key, so a retried send is not doubled.
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
          from: options.from,
          to: [recipientOf(mail.to)],
          subject: headerSafe(mail.subject),
          text: mail.text,
          html: mail.html,
          ...(replyTo ? { reply_to: replyTo } : {}),
          headers: { 'Message-ID': headerSafe(mail.messageId) },
        }),
        signal: AbortSignal.timeout(options.timeoutMs ?? 10_000),
      })
      if (!response.ok) {
        const detail = (await response.text().catch(() => '')).slice(0, 300)
        throw new Error(`Resend answered ${response.status}${detail ? `: ${detail}` : ''}`)
      }
      await response.body?.cancel().catch(() => {})
    },
  }
}
