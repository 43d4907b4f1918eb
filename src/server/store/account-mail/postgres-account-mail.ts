// The studio accounts' mail on PostgreSQL (account-mail.ts): one outbox row of kind 'account'
// (20260122000000_account_mail.sql).
import type { SqlQueryable } from '../sql-queryable.ts'
import type { AccountMailStore } from './account-mail.ts'
import type { OutgoingMail } from '../messages.ts'

/** AccountMailStore on a PostgreSQL lead database. */
export function createPostgresAccountMail(db: SqlQueryable): AccountMailStore<OutgoingMail> {
  return {
    async queueAccountMail(mail, now) {
      await db.query(
        `INSERT INTO public.outbox (lead_id, kind, recipient, mail, next_attempt_at, created_at) VALUES (NULL, 'account', $1, $2::jsonb, $3, $3)`,
        [mail.to, JSON.stringify(mail), now.toISOString()],
      )
    },
  }
}
