import { html } from 'hono/html'
import type { HtmlEscapedString } from 'hono/utils/html'
import { backlogInWords, waitedSeconds } from '../delivery/backlog-words.ts'
import type { LeadStore } from '../store/store.ts'

/**
 * The dashboard's word on the e-mail (the team's notifications, the replies, announcements): how many messages wait
 * to be sent and how long the oldest has waited, and how many could not be sent. The whole server's outbox, counts
 * only: no launch, no person.
 */
export type DeliveryHealth = { pending: number; oldestSeconds: number; failed: number }

// Beyond this the mail is behind: the page says so, and who can do something about it.
const behindSeconds = 10 * 60

/** Reads the outbox's counts for the dashboard. */
export async function readDeliveryHealth(
  store: Pick<LeadStore, 'countBacklog' | 'countMessages'>,
  now: Date,
): Promise<DeliveryHealth> {
  const [backlog, counts] = await Promise.all([store.countBacklog(), store.countMessages()])
  return { pending: backlog.pending, oldestSeconds: waitedSeconds(backlog, now), failed: counts.failed }
}

/** The dashboard's "E-mail" section: a notice when mail is behind or failed, a plain line otherwise. */
export function deliveryHealthSection(health: DeliveryHealth): HtmlEscapedString | Promise<HtmlEscapedString> {
  const behind = health.pending > 0 && health.oldestSeconds >= behindSeconds
  const waiting = backlogInWords(health.pending, health.oldestSeconds)
  const failed =
    health.failed === 0
      ? ''
      : `${health.failed.toLocaleString('en-CA')} ${health.failed === 1 ? 'message' : 'messages'} could not be sent and ${health.failed === 1 ? 'waits' : 'wait'} for someone to look at ${health.failed === 1 ? 'it' : 'them'}: a lead's page says which of its e-mails failed.`
  const advice = behind
    ? 'That is longer than usual: the e-mail is falling behind. Tell whoever looks after the server.'
    : health.pending > 0
      ? 'E-mail usually goes within a minute of a registration.'
      : 'Every e-mail has gone out.'
  const notice = behind || health.failed > 0
  return html`<section class="lp-section" aria-labelledby="mail-heading">
<h2 id="mail-heading">E-mail</h2>
<p id="mail-health" class="${notice ? 'lp-notice lp-notice-error' : 'lp-note'}">${waiting} ${advice}${failed ? html` ${failed}` : ''}</p>
</section>`
}
