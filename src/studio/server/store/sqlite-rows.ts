import type { Role } from '../../protocol.ts'
import type { Account, StoredVersion } from '../store.ts'

/** A row of studio_accounts as SQLite returns it. */
export type AccountRow = {
  id: number
  email: string
  role: Role
  launches: string | null
  password_hash: string | null
  totp_secret: string | null
  sessions_valid_after: string
  invited_at: string
}

/** A row of studio_versions as SQLite returns it. */
export type VersionRow = {
  launch: string
  number: number
  text: string
  by_email: string
  at: string
  message: string | null
  from_disk: number
  restored_from: number | null
}

/** An account from its row (launches kept as JSON text; null is every launch). */
export function accountOf(row: AccountRow): Account {
  return {
    id: row.id,
    email: row.email,
    role: row.role,
    launches: row.launches === null ? undefined : (JSON.parse(row.launches) as string[]),
    passwordHash: row.password_hash ?? undefined,
    totpSecret: row.totp_secret ?? undefined,
    sessionsValidAfter: row.sessions_valid_after,
    invitedAt: row.invited_at,
  }
}

/** A version from its row. */
export function versionOf(row: VersionRow): StoredVersion {
  return {
    launch: row.launch,
    number: row.number,
    text: row.text,
    by: row.by_email,
    at: row.at,
    message: row.message ?? undefined,
    fromDisk: row.from_disk === 1,
    restoredFrom: row.restored_from ?? undefined,
  }
}

/**
 * A synchronous SQLite step as the contract's promise: its value, or what it threw as a rejection (never a throw
 * before the promise exists), so SQLite and PostgreSQL fail the same way for a caller.
 */
export function settled<T>(step: () => T): Promise<T> {
  return new Promise((resolve) => resolve(step()))
}
