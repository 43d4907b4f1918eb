import { randomBytes } from 'node:crypto'
import type { SqlQueryable } from '../../server/store/sql-queryable.ts'
import type { StudioStore } from './store.ts'
import { postgresAccounts } from './store/postgres-accounts.ts'
import { postgresAudit } from './store/postgres-audit.ts'
import { postgresDrafts } from './store/postgres-drafts.ts'
import { postgresLinks } from './store/postgres-links.ts'
import { postgresPreviewLinks } from './store/postgres-preview-links.ts'
import { postgresSessions } from './store/postgres-sessions.ts'
import { postgresVersions } from './store/postgres-versions.ts'
import { postgresTeam } from './store/postgres-team.ts'

/**
 * The studio's storage on PostgreSQL, in the tables of supabase/migrations/20251225000000_studio.sql (apply them
 * first): the same contract as sqlite-store.ts, for several Node servers on one database. Every write is one statement
 * (data-modifying CTEs where several tables change together), so each is atomic without holding a connection. The
 * store is assembled from one module per concern (store/postgres-*.ts), beside their SQLite versions.
 */

/**
 * A StudioStore on PostgreSQL (`db`: a pg.Pool, shared with the server's other stores). Its close() closes nothing
 * unless `close` is given: whoever made the pool ends it.
 */
export function createPostgresStudioStore(db: SqlQueryable, options: { close?: () => void } = {}): StudioStore {
  return {
    ...postgresAccounts(db),
    ...postgresLinks(db),
    ...postgresSessions(db),
    ...postgresDrafts(db),
    ...postgresVersions(db),
    ...postgresPreviewLinks(db),
    ...postgresAudit(db),
    ...postgresTeam(db),
    close() {
      options.close?.()
    },
  }
}

/**
 * The studio's signing key (preview links, device cookies) kept in PostgreSQL, so that every server on the database
 * signs and checks with the same one: the first to ask makes it (32 random bytes, hex), the others read it.
 */
export async function readOrCreatePostgresStudioKey(db: SqlQueryable): Promise<string> {
  const { rows } = await db.query(
    `WITH made AS (
       INSERT INTO public.studio_settings (name, value) VALUES ('key', $1) ON CONFLICT (name) DO NOTHING RETURNING value
     )
     SELECT value FROM made UNION ALL SELECT value FROM public.studio_settings WHERE name = 'key'`,
    [randomBytes(32).toString('hex')],
  )
  if (rows[0]) return (rows[0] as { value: string }).value
  // Another server made it after this statement's snapshot was taken: a new statement sees it.
  const again = await db.query("SELECT value FROM public.studio_settings WHERE name = 'key'")
  return (again.rows[0] as { value: string }).value
}
