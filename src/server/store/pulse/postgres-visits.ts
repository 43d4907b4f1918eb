// The PostgreSQL store's visit counts (pulse.ts: PulseStore's addVisits), on visit_counts
// (supabase/migrations/20251231000000_visit_counts.sql), and the visit image's count through public.count_visit.
import type { SqlQueryable } from '../sql-queryable.ts'
import type { PulseStore } from './pulse.ts'

/** Adds visit counts on a PostgreSQL lead database. */
export function createPostgresVisits(db: SqlQueryable): Pick<PulseStore, 'addVisits'> {
  return {
    async addVisits(counts) {
      if (counts.length === 0) return
      // Summed first: one statement may not update the same row twice.
      await db.query(
        `INSERT INTO public.visit_counts (launch, day, source, visits, visitors)
         SELECT launch, day::date, source, sum(visits), sum(visitors)
         FROM jsonb_to_recordset($1::jsonb) AS c (launch text, day text, source text, visits int, visitors int) GROUP BY 1, 2, 3
         ON CONFLICT (launch, day, source) DO UPDATE SET visits = visit_counts.visits + excluded.visits, visitors = visit_counts.visitors + excluded.visitors`,
        [JSON.stringify(counts)],
      )
    },
  }
}

/**
 * Counts one visit image in the database (public.count_visit, migration 20260109000000): the function's role may call
 * it and read nothing of the visit tables; the day's salt is made and applied there, never handed out.
 */
export function countVisitIn(db: SqlQueryable): (launch: string, day: string, identity: Uint8Array) => Promise<void> {
  return async (launch, day, identity) => {
    await db.query('SELECT public.count_visit($1, $2::date, $3)', [launch, day, identity])
  }
}
