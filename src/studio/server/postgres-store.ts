import { randomBytes } from 'node:crypto'
import type { SqlQueryable } from '../../server/store/sql-queryable.ts'
import type { Role } from '../protocol.ts'
import {
  AccountExistsError,
  normalizeEmail,
  type Account,
  type LinkPurpose,
  type NewVersion,
  type StoredVersion,
  type StudioStore,
} from './store.ts'

/**
 * The studio's storage on PostgreSQL, in the tables of supabase/migrations/20251225000000_studio.sql (apply them
 * first): the same contract as sqlite-store.ts, for several Node servers on one database. Every write is one statement
 * (data-modifying CTEs where several tables change together), so each is atomic without holding a connection.
 */

type Time = Date | string
type Id = string | number | bigint

type AccountRow = {
  id: Id
  email: string
  role: Role
  launches: string[] | string | null
  password_hash: string | null
  totp_secret: string | null
  sessions_valid_after: Time
  invited_at: Time
}
type VersionRow = {
  launch: string
  number: number
  text: string
  by_email: string
  at: Time
  message: string | null
  from_disk: boolean
  restored_from: number | null
}
type DraftRow = { launch: string; text: string; by_email: string; updated_at: Time }

const accountColumns =
  'a.id, a.email, a.role, a.launches, a.password_hash, a.totp_secret, a.sessions_valid_after, a.invited_at'

/** How many times addVersion tries again when another server took the same number at the same moment. */
const versionAttempts = 20

function iso(value: Time): string {
  return (value instanceof Date ? value : new Date(value)).toISOString()
}

function accountOf(row: AccountRow): Account {
  const launches = typeof row.launches === 'string' ? (JSON.parse(row.launches) as string[]) : row.launches
  return {
    id: Number(row.id),
    email: row.email,
    role: row.role,
    launches: launches ?? undefined,
    passwordHash: row.password_hash ?? undefined,
    totpSecret: row.totp_secret ?? undefined,
    sessionsValidAfter: iso(row.sessions_valid_after),
    invitedAt: iso(row.invited_at),
  }
}

function versionOf(row: VersionRow): StoredVersion {
  return {
    launch: row.launch,
    number: Number(row.number),
    text: row.text,
    by: row.by_email,
    at: iso(row.at),
    message: row.message ?? undefined,
    fromDisk: row.from_disk,
    restoredFrom: row.restored_from ?? undefined,
  }
}

function draftOf(row: DraftRow) {
  return { launch: row.launch, text: row.text, by: row.by_email, updatedAt: iso(row.updated_at) }
}

function isUniqueViolation(error: unknown): boolean {
  return (error as { code?: string }).code === '23505'
}

/**
 * A StudioStore on PostgreSQL (`db`: a pg.Pool, shared with the server's other stores). Its close() closes nothing
 * unless `close` is given: whoever made the pool ends it.
 */
