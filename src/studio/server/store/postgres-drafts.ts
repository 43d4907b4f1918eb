import type { SqlQueryable } from '../../../server/store/sql-queryable.ts'
import type { StudioStore } from '../store.ts'
import { all, draftOf, one, type DraftRow } from './postgres-rows.ts'

/** The drafts part of the studio's PostgreSQL store: one draft a launch. */
export function postgresDrafts(
  db: SqlQueryable,
): Pick<StudioStore, 'getDraft' | 'listDrafts' | 'saveDraft' | 'deleteDraft'> {
  return {
    async getDraft(launch) {
      const row = await one<DraftRow>(
        db,
        'SELECT launch, text, by_email, updated_at FROM public.studio_drafts WHERE launch = $1',
        [launch],
      )
      return row ? draftOf(row) : undefined
    },
    async listDrafts() {
      return (
        await all<DraftRow>(
          db,
          'SELECT launch, text, by_email, updated_at FROM public.studio_drafts ORDER BY launch COLLATE "C"',
        )
      ).map(draftOf)
    },
    async saveDraft(launch, text, by, now) {
      await db.query(
        `INSERT INTO public.studio_drafts (launch, text, by_email, updated_at) VALUES ($1, $2, $3, $4)
         ON CONFLICT (launch) DO UPDATE SET text = excluded.text, by_email = excluded.by_email, updated_at = excluded.updated_at`,
        [launch, text, by, now.toISOString()],
      )
    },
    async deleteDraft(launch) {
      await db.query('DELETE FROM public.studio_drafts WHERE launch = $1', [launch])
    },
  }
}
