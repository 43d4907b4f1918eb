// The outbox's deliveries on PostgreSQL (outbox.ts: OutboxStore): claiming due messages and recording how each attempt
// went. Its lists and counts: postgres-outbox-counts.ts.
import type { SqlQueryable } from '../sql-queryable.ts'
import { emailKey, toJob, type JobRow } from '../postgres/postgres-rows.ts'
import type { OutboxStore } from './outbox.ts'

/** The outbox's claims and attempts on a PostgreSQL lead database. */
export function createPostgresOutbox(
  db: SqlQueryable,
): Pick<
  OutboxStore,
  'claimDueMail' | 'markMailSent' | 'markMailFailed' | 'postponeMail' | 'markMessageFailed' | 'markMessageCancelled'
> {
  return {
    async claimDueMail(now, limit, leaseMs) {
      // SKIP LOCKED and the lease let several function instances (and the scheduled retry) share the outbox.
      const { rows } = await db.query(
        `UPDATE public.outbox SET locked_until = $2
         WHERE id IN (SELECT id FROM public.outbox
                      WHERE status = 'pending' AND next_attempt_at <= $1 AND (locked_until IS NULL OR locked_until <= $1)
                      ORDER BY next_attempt_at, id LIMIT $3
                      FOR UPDATE SKIP LOCKED)
         RETURNING id, lead_id, attempts, kind, mail,
           EXISTS (SELECT 1 FROM public.leads l JOIN public.leads w ON ${emailKey('w')} = ${emailKey('l')}
                   WHERE l.id = outbox.lead_id AND w.withdrawn_at IS NOT NULL) AS withdrawn`,
        [now.toISOString(), new Date(now.getTime() + leaseMs).toISOString(), limit],
      )
      return (rows as JobRow[]).map(toJob).sort((a, b) => a.id - b.id)
    },
    async markMailSent(ids, now) {
      if (ids.length === 0) return
      await db.query(
        `UPDATE public.outbox SET status = 'sent', sent_at = $2, attempts = attempts + 1, locked_until = NULL, last_error = NULL
         WHERE id = ANY($1::bigint[])`,
        [ids, now.toISOString()],
      )
    },
    async markMailFailed(id, error, nextAttemptAt) {
      await db.query(
        `UPDATE public.outbox SET attempts = attempts + 1, last_error = $2, next_attempt_at = $3, locked_until = NULL WHERE id = $1`,
        [id, error, nextAttemptAt.toISOString()],
      )
    },
    async postponeMail(ids, nextAttemptAt, error) {
      if (ids.length === 0) return
      await db.query(
        `UPDATE public.outbox SET next_attempt_at = $2, locked_until = NULL, last_error = coalesce($3, last_error)
         WHERE id = ANY($1::bigint[]) AND status = 'pending'`,
        [ids, nextAttemptAt.toISOString(), error ?? null],
      )
    },
    async markMessageFailed(id, error, now) {
      await db.query(
        `UPDATE public.outbox SET status = 'failed', attempts = attempts + 1, last_error = $2, failed_at = $3, locked_until = NULL
         WHERE id = $1 AND status = 'pending'`,
        [id, error, now.toISOString()],
      )
    },
    async markMessageCancelled(id, now) {
      await db.query(
        `UPDATE public.outbox SET status = 'cancelled', failed_at = $2, locked_until = NULL WHERE id = $1 AND status = 'pending'`,
        [id, now.toISOString()],
      )
    },
  }
}
