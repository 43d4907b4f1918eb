import type Database from 'better-sqlite3'
import type { LinkPurpose, StudioStore } from '../store.ts'
import { settled } from './sqlite-rows.ts'

/** The one-time links part of the studio's SQLite store (invitations and resets), kept by their token's hash. */
export function sqliteLinks(
  db: Database.Database,
): Pick<StudioStore, 'createLink' | 'countLinksSince' | 'findLink' | 'useLink'> {
  return {
    createLink: (tokenHash, accountId, purpose, now, expiresAt) =>
      settled(() =>
        db
          .transaction(() => {
            db.prepare(
              'UPDATE studio_links SET used_at = ? WHERE account_id = ? AND purpose = ? AND used_at IS NULL',
            ).run(now.toISOString(), accountId, purpose)
            db.prepare(
              'INSERT INTO studio_links (token_hash, account_id, purpose, created_at, expires_at) VALUES (?, ?, ?, ?, ?)',
            ).run(tokenHash, accountId, purpose, now.toISOString(), expiresAt.toISOString())
          })
          .immediate(),
      ),
    countLinksSince: (accountId, purpose, since) =>
      settled(
        () =>
          (
            db
              .prepare(
                'SELECT count(*) AS n FROM studio_links WHERE account_id = ? AND purpose = ? AND created_at >= ?',
              )
              .get(accountId, purpose, since.toISOString()) as { n: number }
          ).n,
      ),
    findLink: (tokenHash, now) =>
      settled(() => {
        const row = db
          .prepare<[string, string], { account_id: number; purpose: LinkPurpose; expires_at: string }>(
            'SELECT account_id, purpose, expires_at FROM studio_links WHERE token_hash = ? AND used_at IS NULL AND expires_at > ?',
          )
          .get(tokenHash, now.toISOString())
        return row ? { accountId: row.account_id, purpose: row.purpose, expiresAt: row.expires_at } : undefined
      }),
    useLink: (tokenHash, now) =>
      settled(() => {
        const result = db
          .prepare('UPDATE studio_links SET used_at = ? WHERE token_hash = ? AND used_at IS NULL AND expires_at > ?')
          .run(now.toISOString(), tokenHash, now.toISOString())
        return result.changes === 1
      }),
  }
}
