import { randomBytes } from 'node:crypto'
import type { SqlQueryable } from '../store/sql-queryable.ts'
import {
  accountRowOf,
  accountTag,
  emptyFilter,
  filterOf,
  hashOf,
  passwordTagOf,
  type LeadsFilter,
  type SessionStore,
} from './sessions.ts'

/**
 * The leads page's sessions on PostgreSQL (supabase/migrations/*_leads_page_sessions.sql), for several Node servers
 * on one database: a session made on one is valid on the others. The same contract and rules as the SQLite file of
 * sessions.ts: only the token's SHA-256 is stored, and every session is bound to LEADS_PASSWORD by a keyed hash
 * under a random key kept in the database.
 */

type SessionRow = { expires_at: Date | string; filter: LeadsFilter | string }

/**
 * The sessions in PostgreSQL (`db`: the server's pool). The first call reads (or makes) the key, then deletes the
 * sessions made under another password, so changing it signs everyone out; a failed start is tried again on the
 * next call. close() closes nothing: whoever made the pool ends it.
 */
export function createPostgresSessionStore(db: SqlQueryable, password: string): SessionStore {
  let ready: Promise<string> | undefined
  const start = async () => {
    await db.query(
      "INSERT INTO public.leads_page_settings (name, value) VALUES ('password_key', $1) ON CONFLICT (name) DO NOTHING",
      [randomBytes(32).toString('hex')],
    )
    // A statement of its own: it sees the key another server made while the insert above ran.
    const { rows } = await db.query("SELECT value FROM public.leads_page_settings WHERE name = 'password_key'")
    const tag = passwordTagOf((rows[0] as { value: string }).value, password)
    await db.query('DELETE FROM public.leads_page_sessions WHERE password_tag <> $1 AND password_tag <> $2', [
      tag,
      accountTag,
    ])
    return tag
  }
  const passwordTag = () =>
    (ready ??= start().catch((error: unknown) => {
      ready = undefined
      throw error
    }))
  const purge = 'DELETE FROM public.leads_page_sessions WHERE expires_at <= $1'
  const liveRow = async (tokenHash: string, now: Date, tag: string) =>
    (
      await db.query(
        'SELECT expires_at, filter FROM public.leads_page_sessions WHERE token_hash = $1 AND expires_at > $2 AND password_tag = $3',
        [tokenHash, now.toISOString(), tag],
      )
    ).rows[0] as SessionRow | undefined

  return {
    async create(now, ttlMs) {
      const tag = await passwordTag()
      const token = randomBytes(32).toString('base64url')
      await db.query(
        `WITH expired AS (${purge})
         INSERT INTO public.leads_page_sessions (token_hash, expires_at, password_tag) VALUES ($2, $3, $4)`,
        [now.toISOString(), hashOf(token), new Date(now.getTime() + ttlMs).toISOString(), tag],
      )
      return token
    },
    async find(token, now) {
      const row = await liveRow(hashOf(token), now, await passwordTag())
      return row ? { expiresAt: new Date(row.expires_at), filter: filterOf(row.filter) } : undefined
    },
    async saveFilter(token, filter) {
      await db.query('UPDATE public.leads_page_sessions SET filter = $2::jsonb WHERE token_hash = $1', [
        hashOf(token),
        JSON.stringify(filter),
      ])
    },
    async end(token) {
      await db.query('DELETE FROM public.leads_page_sessions WHERE token_hash = $1', [hashOf(token)])
    },
    async accountFilter(key, now) {
      const row = await liveRow(accountRowOf(key), now, accountTag)
      return row ? filterOf(row.filter) : { ...emptyFilter }
    },
    async saveAccountFilter(key, filter, now, ttlMs) {
      // The purge leaves this row alone: one statement must not both delete and update it.
      await db.query(
        `WITH expired AS (${purge} AND token_hash <> $2)
         INSERT INTO public.leads_page_sessions (token_hash, expires_at, filter, password_tag) VALUES ($2, $3, $4::jsonb, $5)
         ON CONFLICT (token_hash) DO UPDATE SET expires_at = excluded.expires_at, filter = excluded.filter`,
        [
          now.toISOString(),
          accountRowOf(key),
          new Date(now.getTime() + ttlMs).toISOString(),
          JSON.stringify(filter),
          accountTag,
        ],
      )
    },
    close() {},
  }
}

/**
 * Blanks every search of the leads page's sessions in PostgreSQL that holds `address` (any letter case), for
 * `npm run leads:erase` with DATABASE_URL, then rewrites the table (VACUUM FULL) so the row versions that held it
 * leave the database's files too. Returns how many searches held it; 0 on a database without the table (migrations
 * from before the sessions moved there).
 */
export async function erasePostgresSearchesFor(db: SqlQueryable, address: string): Promise<number> {
  const present = await db.query("SELECT to_regclass('public.leads_page_sessions') IS NOT NULL AS present")
  if (!(present.rows[0] as { present: boolean }).present) return 0
  const { rows } = await db.query(
    `UPDATE public.leads_page_sessions SET filter = jsonb_set(filter, '{text}', '""'::jsonb)
     WHERE strpos(lower(filter->>'text'), lower($1)) > 0
     RETURNING token_hash`,
    [address.trim()],
  )
  if (rows.length > 0) await db.query('VACUUM FULL public.leads_page_sessions')
  return rows.length
}

/**
 * How many searches of the leads page's sessions in PostgreSQL hold `address` (any letter case), for `npm run
 * leads:access`.
 */
export async function countPostgresSearchesFor(db: SqlQueryable, address: string): Promise<number> {
  const present = await db.query("SELECT to_regclass('public.leads_page_sessions') IS NOT NULL AS present")
  if (!(present.rows[0] as { present: boolean }).present) return 0
  const { rows } = await db.query(
    "SELECT count(*)::int AS n FROM public.leads_page_sessions WHERE strpos(lower(filter->>'text'), lower($1)) > 0",
    [address.trim()],
  )
  return (rows[0] as { n: number }).n
}
