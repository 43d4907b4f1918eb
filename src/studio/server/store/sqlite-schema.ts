import { chmodSync, existsSync } from 'node:fs'
import Database from 'better-sqlite3'
import { ensurePrivateFile, privateFileMode } from '../../../server/store/private-files.ts'
import { sqliteTeamSchema } from './sqlite-team.ts'

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
const upgrades: Array<(db: Database.Database) => void> = [
  // 2: TOTP codes used once (issue 42, item 5); preview links kept on the server, bound to a text (item 8).
  (db) =>
    db.exec(`
      ALTER TABLE studio_accounts ADD COLUMN totp_step INTEGER;
      CREATE TABLE studio_preview_links (
        id         INTEGER PRIMARY KEY,
        token_hash TEXT    NOT NULL UNIQUE,
        launch     TEXT    NOT NULL,
        phase      TEXT,
        text       TEXT    NOT NULL,
        account_id INTEGER NOT NULL REFERENCES studio_accounts(id) ON DELETE CASCADE,
        created_at TEXT    NOT NULL,
        expires_at TEXT    NOT NULL,
        revoked_at TEXT
      );
      CREATE INDEX studio_preview_links_launch ON studio_preview_links (launch);
    `),
  // 3: draft versions and who has a launch open (issue 44, a team on one launch: sqlite-team.ts).
  (db) => db.exec(sqliteTeamSchema),
]

/** Brings a database to the newest schema, one transaction per version. */
function migrate(db: Database.Database): void {
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
}

/**
 * Opens (and creates) the studio's database file, owner-only, WAL with every commit flushed (synchronous=FULL),
 * foreign keys on and deleted rows overwritten, at the newest schema.
 */
export function openStudioDatabase(file: string): Database.Database {
  ensurePrivateFile(file)
  const db = new Database(file)
  db.pragma('busy_timeout = 5000')
  db.pragma('journal_mode = WAL')
  for (const side of [`${file}-wal`, `${file}-shm`]) if (existsSync(side)) chmodSync(side, privateFileMode)
  db.pragma('synchronous = FULL')
  db.pragma('foreign_keys = ON')
  db.pragma('secure_delete = ON')
  migrate(db)
  return db
}
