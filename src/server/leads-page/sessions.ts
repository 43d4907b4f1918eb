import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto'
import { existsSync } from 'node:fs'
import Database from 'better-sqlite3'
import { ensurePrivateFile } from '../store/private-files.ts'

/**
 * The leads page's sign-in: the password check and the sessions, kept server-side (in their own SQLite file,
 * DATA_DIR/leads-page.sqlite, or with DATABASE_URL in PostgreSQL: postgres-sessions.ts), so signing out ends a session
 * for good and the search text never travels in a URL. Node only: the leads page runs on the Node server.
 */

/**
 * What the list is narrowed to, kept in the session, never in a URL: a search text, a launch's slug, a status, an
 * assignee (filter-view.ts: unassignedFilter for nobody), realtors ('yes') or buyers ('no'), and a range of days
 * (YYYY-MM-DD, in the team's time zone). '' for any of them: no narrowing.
 */
export type LeadsFilter = {
  text: string
  launch: string
  status: string
  assignee: string
  realtor: '' | 'yes' | 'no'
  from: string
  to: string
}

/** A filter that narrows nothing. */
export const emptyFilter: LeadsFilter = {
  text: '',
  launch: '',
  status: '',
  assignee: '',
  realtor: '',
  from: '',
  to: '',
}

/** A signed-in session. */
export type LeadsSession = { expiresAt: Date; filter: LeadsFilter }

/**
 * The sessions of the leads page. The cookie holds a random token; only its SHA-256 is stored. Two implementations:
 * SQLite (openSessionStore, DATA_DIR/leads-page.sqlite) and PostgreSQL (postgres-sessions.ts, with DATABASE_URL);
 * mount-leads-page.ts's openLeadsPageSessions picks one.
 */
export type SessionStore = {
  /** Starts a session lasting `ttlMs` and returns its token (for the cookie). Forgets expired sessions. */
  create(now: Date, ttlMs: number): Promise<string>
  /** The session of a token, unless it is unknown, expired or made under another password. */
  find(token: string, now: Date): Promise<LeadsSession | undefined>
  /** Replaces the session's filter. */
  saveFilter(token: string, filter: LeadsFilter): Promise<void>
  /** Ends the session (sign-out). */
  end(token: string): Promise<void>
  /**
   * The filter kept for a studio account's session (`key`: the studio's hash of its session), or an empty one. Kept in
   * the same table as the password sessions' (so erasure and `leads:access` find its search), but never a session:
   * no leads cookie finds it.
   */
  accountFilter(key: string, now: Date): Promise<LeadsFilter>
  /** Keeps the filter of a studio account's session for `ttlMs` (its session's length). */
  saveAccountFilter(key: string, filter: LeadsFilter, now: Date, ttlMs: number): Promise<void>
  close(): void
}

const schema = `
CREATE TABLE IF NOT EXISTS sessions (
  token_hash TEXT    PRIMARY KEY,
  expires_at INTEGER NOT NULL,
  filter     TEXT    NOT NULL DEFAULT '{"text":""}'
);
CREATE INDEX IF NOT EXISTS sessions_expiry ON sessions (expires_at);
CREATE TABLE IF NOT EXISTS session_settings (
  name  TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
`

/** The tag of a studio account's filter row: not hex, so never a password's tag. */
/** A synchronous step as a promise: what it returns, or its error as a rejection (as an async function would). */
function settle<T>(step: () => T): Promise<T> {
  return new Promise((resolve) => resolve(step()))
}

export const accountTag = 'studio-account'

/**
 * A stored filter (JSON text, or the object PostgreSQL's jsonb gives) as a whole LeadsFilter: what is missing is ''.
 */
export function filterOf(stored: string | object): LeadsFilter {
  const filter = (typeof stored === 'string' ? JSON.parse(stored) : stored) as Partial<
    Record<keyof LeadsFilter, unknown>
  >
  const read = (key: keyof LeadsFilter) => {
    const value = filter[key]
    return typeof value === 'string' ? value : ''
  }
  const realtor = read('realtor')
  return {
    text: read('text'),
    launch: read('launch'),
    status: read('status'),
    assignee: read('assignee'),
    realtor: realtor === 'yes' || realtor === 'no' ? realtor : '',
    from: read('from'),
    to: read('to'),
  }
}

/** What is stored of a token: its SHA-256, hex. */
export function hashOf(token: string): string {
  return createHash('sha256').update(token).digest('hex')
}

/** The row a studio account's filter is kept under (never a password session's token hash). */
export function accountRowOf(key: string): string {
  return `account:${hashOf(key)}`
}

/** The tag binding sessions to a password: an HMAC of it under the store's random key (hex). */
export function passwordTagOf(keyHex: string, password: string): string {
  return createHmac('sha256', Buffer.from(keyHex, 'hex')).update(password, 'utf8').digest('hex')
}

/**
 * Opens (and creates) the session file, owner-only like everything in DATA_DIR (a session holds the search typed,
 * which may be a name). Every session is bound to `password` (LEADS_PASSWORD), by a keyed hash of it under a random
 * key kept in the file: opened with another password, every session made with the old one is deleted, so changing
 * the password signs everyone out.
 */
