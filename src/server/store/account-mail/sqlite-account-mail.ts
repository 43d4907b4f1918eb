// The studio accounts' mail on SQLite (account-mail.ts): one outbox row of kind 'account' (schema version 15).
import type Database from 'better-sqlite3'
import { promised } from '../sqlite/sqlite-promised.ts'
import type { AccountMailStore } from './account-mail.ts'
import type { OutgoingMail } from '../messages.ts'

/** AccountMailStore on an open SQLite lead database. */
export function createSqliteAccountMail(db: Database.Database, readonly: boolean): AccountMailStore<OutgoingMail> {
  return promised<AccountMailStore<OutgoingMail>>({
    queueAccountMail(mail, now) {
      if (readonly) throw new Error('This lead store was opened read-only.')
      const at = now.toISOString()
      db.prepare(
        "INSERT INTO outbox (lead_id, kind, recipient, mail, next_attempt_at, created_at) VALUES (NULL, 'account', ?, ?, ?, ?)",
      ).run(mail.to, JSON.stringify(mail), at, at)
    },
  })
}
