import type { SqlQueryable } from '../../../server/store/sql-queryable.ts'
import type { StudioStore } from '../store.ts'
import { accountColumns, accountOf, one, type AccountRow } from './postgres-rows.ts'

/** The sessions part of the studio's PostgreSQL store: started, found while live, ended. */
export function postgresSessions(db: SqlQueryable): Pick<StudioStore, 'createSession' | 'findSession' | 'endSession'> {
  return {
    async createSession(idHash, accountId, now, expiresAt) {
      await db.query(
        `WITH expired AS (DELETE FROM public.studio_sessions WHERE expires_at <= $3)
         INSERT INTO public.studio_sessions (id_hash, account_id, created_at, expires_at) VALUES ($1, $2, $3, $4)`,
        [idHash, accountId, now.toISOString(), expiresAt.toISOString()],
      )
    },
    async findSession(idHash, now) {
      const row = await one<AccountRow>(
        db,
        `SELECT ${accountColumns} FROM public.studio_sessions s JOIN public.studio_accounts a ON a.id = s.account_id
         WHERE s.id_hash = $1 AND s.expires_at > $2 AND s.created_at >= a.sessions_valid_after`,
        [idHash, now.toISOString()],
      )
      return row ? accountOf(row) : undefined
    },
    async endSession(idHash) {
      await db.query('DELETE FROM public.studio_sessions WHERE id_hash = $1', [idHash])
    },
  }
}
