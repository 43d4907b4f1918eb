// The outbox's deliveries in SQLite (outbox.ts: OutboxStore): claiming due messages, recording how each attempt went,
// and freeing the claims at start-up. Its lists and counts: sqlite-outbox-counts.ts.
import type { SqliteContext } from '../sqlite/sqlite-context.ts'
import { promised } from '../sqlite/sqlite-promised.ts'
import { emailKey, toJob, type JobRow } from '../sqlite/sqlite-rows.ts'
import type { OutboxStore } from './outbox.ts'

/** The outbox's claims and attempts, and the SQLite store's own release of every claim. */
export type SqliteOutbox = Pick<
  OutboxStore,
  'claimDueMail' | 'markMailSent' | 'markMailFailed' | 'postponeMail' | 'markMessageFailed' | 'markMessageCancelled'
> & {
  /** Frees every claim: call at start-up, when this process owns DATA_DIR and no other worker can hold one. */
  releaseAllClaims(): Promise<void>
}

/** The outbox's claims and attempts on an open SQLite lead database. */
export function createSqliteOutbox(ctx: SqliteContext): SqliteOutbox {
  const { db, query } = ctx
  const write = (sql: string) => {
    ctx.writable()
    return query(sql)
  }
  const markSent = db.transaction((ids: number[], now: string) => {
    const sent = write(
      `UPDATE outbox SET status = 'sent', sent_at = ?, attempts = attempts + 1, locked_until = NULL, last_error = NULL
           WHERE id = ?`,
    )
    for (const id of ids) sent.run(now, id)
  })
  const postpone = db.transaction((ids: number[], at: string, error: string | null) => {
    const put = write(
      `UPDATE outbox SET next_attempt_at = ?, locked_until = NULL, last_error = coalesce(?, last_error)
           WHERE id = ? AND status = 'pending'`,
    )
    for (const id of ids) put.run(at, error, id)
  })
  return promised<SqliteOutbox>({
    claimDueMail(now, limit, leaseMs) {
      const at = now.toISOString()
      const claim = write(
        `UPDATE outbox SET locked_until = ?
           WHERE id IN (SELECT id FROM outbox
                        WHERE status = 'pending' AND next_attempt_at <= ? AND (locked_until IS NULL OR locked_until <= ?)
                        ORDER BY next_attempt_at, id LIMIT ?)
           RETURNING id, lead_id, attempts, kind, mail,
             EXISTS (SELECT 1 FROM leads l JOIN leads w ON ${emailKey('w.fields')} = ${emailKey('l.fields')}
                     WHERE l.id = outbox.lead_id AND w.withdrawn_at IS NOT NULL) AS withdrawn`,
      )
      const rows = claim.all(new Date(now.getTime() + leaseMs).toISOString(), at, at, limit) as JobRow[]
      return rows.sort((a, b) => a.id - b.id).map(toJob)
    },
    markMailSent(ids, now) {
      if (ids.length > 0) markSent.immediate(ids, now.toISOString())
    },
    markMailFailed(id, error, nextAttemptAt) {
      write(
        `UPDATE outbox SET attempts = attempts + 1, last_error = ?, next_attempt_at = ?, locked_until = NULL WHERE id = ?`,
      ).run(error, nextAttemptAt.toISOString(), id)
    },
    postponeMail(ids, nextAttemptAt, error) {
      if (ids.length > 0) postpone.immediate(ids, nextAttemptAt.toISOString(), error ?? null)
    },
    markMessageFailed(id, error, now) {
      write(
        `UPDATE outbox SET status = 'failed', attempts = attempts + 1, last_error = ?, failed_at = ?, locked_until = NULL
           WHERE id = ? AND status = 'pending'`,
      ).run(error, now.toISOString(), id)
    },
    markMessageCancelled(id, now) {
      write(
        `UPDATE outbox SET status = 'cancelled', failed_at = ?, locked_until = NULL WHERE id = ? AND status = 'pending'`,
      ).run(now.toISOString(), id)
    },
    releaseAllClaims() {
      write(`UPDATE outbox SET locked_until = NULL WHERE status = 'pending' AND locked_until IS NOT NULL`).run()
    },
  })
}
