import type { SqlQueryable } from '../../../server/store/sql-queryable.ts'
import type { StoredPreviewLink, StudioStore } from '../store.ts'
import { all, iso, one, type Id, type Time } from './postgres-rows.ts'

type PreviewLinkRow = {
  id: Id
  launch: string
  phase: string | null
  text: string
  account_id: Id
  email: string
  created_at: Time
  expires_at: Time
  revoked_at: Time | null
}

const linkOf = (row: PreviewLinkRow): StoredPreviewLink => ({
  id: Number(row.id),
  launch: row.launch,
  phase: row.phase ?? undefined,
  text: row.text,
  accountId: Number(row.account_id),
  madeBy: row.email,
  createdAt: iso(row.created_at),
  expiresAt: iso(row.expires_at),
  revokedAt: row.revoked_at === null ? undefined : iso(row.revoked_at),
})

// A link whose maker was removed is gone with them (ON DELETE CASCADE); the join keeps only makers still there.
const live = `SELECT p.id, p.launch, p.phase, p.text, p.account_id, p.created_at, p.expires_at, p.revoked_at, a.email
  FROM public.studio_preview_links p JOIN public.studio_accounts a ON a.id = p.account_id
  WHERE p.revoked_at IS NULL AND p.expires_at > $1`

/** The preview links part of the studio's PostgreSQL store: kept by their token's hash, each bound to its text. */
export function postgresPreviewLinks(
  db: SqlQueryable,
): Pick<StudioStore, 'createPreviewLink' | 'findPreviewLink' | 'listPreviewLinks' | 'revokePreviewLink'> {
  return {
    async createPreviewLink(link) {
      const row = await one<{ id: Id }>(
        db,
        `INSERT INTO public.studio_preview_links (token_hash, launch, phase, text, account_id, created_at, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id`,
        [link.tokenHash, link.launch, link.phase ?? null, link.text, link.accountId, link.createdAt, link.expiresAt],
      )
      return Number(row!.id)
    },
    async findPreviewLink(tokenHash, now) {
      const row = await one<PreviewLinkRow>(db, `${live} AND p.token_hash = $2`, [now.toISOString(), tokenHash])
      return row ? linkOf(row) : undefined
    },
    async listPreviewLinks(launch, now) {
      const rows = await all<PreviewLinkRow>(db, `${live} AND p.launch = $2 ORDER BY p.id DESC`, [
        now.toISOString(),
        launch,
      ])
      return rows.map(linkOf)
    },
    async revokePreviewLink(launch, id, now) {
      const rows = await all(
        db,
        'UPDATE public.studio_preview_links SET revoked_at = $3 WHERE id = $1 AND launch = $2 AND revoked_at IS NULL RETURNING id',
        [id, launch, now.toISOString()],
      )
      return rows.length === 1
    },
  }
}
