import type { StudioStore } from './store.ts'
import { sqliteAccounts } from './store/sqlite-accounts.ts'
import { sqliteAudit } from './store/sqlite-audit.ts'
import { sqliteDrafts } from './store/sqlite-drafts.ts'
import { sqliteLinks } from './store/sqlite-links.ts'
import { sqlitePreviewLinks } from './store/sqlite-preview-links.ts'
import { openStudioDatabase } from './store/sqlite-schema.ts'
import { sqliteSessions } from './store/sqlite-sessions.ts'
import { sqliteVersions } from './store/sqlite-versions.ts'
import { sqliteTeam } from './store/sqlite-team.ts'

/**
 * Opens (and creates) the studio's database at `file` (DATA_DIR/studio.sqlite), owner-only, WAL with every commit
 * flushed (synchronous=FULL). `npm run studio:invite` opens it while the server runs: SQLite lets both write. The
 * store is assembled from one module per concern (store/sqlite-*.ts), each its part of the contract.
 */
export function openSqliteStudioStore(file: string): StudioStore {
  const db = openStudioDatabase(file)
  return {
    ...sqliteAccounts(db),
    ...sqliteLinks(db),
    ...sqliteSessions(db),
    ...sqliteDrafts(db),
    ...sqliteVersions(db),
    ...sqlitePreviewLinks(db),
    ...sqliteAudit(db),
    ...sqliteTeam(db),
    close() {
      if (db.open) db.close()
    },
  }
}
