import { chmodSync, existsSync } from 'node:fs'
import Database from 'better-sqlite3'
import { ensurePrivateFile, privateFileMode } from '../../server/store/private-files.ts'
import type { Role } from '../protocol.ts'
import {
  AccountExistsError,
  normalizeEmail,
  type Account,
  type LinkPurpose,
  type StoredAudit,
  type StoredVersion,
  type StudioStore,
} from './store.ts'

// The same tables as supabase/migrations/*_studio.sql, in SQLite's types: times are ISO 8601 UTC text (they sort
// as text), the launches of an account a JSON array (null: every launch).
const schemaV1 = `
CREATE TABLE IF NOT EXISTS studio_accounts (
  id                   INTEGER PRIMARY KEY,
  email                TEXT    NOT NULL UNIQUE,
  role                 TEXT    NOT NULL CHECK (role IN ('owner', 'editor', 'sales')),
  launches             TEXT,
  password_hash        TEXT,
  totp_secret          TEXT,
  sessions_valid_after TEXT    NOT NULL,
  invited_at           TEXT    NOT NULL
);
CREATE TABLE IF NOT EXISTS studio_links (
  token_hash TEXT    PRIMARY KEY,
  account_id INTEGER NOT NULL REFERENCES studio_accounts(id) ON DELETE CASCADE,
  purpose    TEXT    NOT NULL CHECK (purpose IN ('invite', 'reset')),
  created_at TEXT    NOT NULL,
  expires_at TEXT    NOT NULL,
  used_at    TEXT
);
CREATE TABLE IF NOT EXISTS studio_sessions (
  id_hash    TEXT    PRIMARY KEY,
  account_id INTEGER NOT NULL REFERENCES studio_accounts(id) ON DELETE CASCADE,
  created_at TEXT    NOT NULL,
  expires_at TEXT    NOT NULL
);
CREATE INDEX IF NOT EXISTS studio_sessions_account ON studio_sessions (account_id);
CREATE TABLE IF NOT EXISTS studio_drafts (
  launch     TEXT PRIMARY KEY,
  text       TEXT NOT NULL,
  by_email   TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS studio_versions (
  launch        TEXT    NOT NULL,
  number        INTEGER NOT NULL,
  text          TEXT    NOT NULL,
  by_email      TEXT    NOT NULL,
  at            TEXT    NOT NULL,
  message       TEXT,
  from_disk     INTEGER NOT NULL DEFAULT 0,
  restored_from INTEGER,
  PRIMARY KEY (launch, number)
);
CREATE TABLE IF NOT EXISTS studio_audit (
  id     INTEGER PRIMARY KEY,
  at     TEXT NOT NULL,
  who    TEXT NOT NULL,
  action TEXT NOT NULL,
  launch TEXT,
  detail TEXT
);
`

/**
 * The schema's steps after version 1, in order: the step at index i brings a file to version i + 2, in one
 * transaction with its user_version. Append a step for each change; never edit a shipped one.
 */
const upgrades: Array<(db: Database.Database) => void> = []

type AccountRow = {
  id: number
  email: string
  role: Role
  launches: string | null
  password_hash: string | null
  totp_secret: string | null
  sessions_valid_after: string
  invited_at: string
}
type VersionRow = {
  launch: string
  number: number
  text: string
  by_email: string
  at: string
  message: string | null
  from_disk: number
  restored_from: number | null
}

