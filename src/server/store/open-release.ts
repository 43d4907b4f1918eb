// Which release store (release.ts) a server's data is in: chosen here, in the store room, so the studio that shows the
// allocation board names no driver.
import path from 'node:path'
import { createPostgresRelease } from './postgres/postgres-release.ts'
import type { ReleaseStore } from './release.ts'
import type { SqlQueryable } from './sql-queryable.ts'
import { openSqliteRelease } from './sqlite/sqlite-release.ts'

/**
 * The release store beside the server's leads: in its PostgreSQL pool when it has one (the pool stays its owner's to
 * end), else on DATA_DIR/leads.sqlite, which the lead store has opened (and made) first.
 */
export function openReleaseStore(where: { dataDir: string; pool?: SqlQueryable | undefined }): {
  store: ReleaseStore
  close: () => void
} {
  if (where.pool) return { store: createPostgresRelease(where.pool), close: () => {} }
  const sqlite = openSqliteRelease(path.join(where.dataDir, 'leads.sqlite'))
  return { store: sqlite, close: () => sqlite.close() }
}
