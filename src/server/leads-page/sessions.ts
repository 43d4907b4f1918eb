import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto'
import Database from 'better-sqlite3'
import { ensurePrivateFile } from '../store/private-files.ts'

/**
 * The leads page's sign-in: the password check and the sessions, kept server-side in their own SQLite file
 * (DATA_DIR/leads-page.sqlite), so signing out ends a session for good and the search text never travels in a
 * URL. Node only: the leads page runs on the Node server.
 */

/** What the list is narrowed to: a search text and a launch's slug ('' for either: all); kept in the session, never in a URL. */
export type LeadsFilter = { text: string; launch: string }

/** A signed-in session. */
export type LeadsSession = { expiresAt: Date; filter: LeadsFilter }

/** The sessions of the leads page. The cookie holds a random token; only its SHA-256 is stored. */
export type SessionStore = {
  /** Starts a session lasting `ttlMs` and returns its token (for the cookie). Forgets expired sessions. */
  create(now: Date, ttlMs: number): string
  /** The session of a token, unless it is unknown or expired. */
  find(token: string, now: Date): LeadsSession | undefined
  /** Replaces the session's filter. */
  saveFilter(token: string, filter: LeadsFilter): void
  /** Ends the session (sign-out). */
  end(token: string): void
  close(): void
}

const schema = `
CREATE TABLE IF NOT EXISTS sessions (
  token_hash TEXT    PRIMARY KEY,
  expires_at INTEGER NOT NULL,
  filter     TEXT    NOT NULL DEFAULT '{"text":""}'
);
CREATE INDEX IF NOT EXISTS sessions_expiry ON sessions (expires_at);
`

function hashOf(token: string): string {
  return createHash('sha256').update(token).digest('hex')
}

/**
 * Opens (and creates) the session file, owner-only like everything in DATA_DIR (a session holds the search typed,
 * which may be a name).
 */
export function openSessionStore(file: string): SessionStore {
  ensurePrivateFile(file)
  const db = new Database(file)
  db.pragma('journal_mode = WAL')
  db.exec(schema)
  const insert = db.prepare<[string, number]>('INSERT INTO sessions (token_hash, expires_at) VALUES (?, ?)')
  const purge = db.prepare<[number]>('DELETE FROM sessions WHERE expires_at <= ?')
  const select = db.prepare<[string, number], { expires_at: number; filter: string }>(
    'SELECT expires_at, filter FROM sessions WHERE token_hash = ? AND expires_at > ?',
  )
  const update = db.prepare<[string, string]>('UPDATE sessions SET filter = ? WHERE token_hash = ?')
  const remove = db.prepare<[string]>('DELETE FROM sessions WHERE token_hash = ?')
  return {
    create(now, ttlMs) {
      purge.run(now.getTime())
      const token = randomBytes(32).toString('base64url')
      insert.run(hashOf(token), now.getTime() + ttlMs)
      return token
    },
    find(token, now) {
      const row = select.get(hashOf(token), now.getTime())
      if (!row) return undefined
      const filter = JSON.parse(row.filter) as Partial<LeadsFilter>
      return {
        expiresAt: new Date(row.expires_at),
        filter: { text: typeof filter.text === 'string' ? filter.text : '', launch: typeof filter.launch === 'string' ? filter.launch : '' },
      }
    },
    saveFilter(token, filter) {
      update.run(JSON.stringify(filter), hashOf(token))
    },
    end(token) {
      remove.run(hashOf(token))
    },
    close() {
      if (db.open) db.close()
    },
  }
}

/**
 * A check of the leads password in constant time: both sides are HMACs under a random key, so they have the same
 * length whatever was typed, and timingSafeEqual compares them without an early exit.
 */
export function createPasswordCheck(password: string): (attempt: string) => boolean {
  const key = randomBytes(32)
  const mac = (text: string) => createHmac('sha256', key).update(text, 'utf8').digest()
  const expected = mac(password)
  return (attempt) => timingSafeEqual(mac(attempt), expected)
}
