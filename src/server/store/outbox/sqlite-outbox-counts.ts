// The outbox's lists and counts in SQLite (outbox.ts: OutboxStore), and the retry of failed messages.
import type { SqliteContext } from '../sqlite/sqlite-context.ts'
import { promised } from '../sqlite/sqlite-promised.ts'
import type { MessageCounts, MessageQuery, MessageStatus } from '../messages.ts'
import { toMessageState, type MessageRow } from '../sqlite/sqlite-rows.ts'
import type { OutboxCounts, OutboxStore } from './outbox.ts'

const messageColumns =
  'id, lead_id, kind, status, attempts, last_error, created_at, next_attempt_at, sent_at, failed_at'

/** The WHERE clause and parameters of a list of messages (after an id, of a lead, in a state). */
function messagesWhere(query: MessageQuery): { sql: string; params: unknown[] } {
  const where: string[] = ['id > ?']
  const params: unknown[] = [query.afterId ?? 0]
  if (query.leadId !== undefined) {
    where.push('lead_id = ?')
    params.push(query.leadId)
  }
  if (query.status !== undefined) {
    where.push('status = ?')
    params.push(query.status)
  }
  return { sql: where.join(' AND '), params }
}

type OutboxCountsPart = Pick<
  OutboxStore,
  'retryFailedMessages' | 'listMessages' | 'countMessages' | 'countBacklog' | 'countMail'
>

/** The outbox's lists, counts and retry on an open SQLite lead database. */
export function createSqliteOutboxCounts(ctx: SqliteContext): OutboxCountsPart {
  const { query } = ctx
  const countByStatus = () =>
    query<{ status: string; n: number }>('SELECT status, count(*) AS n FROM outbox GROUP BY status').all()
  return promised<OutboxCountsPart>({
    retryFailedMessages(now) {
      ctx.writable()
      return query(
        `UPDATE outbox SET status = 'pending', attempts = 0, next_attempt_at = ?, failed_at = NULL, locked_until = NULL
           WHERE status = 'failed'`,
      ).run(now.toISOString()).changes
    },
    listMessages(q) {
      const where = messagesWhere(q)
      return query<MessageRow>(`SELECT ${messageColumns} FROM outbox WHERE ${where.sql} ORDER BY id LIMIT ?`)
        .all(...where.params, q.limit)
        .map(toMessageState)
    },
    countMessages() {
      const out: MessageCounts = { pending: 0, sent: 0, failed: 0, cancelled: 0 }
      for (const row of countByStatus()) if (row.status in out) out[row.status as MessageStatus] = row.n
      return out
    },
    countBacklog() {
      // Both from the partial index outbox_pending_since (sqlite-rows.ts outboxBacklogIndex).
      const row = query<{ n: number; oldest: string | null }>(
        `SELECT count(*) AS n, min(created_at) AS oldest FROM outbox WHERE status = 'pending'`,
      ).get()
      return { pending: row?.n ?? 0, oldestPendingAt: row?.oldest ? new Date(row.oldest) : null }
    },
    countMail() {
      const out: OutboxCounts = { pending: 0, sent: 0 }
      for (const row of countByStatus()) {
        if (row.status === 'pending' || row.status === 'sent') out[row.status] = row.n
      }
      return out
    },
  })
}
