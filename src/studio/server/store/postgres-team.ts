import type { SqlQueryable } from '../../../server/store/sql-queryable.ts'
import { presenceKeptMs, type TeamStore } from './team-store.ts'

/**
 * The TeamStore on PostgreSQL, in the tables of supabase/migrations/20260121000000_studio_team.sql. A save is one
 * statement: the version moves on only where it is still the one the save was made from (ON CONFLICT … WHERE reads
 * the row as committed, under its lock, so two servers saving at once cannot both win), and the draft is written from
 * that statement's result, so a refused save changes nothing.
 */
export function postgresTeam(db: SqlQueryable): TeamStore {
  const iso = (value: Date | string) => (value instanceof Date ? value : new Date(value)).toISOString()
  return {
    async draftHead(launch) {
      const { rows } = await db.query(
        'SELECT version, by_email, saved_at FROM public.studio_draft_versions WHERE launch = $1',
        [launch],
      )
      const row = rows[0] as { version: number; by_email: string; saved_at: Date | string } | undefined
      return row ? { version: Number(row.version), by: row.by_email, savedAt: iso(row.saved_at) } : undefined
    },
    async saveDraftFrom(launch, text, by, now, baseVersion) {
      const { rows } = await db.query(
        `WITH head AS (
           INSERT INTO public.studio_draft_versions AS h (launch, version, by_email, saved_at) VALUES ($1, 1, $3, $4)
           ON CONFLICT (launch) DO UPDATE SET version = h.version + 1, by_email = excluded.by_email,
             saved_at = excluded.saved_at
           WHERE $5::integer IS NULL OR h.version = $5::integer
           RETURNING version
         ), draft AS (
           INSERT INTO public.studio_drafts (launch, text, by_email, updated_at) SELECT $1, $2, $3, $4 FROM head
           ON CONFLICT (launch) DO UPDATE SET text = excluded.text, by_email = excluded.by_email,
             updated_at = excluded.updated_at
         )
         SELECT version FROM head`,
        [launch, text, by, now.toISOString(), baseVersion ?? null],
      )
      const row = rows[0] as { version: number } | undefined
      return row ? Number(row.version) : undefined
    },
    async markPresent(launch, editor, who, now) {
      await db.query(
        `WITH old AS (DELETE FROM public.studio_presence WHERE seen_at < $5 AND NOT (launch = $1 AND editor = $2))
         INSERT INTO public.studio_presence AS p (launch, editor, who, since, seen_at) VALUES ($1, $2, $3, $4, $4)
         ON CONFLICT (launch, editor) DO UPDATE SET seen_at = excluded.seen_at WHERE p.who = excluded.who`,
        [launch, editor, who, now.toISOString(), new Date(now.getTime() - presenceKeptMs).toISOString()],
      )
    },
    async listPresent(launch, after) {
      const { rows } = await db.query(
        `SELECT editor, who, since FROM public.studio_presence WHERE launch = $1 AND seen_at > $2
         ORDER BY since, editor COLLATE "C"`,
        [launch, after.toISOString()],
      )
      return (rows as Array<{ editor: string; who: string; since: Date | string }>).map((row) => ({
        editor: row.editor,
        who: row.who,
        since: iso(row.since),
      }))
    },
    async forgetPresent(launch, editor, who) {
      await db.query('DELETE FROM public.studio_presence WHERE launch = $1 AND editor = $2 AND who = $3', [
        launch,
        editor,
        who,
      ])
    },
  }
}
