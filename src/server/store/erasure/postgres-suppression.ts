// The suppression list on PostgreSQL (suppression.ts: SuppressionStore).
import type { SqlQueryable } from '../sql-queryable.ts'
import type { SuppressionStore } from '../suppression.ts'

/** SuppressionStore on a PostgreSQL lead database. */
export function createPostgresSuppression(db: SqlQueryable): SuppressionStore {
  return {
    async suppressAddress(key) {
      await db.query('INSERT INTO public.suppressions (address_key) VALUES ($1) ON CONFLICT DO NOTHING', [key])
    },
    async isSuppressed(key) {
      const { rows } = await db.query('SELECT 1 FROM public.suppressions WHERE address_key = $1', [key])
      return rows.length > 0
    },
  }
}
