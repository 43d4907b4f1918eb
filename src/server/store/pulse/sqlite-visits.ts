// The SQLite store's visit counts (pulse.ts: PulseStore's addVisits), on visit_counts (schema version 9).
import type { SqliteContext } from '../sqlite/sqlite-context.ts'
import { promised } from '../sqlite/sqlite-promised.ts'
import type { PulseStore, VisitCount } from './pulse.ts'

/** Adds visit counts on an open SQLite lead database: one transaction for all of them. */
export function createSqliteVisits(ctx: SqliteContext): Pick<PulseStore, 'addVisits'> {
  const addVisits = ctx.db.transaction((counts: readonly VisitCount[]) => {
    const upsert = ctx.query(
      `INSERT INTO visit_counts (launch, day, source, visits, visitors) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (launch, day, source) DO UPDATE SET visits = visits + excluded.visits, visitors = visitors + excluded.visitors`,
    )
    for (const c of counts) upsert.run(c.launch, c.day, c.source, c.visits, c.visitors)
  })
  return promised<Pick<PulseStore, 'addVisits'>>({
    addVisits(counts) {
      if (counts.length > 0) addVisits.immediate(counts)
    },
  })
}
