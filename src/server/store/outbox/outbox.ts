// The outbox's part of the store contract (store.ts): claiming due messages, recording how each attempt went, and the
// counts the leads page, the retry command and the health check read. The messages themselves are ../messages.ts.
// Implemented side by side here: sqlite-outbox.ts, postgres-outbox.ts.
import type { MessageCounts, MessageQuery, MessageState, OutboxJob } from '../messages.ts'

/** Counts of the outbox by state (health checks, tests, bench). */
export type OutboxCounts = { pending: number; sent: number }

/** How far behind the mail is: messages waiting to be sent, and when the oldest of them was queued (null: none). */
export type OutboxBacklog = { pending: number; oldestPendingAt: Date | null }

/** The outbox's part of a LeadStore. */
export interface OutboxStore {
  /**
   * Claims up to `limit` pending notifications that are due at `now` and not claimed by someone else, and marks
   * them claimed until `now + leaseMs` (a worker that dies mid-send releases them that way).
   */
  claimDueMail(now: Date, limit: number, leaseMs: number): Promise<OutboxJob[]>
  /** Marks notifications delivered. */
  markMailSent(ids: number[], now: Date): Promise<void>
  /** Records a failed attempt and when to try again. */
  markMailFailed(id: number, error: string, nextAttemptAt: Date): Promise<void>
  /**
   * Puts claimed messages off until `nextAttemptAt` and frees their claims, without counting an attempt: the receiver
   * asked to slow down. `error`, when given, is kept as their last error.
   */
  postponeMail(ids: number[], nextAttemptAt: Date, error?: string): Promise<void>
  /** Records a last failed attempt: the message is `failed` (refused for good, or out of attempts) until retried. */
  markMessageFailed(id: number, error: string, now: Date): Promise<void>
  /** Ends a message unsent because its registrant withdrew. */
  markMessageCancelled(id: number, now: Date): Promise<void>
  /** Puts every `failed` message back to `pending`, due now, with a fresh count of attempts; returns how many. */
  retryFailedMessages(now: Date): Promise<number>
  /** Messages by state, kind and lead (no content): what the leads page and the retry command show. */
  listMessages(query: MessageQuery): Promise<MessageState[]>
  /** How many messages are in each state. */
  countMessages(): Promise<MessageCounts>
  /** How many messages wait to be sent and since when the oldest has (an index keeps it quick on a large outbox). */
  countBacklog(): Promise<OutboxBacklog>
  /** How many notifications are pending and sent. */
  countMail(): Promise<OutboxCounts>
}
