import type { SqlQueryable } from '../../../server/store/sql-queryable.ts'
import type { Role } from '../../protocol.ts'
import type { Account, StoredDraft, StoredVersion } from '../store.ts'

/** A time as the driver returns it: a Date (pg) or text. */
export type Time = Date | string
/** An id as the driver returns it (bigint columns may come back as text). */
export type Id = string | number | bigint

/** A row of public.studio_accounts. */
export type AccountRow = {
  id: Id
  email: string
  role: Role
  launches: string[] | string | null
  password_hash: string | null
  totp_secret: string | null
  sessions_valid_after: Time
  invited_at: Time
}
/** A row of public.studio_versions. */
export type VersionRow = {
  launch: string
  number: number
  text: string
  by_email: string
  at: Time
  message: string | null
  from_disk: boolean
  restored_from: number | null
}
/** A row of public.studio_drafts. */
export type DraftRow = { launch: string; text: string; by_email: string; updated_at: Time }

/** The columns of an account, from the table aliased `a`. */
export const accountColumns =
  'a.id, a.email, a.role, a.launches, a.password_hash, a.totp_secret, a.sessions_valid_after, a.invited_at'

/** A time as ISO 8601 UTC text. */
export function iso(value: Time): string {
  return (value instanceof Date ? value : new Date(value)).toISOString()
}

/** An account from its row. */
export function accountOf(row: AccountRow): Account {
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

/** A version from its row. */
export function versionOf(row: VersionRow): StoredVersion {
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

/** A draft from its row. */
export function draftOf(row: DraftRow): StoredDraft {
  return { launch: row.launch, text: row.text, by: row.by_email, updatedAt: iso(row.updated_at) }
}

/** Whether PostgreSQL refused a row for a unique key (23505). */
export function isUniqueViolation(error: unknown): boolean {
  return (error as { code?: string }).code === '23505'
}

/** The first row of a query, or undefined. */
export async function one<T>(db: SqlQueryable, text: string, params: unknown[] = []): Promise<T | undefined> {
  return (await db.query(text, params)).rows[0] as T | undefined
}

/** Every row of a query. */
export async function all<T>(db: SqlQueryable, text: string, params: unknown[] = []): Promise<T[]> {
  return (await db.query(text, params)).rows as T[]
}
