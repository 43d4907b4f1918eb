import type { SqlQueryable } from '../../../server/store/sql-queryable.ts'
import type { StudioStore } from '../store.ts'
import { all, iso, type Time } from './postgres-rows.ts'

type AuditRow = { at: Time; who: string; action: string; launch: string | null; detail: string | null }

/** The audit log part of the studio's PostgreSQL store: who did what, when, newest first. */
export function postgresAudit(db: SqlQueryable): Pick<StudioStore, 'addAudit' | 'listAudit'> {
  return {
    async addAudit(entry) {
      await db.query('INSERT INTO public.studio_audit (at, who, action, launch, detail) VALUES ($1, $2, $3, $4, $5)', [
        entry.at,
        entry.who,
        entry.action,
        entry.launch ?? null,
        entry.detail ?? null,
      ])
    },
    async listAudit(limit) {
      const rows = await all<AuditRow>(
        db,
        'SELECT at, who, action, launch, detail FROM public.studio_audit ORDER BY id DESC LIMIT $1',
        [limit],
      )
      return rows.map((row) => ({
        at: iso(row.at),
        who: row.who,
        action: row.action,
        launch: row.launch ?? undefined,
        detail: row.detail ?? undefined,
      }))
    },
  }
}
