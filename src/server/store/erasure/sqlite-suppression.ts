// The suppression list in SQLite (suppression.ts: SuppressionStore).
import type { SqliteContext } from '../sqlite/sqlite-context.ts'
import { promised } from '../sqlite/sqlite-promised.ts'
import type { SuppressionStore } from '../suppression.ts'

/** SuppressionStore on an open SQLite lead database. */
export function createSqliteSuppression(ctx: SqliteContext): SuppressionStore {
  return promised<SuppressionStore>({
    suppressAddress(key) {
      ctx.writable()
      ctx
        .query('INSERT INTO suppressions (address_key, created_at) VALUES (?, ?) ON CONFLICT DO NOTHING')
        .run(key, new Date().toISOString())
    },
    isSuppressed(key) {
      // Prepared on first use: a read-only store may open a file from before the suppression list.
      return ctx.query('SELECT 1 AS one FROM suppressions WHERE address_key = ?').get(key) !== undefined
    },
  })
}
