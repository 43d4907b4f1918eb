import type Database from 'better-sqlite3'
import type { StudioStore } from '../store.ts'
import { accountOf, settled, type AccountRow } from './sqlite-rows.ts'

/** Ends every session of an account, and voids any that a request in flight might still be creating. */
export function endAllSessions(db: Database.Database, id: number, now: Date): void {
  db.prepare('UPDATE studio_accounts SET sessions_valid_after = ? WHERE id = ?').run(now.toISOString(), id)
  db.prepare('DELETE FROM studio_sessions WHERE account_id = ?').run(id)
}

/** The sessions part of the studio's SQLite store: started, found while live, ended. */
export function sqliteSessions(
  db: Database.Database,
): Pick<StudioStore, 'createSession' | 'findSession' | 'endSession'> {
  return {
    createSession: (idHash, accountId, now, expiresAt) =>
      settled(() => {
        db.prepare('DELETE FROM studio_sessions WHERE expires_at <= ?').run(now.toISOString())
        db.prepare('INSERT INTO studio_sessions (id_hash, account_id, created_at, expires_at) VALUES (?, ?, ?, ?)').run(
          idHash,
          accountId,
          now.toISOString(),
          expiresAt.toISOString(),
        )
      }),
    findSession: (idHash, now) =>
      settled(() => {
        const row = db
          .prepare<[string, string], AccountRow>(
            `SELECT a.* FROM studio_sessions s JOIN studio_accounts a ON a.id = s.account_id
             WHERE s.id_hash = ? AND s.expires_at > ? AND s.created_at >= a.sessions_valid_after`,
          )
          .get(idHash, now.toISOString())
        return row ? accountOf(row) : undefined
      }),
    endSession: (idHash) =>
      settled(() => {
        db.prepare('DELETE FROM studio_sessions WHERE id_hash = ?').run(idHash)
      }),
  }
}
