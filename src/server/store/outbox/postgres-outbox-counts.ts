// The outbox's lists and counts on PostgreSQL (outbox.ts: OutboxStore), and the retry of failed messages.
import type { SqlQueryable } from '../sql-queryable.ts'
import type { MessageCounts, MessageStatus } from '../messages.ts'
import { messageColumns, toMessageState, type MessageRow } from '../postgres/postgres-rows.ts'
import type { OutboxCounts, OutboxStore } from './outbox.ts'

/** The outbox's lists, counts and retry on a PostgreSQL lead database. */
export function createPostgresOutboxCounts(
  db: SqlQueryable,
): Pick<OutboxStore, 'retryFailedMessages' | 'listMessages' | 'countMessages' | 'countBacklog' | 'countMail'> {
  const countByStatus = async () =>
    (await db.query(`SELECT status, count(*)::int AS n FROM public.outbox GROUP BY status`)).rows as Array<{
      status: string
      n: number
    }>
  return {
    async retryFailedMessages(now) {
      const { rows } = await db.query(
        `WITH retried AS (
           UPDATE public.outbox SET status = 'pending', attempts = 0, next_attempt_at = $1, failed_at = NULL, locked_until = NULL
           WHERE status = 'failed' RETURNING 1
         ) SELECT count(*)::int AS n FROM retried`,
        [now.toISOString()],
      )
      return (rows[0] as { n: number }).n
    },
    async listMessages(query) {
      const { rows } = await db.query(
        `SELECT ${messageColumns} FROM public.outbox
         WHERE id > $1 AND ($2::bigint IS NULL OR lead_id = $2) AND ($3::text IS NULL OR status = $3)
         ORDER BY id LIMIT $4`,
        [query.afterId ?? 0, query.leadId ?? null, query.status ?? null, query.limit],
      )
      return (rows as MessageRow[]).map(toMessageState)
    },
    async countMessages() {
      const out: MessageCounts = { pending: 0, sent: 0, failed: 0, cancelled: 0 }
      for (const row of await countByStatus()) if (row.status in out) out[row.status as MessageStatus] = row.n
      return out
    },
    async countBacklog() {
      // Both from the partial index outbox_pending_since (migration 20260128000000_outbox_backlog.sql).
      const { rows } = await db.query(
        `SELECT count(*)::int AS n, min(created_at) AS oldest FROM public.outbox WHERE status = 'pending'`,
      )
      const row = rows[0] as { n: number; oldest: Date | string | null }
      return { pending: row.n, oldestPendingAt: row.oldest === null ? null : new Date(row.oldest) }
    },
    async countMail() {
      const out: OutboxCounts = { pending: 0, sent: 0 }
      for (const row of await countByStatus()) {
        if (row.status === 'pending' || row.status === 'sent') out[row.status] = row.n
      }
      return out
    },
  }
}
