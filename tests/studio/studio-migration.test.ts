import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { plannedPostgresKind, startTestPostgres, type TestPostgres } from '../server/support/postgres.ts'

const tables = [
  'studio_accounts',
  'studio_links',
  'studio_sessions',
  'studio_drafts',
  'studio_versions',
  'studio_audit',
  'studio_settings',
  'studio_preview_links',
  'studio_draft_versions',
  'studio_presence',
]
let pg: TestPostgres

beforeAll(async () => {
  pg = await startTestPostgres()
}, 60_000)
afterAll(() => pg?.stop())

describe(`the studio's tables on PostgreSQL (${plannedPostgresKind()})`, () => {
  it('exist with row level security on', async () => {
    const { rows } = await pg.db.query(
      `SELECT relname, relrowsecurity FROM pg_class WHERE relnamespace = 'public'::regnamespace AND relname = ANY($1) ORDER BY relname`,
      [tables],
    )
    expect(rows).toEqual([...tables].sort().map((relname) => ({ relname, relrowsecurity: true })))
  })

  it.each(['anon', 'authenticated', 'lead_writer'])('give %s no privilege on any of them', async (role) => {
    for (const table of tables) {
      for (const privilege of ['SELECT', 'INSERT', 'UPDATE', 'DELETE', 'TRUNCATE', 'REFERENCES', 'TRIGGER']) {
        const { rows } = await pg.db.query('SELECT has_table_privilege($1, $2, $3) AS granted', [
          role,
          `public.${table}`,
          privilege,
        ])
        expect((rows[0] as { granted: boolean }).granted, `${role} ${privilege} ${table}`).toBe(false)
      }
    }
  })

  it('takes an account, a link, a session and a version as the SQLite store does', async () => {
    await pg.db.query(
      `INSERT INTO public.studio_accounts (email, role, sessions_valid_after, invited_at) VALUES ('owner@example.com', 'owner', now(), now())`,
    )
    await pg.db.query(
      `INSERT INTO public.studio_versions (launch, number, text, by_email, at) VALUES ('a', 1, '{}', 'disk', now())`,
    )
    const { rows } = await pg.db.query(`SELECT count(*)::int AS n FROM public.studio_accounts`)
    expect(rows).toEqual([{ n: 1 }])
    await expect(
      pg.db.query(
        `INSERT INTO public.studio_accounts (email, role, sessions_valid_after, invited_at) VALUES ('x@example.com', 'admin', now(), now())`,
      ),
    ).rejects.toThrow()
  })
})
