// The SQLite store's once-a-day part (daily-runs.ts) on the table daily_runs (schema version 14, sqlite-schema.ts).
import { promised } from '../sqlite/sqlite-promised.ts'
import type Database from 'better-sqlite3'
import type { DailyMailStore } from '../daily-runs.ts'
import type { OutgoingMail } from '../store.ts'

/**
 * The daily runs on an open SQLite lead database; statements prepared on first use (a read-only file may predate them).
 */
export function createSqliteDailyRuns(db: Database.Database): DailyMailStore<OutgoingMail> {
  let queue: Database.Transaction<(job: string, day: string, mail: OutgoingMail, at: string) => boolean> | undefined
  return promised<DailyMailStore<OutgoingMail>>({
    queueDailyMail(job, day, mail, now) {
      queue ??= db.transaction((job: string, day: string, mail: OutgoingMail, at: string) => {
        const claimed =
          db
            .prepare('INSERT INTO daily_runs (job, day, started_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING')
            .run(job, day, at).changes === 1
        if (claimed) {
          db.prepare(
            "INSERT INTO outbox (lead_id, kind, recipient, mail, next_attempt_at, created_at) VALUES (NULL, 'summary', ?, ?, ?, ?)",
          ).run(mail.to, JSON.stringify(mail), at, at)
        }
        return claimed
      })
      return queue.immediate(job, day, mail, now.toISOString())
    },
    hasDailyRun(job, day) {
      return db.prepare('SELECT 1 FROM daily_runs WHERE job = ? AND day = ?').get(job, day) !== undefined
    },
  })
}
