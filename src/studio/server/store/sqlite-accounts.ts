import type Database from 'better-sqlite3'
import { AccountExistsError, normalizeEmail, type StudioStore } from '../store.ts'
import { accountOf, settled, type AccountRow } from './sqlite-rows.ts'
import { endAllSessions } from './sqlite-sessions.ts'

type AccountsPart = Pick<
  StudioStore,
  | 'countAccounts'
  | 'createAccount'
  | 'findAccountByEmail'
  | 'findAccount'
  | 'listAccounts'
  | 'changeAccess'
  | 'grantLaunch'
  | 'setPassword'
  | 'setTotpSecret'
  | 'removeAccount'
  | 'useTotpStep'
>

/** Inserts an account without a password; AccountExistsError when the address has one. */
function insertAccount(db: Database.Database, input: Parameters<StudioStore['createAccount']>[0], now: Date) {
  const address = normalizeEmail(input.email)
  try {
    const { id } = db
      .prepare<unknown[], { id: number }>(
        `INSERT INTO studio_accounts (email, role, launches, sessions_valid_after, invited_at) VALUES (?, ?, ?, ?, ?) RETURNING id`,
      )
      .get(
        address,
        input.role,
        input.launches ? JSON.stringify(input.launches) : null,
        now.toISOString(),
        now.toISOString(),
      )!
    return accountOf(db.prepare<[number], AccountRow>('SELECT * FROM studio_accounts WHERE id = ?').get(id)!)
  } catch (error) {
    if ((error as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE')
      throw new AccountExistsError(`${address} already has an account.`)
    throw error
  }
}

/** Adds a launch to an account limited to some; nothing for one that has every launch. */
function addLaunch(db: Database.Database, id: number, launch: string): void {
  db.transaction(() => {
    const row = db
      .prepare<[number], { launches: string | null }>('SELECT launches FROM studio_accounts WHERE id = ?')
      .get(id)
    if (!row || row.launches === null) return
    const launches = JSON.parse(row.launches) as string[]
    if (!launches.includes(launch))
      db.prepare('UPDATE studio_accounts SET launches = ? WHERE id = ?').run(JSON.stringify([...launches, launch]), id)
  }).immediate()
}

/** The accounts part of the studio's SQLite store: who has access, their role, password and second factor. */
export function sqliteAccounts(db: Database.Database): AccountsPart {
  const byId = db.prepare<[number], AccountRow>('SELECT * FROM studio_accounts WHERE id = ?')
  return {
    countAccounts: () =>
      settled(() => (db.prepare('SELECT count(*) AS n FROM studio_accounts').get() as { n: number }).n),
    createAccount: (input, now) => settled(() => insertAccount(db, input, now)),
    findAccountByEmail: (email) =>
      settled(() => {
        const row = db
          .prepare<[string], AccountRow>('SELECT * FROM studio_accounts WHERE email = ?')
          .get(normalizeEmail(email))
        return row ? accountOf(row) : undefined
      }),
    findAccount: (id) =>
      settled(() => {
        const row = byId.get(id)
        return row ? accountOf(row) : undefined
      }),
    listAccounts: () =>
      settled(() => db.prepare<[], AccountRow>('SELECT * FROM studio_accounts ORDER BY email').all().map(accountOf)),
    changeAccess: (id, { role, launches }, now) =>
      settled(() =>
        db
          .transaction(() => {
            db.prepare('UPDATE studio_accounts SET role = ?, launches = ? WHERE id = ?').run(
              role,
              launches ? JSON.stringify(launches) : null,
              id,
            )
            endAllSessions(db, id, now)
          })
          .immediate(),
      ),
    grantLaunch: (id, launch) => settled(() => addLaunch(db, id, launch)),
    setPassword: (id, passwordHash, now) =>
      settled(() =>
        db
          .transaction(() => {
            db.prepare('UPDATE studio_accounts SET password_hash = ? WHERE id = ?').run(passwordHash, id)
            endAllSessions(db, id, now)
            db.prepare('UPDATE studio_links SET used_at = ? WHERE account_id = ? AND used_at IS NULL').run(
              now.toISOString(),
              id,
            )
          })
          .immediate(),
      ),
    setTotpSecret: (id, secret, _now, keepSession) =>
      settled(() =>
        db
          .transaction(() => {
            db.prepare('UPDATE studio_accounts SET totp_secret = ? WHERE id = ?').run(secret ?? null, id)
            db.prepare('DELETE FROM studio_sessions WHERE account_id = ? AND id_hash IS NOT ?').run(
              id,
              keepSession ?? null,
            )
          })
          .immediate(),
      ),
    useTotpStep: (id, step) =>
      settled(
        () =>
          db
            .prepare('UPDATE studio_accounts SET totp_step = ? WHERE id = ? AND (totp_step IS NULL OR totp_step < ?)')
            .run(step, id, step).changes === 1,
      ),
    removeAccount: (id) =>
      settled(() =>
        db
          .transaction(() => {
            db.prepare('DELETE FROM studio_sessions WHERE account_id = ?').run(id)
            db.prepare('DELETE FROM studio_links WHERE account_id = ?').run(id)
            db.prepare('DELETE FROM studio_accounts WHERE id = ?').run(id)
          })
          .immediate(),
      ),
  }
}