function accountOf(row: AccountRow): Account {
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

function versionOf(row: VersionRow): StoredVersion {
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
 * Opens (and creates) the studio's database at `file` (DATA_DIR/studio.sqlite), owner-only, WAL with every commit
 * flushed (synchronous=FULL). `npm run studio:invite` opens it while the server runs: SQLite lets both write.
 */
export function openSqliteStudioStore(file: string): StudioStore {
  ensurePrivateFile(file)
  const db = new Database(file)
  db.pragma('busy_timeout = 5000')
  db.pragma('journal_mode = WAL')
  for (const side of [`${file}-wal`, `${file}-shm`]) if (existsSync(side)) chmodSync(side, privateFileMode)
  db.pragma('synchronous = FULL')
  db.pragma('foreign_keys = ON')
  db.pragma('secure_delete = ON')
  const version = db.pragma('user_version', { simple: true }) as number
  if (version < 1) {
    db.transaction(() => {
      db.exec(schemaV1)
      db.pragma('user_version = 1')
    }).immediate()
  }
  upgrades.forEach((upgrade, i) => {
    const target = i + 2
    if (version >= target) return
    db.transaction(() => {
      upgrade(db)
      db.pragma(`user_version = ${target}`)
    }).immediate()
  })

  const accountById = db.prepare<[number], AccountRow>('SELECT * FROM studio_accounts WHERE id = ?')
  const endSessions = db.prepare<[number]>('DELETE FROM studio_sessions WHERE account_id = ?')
  const voidStamp = db.prepare<[string, number]>('UPDATE studio_accounts SET sessions_valid_after = ? WHERE id = ?')
  const insertVersion = db.prepare<unknown[]>(
    `INSERT INTO studio_versions (launch, number, text, by_email, at, message, from_disk, restored_from)
     VALUES (?, (SELECT coalesce(max(number), 0) + 1 FROM studio_versions WHERE launch = ?), ?, ?, ?, ?, ?, ?)
     RETURNING number`,
  )
  /** Ends every session of an account, and voids any that a request in flight might still be creating. */
  const endAllSessions = (id: number, now: Date) => {
    voidStamp.run(now.toISOString(), id)
    endSessions.run(id)
  }

  return {
    async countAccounts() {
      return (db.prepare('SELECT count(*) AS n FROM studio_accounts').get() as { n: number }).n
    },
    async createAccount({ email, role, launches }, now) {
      const address = normalizeEmail(email)
      try {
        const { id } = db
          .prepare<unknown[], { id: number }>(
            `INSERT INTO studio_accounts (email, role, launches, sessions_valid_after, invited_at) VALUES (?, ?, ?, ?, ?) RETURNING id`,
          )
          .get(address, role, launches ? JSON.stringify(launches) : null, now.toISOString(), now.toISOString())!
        return accountOf(accountById.get(id)!)
      } catch (error) {
        if ((error as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE')
          throw new AccountExistsError(`${address} already has an account.`)
        throw error
      }
    },
    async findAccountByEmail(email) {
      const row = db
        .prepare<[string], AccountRow>('SELECT * FROM studio_accounts WHERE email = ?')
        .get(normalizeEmail(email))
      return row ? accountOf(row) : undefined
    },
    async findAccount(id) {
      const row = accountById.get(id)
      return row ? accountOf(row) : undefined
    },
    async listAccounts() {
      return db.prepare<[], AccountRow>('SELECT * FROM studio_accounts ORDER BY email').all().map(accountOf)
    },
    async changeAccess(id, { role, launches }, now) {
      db.transaction(() => {
        db.prepare('UPDATE studio_accounts SET role = ?, launches = ? WHERE id = ?').run(
          role,
          launches ? JSON.stringify(launches) : null,
          id,
        )
        endAllSessions(id, now)
      }).immediate()
    },
    async grantLaunch(id, launch) {
      db.transaction(() => {
        const row = db
          .prepare<[number], { launches: string | null }>('SELECT launches FROM studio_accounts WHERE id = ?')
          .get(id)
        if (!row || row.launches === null) return
        const launches = JSON.parse(row.launches) as string[]
        if (!launches.includes(launch))
          db.prepare('UPDATE studio_accounts SET launches = ? WHERE id = ?').run(
            JSON.stringify([...launches, launch]),
            id,
          )
      }).immediate()
    },
    async setPassword(id, passwordHash, now) {
      db.transaction(() => {
        db.prepare('UPDATE studio_accounts SET password_hash = ? WHERE id = ?').run(passwordHash, id)
        endAllSessions(id, now)
        db.prepare('UPDATE studio_links SET used_at = ? WHERE account_id = ? AND used_at IS NULL').run(
          now.toISOString(),
          id,
        )
      }).immediate()
    },
    async setTotpSecret(id, secret, _now, keepSession) {
      db.transaction(() => {
        db.prepare('UPDATE studio_accounts SET totp_secret = ? WHERE id = ?').run(secret ?? null, id)
        db.prepare('DELETE FROM studio_sessions WHERE account_id = ? AND id_hash IS NOT ?').run(id, keepSession ?? null)
      }).immediate()
    },
    async removeAccount(id) {
      db.transaction(() => {
        endSessions.run(id)
        db.prepare('DELETE FROM studio_links WHERE account_id = ?').run(id)
        db.prepare('DELETE FROM studio_accounts WHERE id = ?').run(id)
      }).immediate()
    },

    async createLink(tokenHash, accountId, purpose, now, expiresAt) {
      db.prepare(
        'INSERT INTO studio_links (token_hash, account_id, purpose, created_at, expires_at) VALUES (?, ?, ?, ?, ?)',
      ).run(tokenHash, accountId, purpose, now.toISOString(), expiresAt.toISOString())
    },
    async findLink(tokenHash, now) {
      const row = db
        .prepare<[string, string], { account_id: number; purpose: LinkPurpose; expires_at: string }>(
          'SELECT account_id, purpose, expires_at FROM studio_links WHERE token_hash = ? AND used_at IS NULL AND expires_at > ?',
        )
        .get(tokenHash, now.toISOString())
      return row ? { accountId: row.account_id, purpose: row.purpose, expiresAt: row.expires_at } : undefined
    },
    async useLink(tokenHash, now) {
      const result = db
        .prepare('UPDATE studio_links SET used_at = ? WHERE token_hash = ? AND used_at IS NULL AND expires_at > ?')
        .run(now.toISOString(), tokenHash, now.toISOString())
      return result.changes === 1
    },

    async createSession(idHash, accountId, now, expiresAt) {
      db.prepare('DELETE FROM studio_sessions WHERE expires_at <= ?').run(now.toISOString())
      db.prepare('INSERT INTO studio_sessions (id_hash, account_id, created_at, expires_at) VALUES (?, ?, ?, ?)').run(
        idHash,
        accountId,
        now.toISOString(),
        expiresAt.toISOString(),
      )
    },
    async findSession(idHash, now) {
      const row = db
        .prepare<[string, string], AccountRow>(
          `SELECT a.* FROM studio_sessions s JOIN studio_accounts a ON a.id = s.account_id
           WHERE s.id_hash = ? AND s.expires_at > ? AND s.created_at >= a.sessions_valid_after`,
        )
        .get(idHash, now.toISOString())
      return row ? accountOf(row) : undefined
    },
    async endSession(idHash) {
      db.prepare('DELETE FROM studio_sessions WHERE id_hash = ?').run(idHash)
    },

    async getDraft(launch) {
      const row = db
        .prepare<[string], { launch: string; text: string; by_email: string; updated_at: string }>(
          'SELECT * FROM studio_drafts WHERE launch = ?',
        )
        .get(launch)
      return row ? { launch: row.launch, text: row.text, by: row.by_email, updatedAt: row.updated_at } : undefined
    },
    async listDrafts() {
      return db
        .prepare<[], { launch: string; text: string; by_email: string; updated_at: string }>(
          'SELECT * FROM studio_drafts ORDER BY launch',
        )
        .all()
        .map((row) => ({ launch: row.launch, text: row.text, by: row.by_email, updatedAt: row.updated_at }))
    },
    async saveDraft(launch, text, by, now) {
      db.prepare(
        `INSERT INTO studio_drafts (launch, text, by_email, updated_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (launch) DO UPDATE SET text = excluded.text, by_email = excluded.by_email, updated_at = excluded.updated_at`,
      ).run(launch, text, by, now.toISOString())
    },
    async deleteDraft(launch) {
      db.prepare('DELETE FROM studio_drafts WHERE launch = ?').run(launch)
    },

    async addVersion(version) {
      const row = insertVersion.get(
        version.launch,
        version.launch,
        version.text,
        version.by,
        version.at,
        version.message ?? null,
        version.fromDisk ? 1 : 0,
        version.restoredFrom ?? null,
      ) as { number: number }
      return row.number
    },
    async addDiskVersion(version) {
      return db
        .transaction(() => {
          const latest = db
            .prepare<[string], { text: string }>(
              'SELECT text FROM studio_versions WHERE launch = ? ORDER BY number DESC LIMIT 1',
            )
            .get(version.launch)
          if (latest?.text === version.text) return undefined
          const row = insertVersion.get(
            version.launch,
            version.launch,
            version.text,
            version.by,
            version.at,
            version.message ?? null,
            version.fromDisk ? 1 : 0,
            version.restoredFrom ?? null,
          )
          return (row as { number: number }).number
        })
        .immediate()
    },
    async listVersions(launch) {
      return db
        .prepare<[string], VersionRow>('SELECT * FROM studio_versions WHERE launch = ? ORDER BY number DESC')
        .all(launch)
        .map(versionOf)
    },
    async getVersion(launch, number) {
      const row = db
        .prepare<[string, number], VersionRow>('SELECT * FROM studio_versions WHERE launch = ? AND number = ?')
        .get(launch, number)
      return row ? versionOf(row) : undefined
    },
    async latestVersion(launch) {
      const row = db
        .prepare<[string], VersionRow>('SELECT * FROM studio_versions WHERE launch = ? ORDER BY number DESC LIMIT 1')
        .get(launch)
      return row ? versionOf(row) : undefined
    },

    async addAudit(entry: StoredAudit) {
      db.prepare('INSERT INTO studio_audit (at, who, action, launch, detail) VALUES (?, ?, ?, ?, ?)').run(
        entry.at,
        entry.who,
        entry.action,
        entry.launch ?? null,
        entry.detail ?? null,
      )
    },
    async listAudit(limit) {
      return db
        .prepare<[number], { at: string; who: string; action: string; launch: string | null; detail: string | null }>(
          'SELECT at, who, action, launch, detail FROM studio_audit ORDER BY id DESC LIMIT ?',
        )
        .all(limit)
        .map((row) => ({
          at: row.at,
          who: row.who,
          action: row.action,
          launch: row.launch ?? undefined,
          detail: row.detail ?? undefined,
        }))
    },
    close() {
      if (db.open) db.close()
    },
  }
}