export function createPostgresStudioStore(db: SqlQueryable, options: { close?: () => void } = {}): StudioStore {
  const one = async <T>(text: string, params: unknown[] = []) => (await db.query(text, params)).rows[0] as T | undefined
  const all = async <T>(text: string, params: unknown[] = []) => (await db.query(text, params)).rows as T[]
  const accountWhere = async (condition: string, params: unknown[]) => {
    const row = await one<AccountRow>(
      `SELECT ${accountColumns} FROM public.studio_accounts a WHERE ${condition}`,
      params,
    )
    return row ? accountOf(row) : undefined
  }

  /**
   * Two servers publishing one launch at once read the same max: the primary key (launch, number) refuses the second
   * insert, which then reads the new max and tries again, so numbers have neither gaps nor duplicates. `unlessLatest`:
   * nothing is inserted (undefined) when the latest version, read again on each try, already has this text.
   */
  const insertVersion = async (version: NewVersion, unlessLatest: boolean): Promise<number | undefined> => {
    for (let attempt = 1; ; attempt++) {
      try {
        const row = await one<{ number: number }>(
          `INSERT INTO public.studio_versions (launch, number, text, by_email, at, message, from_disk, restored_from)
           SELECT $1, coalesce(max(v.number), 0) + 1, $2, $3, $4, $5, $6, $7 FROM public.studio_versions v WHERE v.launch = $1
           HAVING NOT $8 OR (SELECT l.text FROM public.studio_versions l WHERE l.launch = $1 ORDER BY l.number DESC LIMIT 1) IS DISTINCT FROM $2
           RETURNING number`,
          [
            version.launch,
            version.text,
            version.by,
            version.at,
            version.message ?? null,
            version.fromDisk,
            version.restoredFrom ?? null,
            unlessLatest,
          ],
        )
        return row ? Number(row.number) : undefined
      } catch (error) {
        if (!isUniqueViolation(error) || attempt === versionAttempts) throw error
      }
    }
  }

  return {
    async countAccounts() {
      return (await one<{ n: number }>('SELECT count(*)::int AS n FROM public.studio_accounts'))!.n
    },
    async createAccount({ email, role, launches }, now) {
      const address = normalizeEmail(email)
      try {
        const row = await one<AccountRow>(
          `INSERT INTO public.studio_accounts AS a (email, role, launches, sessions_valid_after, invited_at) VALUES ($1, $2, $3::jsonb, $4, $4)
           RETURNING ${accountColumns}`,
          [address, role, launches ? JSON.stringify(launches) : null, now.toISOString()],
        )
        return accountOf(row!)
      } catch (error) {
        if (isUniqueViolation(error)) throw new AccountExistsError(`${address} already has an account.`)
        throw error
      }
    },
    findAccountByEmail: (email) => accountWhere('a.email = $1', [normalizeEmail(email)]),
    findAccount: (id) => accountWhere('a.id = $1', [id]),
    async listAccounts() {
      return (
        await all<AccountRow>(`SELECT ${accountColumns} FROM public.studio_accounts a ORDER BY a.email COLLATE "C"`)
      ).map(accountOf)
    },
    async changeAccess(id, { role, launches }, now) {
      // Voiding by the stamp as well as deleting ends a session that a request in flight is creating right now.
      await db.query(
        `WITH changed AS (
           UPDATE public.studio_accounts SET role = $2, launches = $3::jsonb, sessions_valid_after = $4 WHERE id = $1 RETURNING id
         )
         DELETE FROM public.studio_sessions WHERE account_id = $1`,
        [id, role, launches ? JSON.stringify(launches) : null, now.toISOString()],
      )
    },
    async grantLaunch(id, launch) {
      await db.query(
        `UPDATE public.studio_accounts SET launches = launches || jsonb_build_array($2::text)
         WHERE id = $1 AND launches IS NOT NULL AND NOT launches ? $2`,
        [id, launch],
      )
    },
    async setPassword(id, passwordHash, now) {
      await db.query(
        `WITH changed AS (
           UPDATE public.studio_accounts SET password_hash = $2, sessions_valid_after = $3 WHERE id = $1 RETURNING id
         ), ended AS (
           DELETE FROM public.studio_sessions WHERE account_id = $1
         )
         UPDATE public.studio_links SET used_at = $3 WHERE account_id = $1 AND used_at IS NULL`,
        [id, passwordHash, now.toISOString()],
      )
    },
    async setTotpSecret(id, secret, _now, keepSession) {
      await db.query(
        `WITH changed AS (
           UPDATE public.studio_accounts SET totp_secret = $2 WHERE id = $1 RETURNING id
         )
         DELETE FROM public.studio_sessions WHERE account_id = $1 AND id_hash IS DISTINCT FROM $3`,
        [id, secret ?? null, keepSession ?? null],
      )
    },
    async removeAccount(id) {
      // Its links and sessions go with it (ON DELETE CASCADE).
      await db.query('DELETE FROM public.studio_accounts WHERE id = $1', [id])
    },

    async createLink(tokenHash, accountId, purpose, now, expiresAt) {
      await db.query(
        'INSERT INTO public.studio_links (token_hash, account_id, purpose, created_at, expires_at) VALUES ($1, $2, $3, $4, $5)',
        [tokenHash, accountId, purpose, now.toISOString(), expiresAt.toISOString()],
      )
    },
    async findLink(tokenHash, now) {
      const row = await one<{ account_id: Id; purpose: LinkPurpose; expires_at: Time }>(
        'SELECT account_id, purpose, expires_at FROM public.studio_links WHERE token_hash = $1 AND used_at IS NULL AND expires_at > $2',
        [tokenHash, now.toISOString()],
      )
      return row
        ? { accountId: Number(row.account_id), purpose: row.purpose, expiresAt: iso(row.expires_at) }
        : undefined
    },
    async useLink(tokenHash, now) {
      // A second UPDATE of the row waits for the first to commit, then reads used_at again: only one gets the row back.
      const rows = await all(
        'UPDATE public.studio_links SET used_at = $2 WHERE token_hash = $1 AND used_at IS NULL AND expires_at > $2 RETURNING token_hash',
        [tokenHash, now.toISOString()],
      )
      return rows.length === 1
    },

    async createSession(idHash, accountId, now, expiresAt) {
      await db.query(
        `WITH expired AS (DELETE FROM public.studio_sessions WHERE expires_at <= $3)
         INSERT INTO public.studio_sessions (id_hash, account_id, created_at, expires_at) VALUES ($1, $2, $3, $4)`,
        [idHash, accountId, now.toISOString(), expiresAt.toISOString()],
      )
    },
    async findSession(idHash, now) {
      const row = await one<AccountRow>(
        `SELECT ${accountColumns} FROM public.studio_sessions s JOIN public.studio_accounts a ON a.id = s.account_id
         WHERE s.id_hash = $1 AND s.expires_at > $2 AND s.created_at >= a.sessions_valid_after`,
        [idHash, now.toISOString()],
      )
      return row ? accountOf(row) : undefined
    },
    async endSession(idHash) {
      await db.query('DELETE FROM public.studio_sessions WHERE id_hash = $1', [idHash])
    },

    async getDraft(launch) {
      const row = await one<DraftRow>(
        'SELECT launch, text, by_email, updated_at FROM public.studio_drafts WHERE launch = $1',
        [launch],
      )
      return row ? draftOf(row) : undefined
    },
    async listDrafts() {
      return (
        await all<DraftRow>(
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

    async addVersion(version) {
      return (await insertVersion(version, false))!
    },
    addDiskVersion: (version) => insertVersion(version, true),
    async listVersions(launch) {
      return (
        await all<VersionRow>('SELECT * FROM public.studio_versions WHERE launch = $1 ORDER BY number DESC', [launch])
      ).map(versionOf)
    },
    async getVersion(launch, number) {
      const row = await one<VersionRow>('SELECT * FROM public.studio_versions WHERE launch = $1 AND number = $2', [
        launch,
        number,
      ])
      return row ? versionOf(row) : undefined
    },
    async latestVersion(launch) {
      const row = await one<VersionRow>(
        'SELECT * FROM public.studio_versions WHERE launch = $1 ORDER BY number DESC LIMIT 1',
        [launch],
      )
      return row ? versionOf(row) : undefined
    },

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
      const rows = await all<{ at: Time; who: string; action: string; launch: string | null; detail: string | null }>(
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