export function openSessionStore(file: string, password: string): SessionStore {
  ensurePrivateFile(file)
  const db = new Database(file)
  db.pragma('journal_mode = WAL')
  // A search typed (a name, an address) leaves the file's bytes when its session goes.
  db.pragma('secure_delete = ON')
  db.exec(schema)
  if (
    !(db.pragma('table_info(sessions)') as Array<{ name: string }>).some((column) => column.name === 'password_tag')
  ) {
    db.exec("ALTER TABLE sessions ADD COLUMN password_tag TEXT NOT NULL DEFAULT ''")
  }
  db.prepare("INSERT INTO session_settings (name, value) VALUES ('password_key', ?) ON CONFLICT DO NOTHING").run(
    randomBytes(32).toString('hex'),
  )
  const key = db.prepare<[], { value: string }>("SELECT value FROM session_settings WHERE name = 'password_key'").get()!
    .value
  const passwordTag = passwordTagOf(key, password)
  // Studio accounts' filters are not bound to the password (their rows' tag is `accountTag`, never an HMAC).
  db.prepare('DELETE FROM sessions WHERE password_tag <> ? AND password_tag <> ?').run(passwordTag, accountTag)
  const insert = db.prepare<[string, number, string]>(
    'INSERT INTO sessions (token_hash, expires_at, password_tag) VALUES (?, ?, ?)',
  )
  const purge = db.prepare<[number]>('DELETE FROM sessions WHERE expires_at <= ?')
  const select = db.prepare<[string, number, string], { expires_at: number; filter: string }>(
    'SELECT expires_at, filter FROM sessions WHERE token_hash = ? AND expires_at > ? AND password_tag = ?',
  )
  const update = db.prepare<[string, string]>('UPDATE sessions SET filter = ? WHERE token_hash = ?')
  const remove = db.prepare<[string]>('DELETE FROM sessions WHERE token_hash = ?')
  const selectAccount = db.prepare<[string, number, string], { filter: string }>(
    'SELECT filter FROM sessions WHERE token_hash = ? AND expires_at > ? AND password_tag = ?',
  )
  const upsertAccount = db.prepare<[string, number, string, string]>(
    'INSERT INTO sessions (token_hash, expires_at, filter, password_tag) VALUES (?, ?, ?, ?) ON CONFLICT (token_hash) DO UPDATE SET expires_at = excluded.expires_at, filter = excluded.filter',
  )
  return {
    create: (now, ttlMs) =>
      settle(() => {
        purge.run(now.getTime())
        const token = randomBytes(32).toString('base64url')
        insert.run(hashOf(token), now.getTime() + ttlMs, passwordTag)
        return token
      }),
    find: (token, now) =>
      settle(() => {
        const row = select.get(hashOf(token), now.getTime(), passwordTag)
        if (!row) return undefined
        return { expiresAt: new Date(row.expires_at), filter: filterOf(row.filter) }
      }),
    saveFilter: (token, filter) =>
      settle(() => {
        update.run(JSON.stringify(filter), hashOf(token))
      }),
    end: (token) =>
      settle(() => {
        remove.run(hashOf(token))
      }),
    accountFilter: (key, now) =>
      settle(() => {
        const row = selectAccount.get(accountRowOf(key), now.getTime(), accountTag)
        return row ? filterOf(row.filter) : { ...emptyFilter }
      }),
    saveAccountFilter: (key, filter, now, ttlMs) =>
      settle(() => {
        purge.run(now.getTime())
        upsertAccount.run(accountRowOf(key), now.getTime() + ttlMs, JSON.stringify(filter), accountTag)
      }),
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

/**
 * Erases from the leads page's sessions (DATA_DIR/leads-page.sqlite) every search that holds `address`, for
 * `npm run leads:erase`: the search text goes, the freed bytes are overwritten and the WAL is emptied, so no copy of
 * the address is left in the file. Returns how many searches held it; 0 when there is no such file.
 */
export async function eraseSearchesFor(file: string, address: string): Promise<number> {
  if (!existsSync(file)) return 0
  const db = new Database(file)
  try {
    db.pragma('busy_timeout = 5000')
    db.pragma('secure_delete = ON')
    const changed = db
      .prepare<[string]>(
        `UPDATE sessions SET filter = json_set(filter, '$.text', '') WHERE instr(lower(json_extract(filter, '$.text')), lower(?)) > 0`,
      )
      .run(address.trim()).changes
    // The running server may read at this moment and hold the checkpoint back: try for up to 5 s.
    for (let attempt = 0; ; attempt++) {
      const [result] = db.pragma('wal_checkpoint(TRUNCATE)') as Array<{ busy: number }>
      if (result?.busy === 0) break
      if (attempt === 50) throw new Error(`${file} is busy: its journal could not be emptied. Run the erasure again.`)
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    return changed
  } finally {
    db.close()
  }
}
