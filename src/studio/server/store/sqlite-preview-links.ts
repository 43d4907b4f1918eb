import type Database from 'better-sqlite3'
import type { StoredPreviewLink, StudioStore } from '../store.ts'
import { settled } from './sqlite-rows.ts'

type PreviewLinkRow = {
  id: number
  launch: string
  phase: string | null
  text: string
  account_id: number
  email: string
  created_at: string
  expires_at: string
  revoked_at: string | null
}

const linkOf = (row: PreviewLinkRow): StoredPreviewLink => ({
  id: row.id,
  launch: row.launch,
  phase: row.phase ?? undefined,
  text: row.text,
  accountId: row.account_id,
  madeBy: row.email,
  createdAt: row.created_at,
  expiresAt: row.expires_at,
  revokedAt: row.revoked_at ?? undefined,
})

// A link whose maker was removed is gone with them (ON DELETE CASCADE); the join keeps only makers still there.
const live = `SELECT p.*, a.email FROM studio_preview_links p JOIN studio_accounts a ON a.id = p.account_id
  WHERE p.revoked_at IS NULL AND p.expires_at > ?`

/** The preview links part of the studio's SQLite store: kept by their token's hash, each bound to its text. */
export function sqlitePreviewLinks(
  db: Database.Database,
): Pick<StudioStore, 'createPreviewLink' | 'findPreviewLink' | 'listPreviewLinks' | 'revokePreviewLink'> {
  return {
    createPreviewLink: (link) =>
      settled(
        () =>
          db
            .prepare<unknown[], { id: number }>(
              `INSERT INTO studio_preview_links (token_hash, launch, phase, text, account_id, created_at, expires_at)
               VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id`,
            )
            .get(
              link.tokenHash,
              link.launch,
              link.phase ?? null,
              link.text,
              link.accountId,
              link.createdAt,
              link.expiresAt,
            )!.id,
      ),
    findPreviewLink: (tokenHash, now) =>
      settled(() => {
        const row = db
          .prepare<[string, string], PreviewLinkRow>(`${live} AND p.token_hash = ?`)
          .get(now.toISOString(), tokenHash)
        return row ? linkOf(row) : undefined
      }),
    listPreviewLinks: (launch, now) =>
      settled(() =>
        db
          .prepare<[string, string], PreviewLinkRow>(`${live} AND p.launch = ? ORDER BY p.id DESC`)
          .all(now.toISOString(), launch)
          .map(linkOf),
      ),
    revokePreviewLink: (launch, id, now) =>
      settled(
        () =>
          db
            .prepare(
              'UPDATE studio_preview_links SET revoked_at = ? WHERE id = ? AND launch = ? AND revoked_at IS NULL',
            )
            .run(now.toISOString(), id, launch).changes === 1,
      ),
  }
}
