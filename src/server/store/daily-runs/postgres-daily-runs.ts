// The once-a-day mail on PostgreSQL (daily-runs.ts: DailyMailStore), on daily_runs (the retention's claim too).
import type { SqlQueryable } from '../sql-queryable.ts'
import type { DailyMailStore } from '../daily-runs.ts'
import type { OutgoingMail } from '../messages.ts'

/** DailyMailStore on a PostgreSQL lead database. */
export function createPostgresDailyRuns(db: SqlQueryable): DailyMailStore<OutgoingMail> {
  return {
    async queueDailyMail(job, day, mail, now) {
      // One statement: the day's claim (daily_runs, as the retention's) and the summary are committed together.
      const { rows } = await db.query(
        `WITH claimed AS (
           INSERT INTO public.daily_runs (job, day, started_at) VALUES ($1, $2::date, $4) ON CONFLICT DO NOTHING RETURNING 1
         ), queued AS (
           INSERT INTO public.outbox (lead_id, kind, recipient, mail, next_attempt_at, created_at)
           SELECT NULL, 'summary', $3::jsonb->>'to', $3::jsonb, $4, $4 FROM claimed
         )
         SELECT count(*)::int AS claimed FROM claimed`,
        [job, day, JSON.stringify(mail), now.toISOString()],
      )
      return (rows[0] as { claimed: number }).claimed === 1
    },
    async hasDailyRun(job, day) {
      const { rows } = await db.query('SELECT 1 FROM public.daily_runs WHERE job = $1 AND day = $2::date', [job, day])
      return rows.length > 0
    },
  }
}
