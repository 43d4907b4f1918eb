import { promised } from '../sqlite/sqlite-promised.ts'
import type Database from 'better-sqlite3'
import type { SignInCounts } from '../sign-in-counts.ts'

/**
 * The sign-in counts' tables in SQLite (schema version 7 of sqlite-store.ts), as
 * supabase/migrations/20251226000000_sign_in_limits.sql makes them in PostgreSQL. Times are milliseconds.
 */
export const sqliteSignInSchema = `
CREATE TABLE IF NOT EXISTS sign_in_failures (
  key       TEXT    NOT NULL,
  failed_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS sign_in_failures_key ON sign_in_failures (key, failed_at);
CREATE INDEX IF NOT EXISTS sign_in_failures_age ON sign_in_failures (failed_at);
CREATE TABLE IF NOT EXISTS sign_in_devices (
  device_hash TEXT    NOT NULL PRIMARY KEY,
  account     TEXT    NOT NULL,
  expires_at  INTEGER NOT NULL
);
`

/** The sign-in counts in an open SQLite database that has sqliteSignInSchema. */
export function createSqliteSignInCounts(db: Database.Database): SignInCounts {
  const add = db.transaction((keys: readonly string[], at: number, forgetBefore: number) => {
    db.prepare('DELETE FROM sign_in_failures WHERE failed_at < ?').run(forgetBefore)
    const insert = db.prepare('INSERT INTO sign_in_failures (key, failed_at) VALUES (?, ?)')
    for (const key of keys) insert.run(key, at)
  })
  return promised<SignInCounts>({
    addSignInFailure(keys, at, forgetBefore) {
      add.immediate(keys, at.getTime(), forgetBefore.getTime())
    },
    countSignInFailures(keys, since) {
      const rows = db
        .prepare<[string, number], { key: string; failures: number; oldest: number }>(
          `SELECT key, count(*) AS failures, min(failed_at) AS oldest FROM sign_in_failures
           WHERE key IN (SELECT value FROM json_each(?)) AND failed_at > ? GROUP BY key`,
        )
        .all(JSON.stringify(keys), since.getTime())
      return rows.map((row) => ({ key: row.key, failures: row.failures, oldestAt: new Date(row.oldest) }))
    },
    saveSignInDevice(deviceHash, account, expiresAt, now) {
      db.transaction(() => {
        db.prepare('DELETE FROM sign_in_devices WHERE expires_at <= ?').run(now.getTime())
        db.prepare(
          'INSERT INTO sign_in_devices (device_hash, account, expires_at) VALUES (?, ?, ?) ON CONFLICT (device_hash) DO UPDATE SET account = excluded.account, expires_at = excluded.expires_at',
        ).run(deviceHash, account, expiresAt.getTime())
      }).immediate()
    },
    isSignInDevice(deviceHash, account, now) {
      return (
        db
          .prepare('SELECT 1 FROM sign_in_devices WHERE device_hash = ? AND account = ? AND expires_at > ?')
          .get(deviceHash, account, now.getTime()) !== undefined
      )
    },
  })
}
