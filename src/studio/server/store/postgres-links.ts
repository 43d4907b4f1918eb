import type { SqlQueryable } from '../../../server/store/sql-queryable.ts'
import type { LinkPurpose, StudioStore } from '../store.ts'
import { all, iso, one, type Id, type Time } from './postgres-rows.ts'

/** The one-time links part of the studio's PostgreSQL store (invitations and resets), kept by their token's hash. */
export function postgresLinks(
  db: SqlQueryable,
): Pick<StudioStore, 'createLink' | 'countLinksSince' | 'findLink' | 'useLink'> {
  return {
    async createLink(tokenHash, accountId, purpose, now, expiresAt) {
      // The older unused links of the account and purpose end in the same statement as the new one is made.
      await db.query(
        `WITH voided AS (
           UPDATE public.studio_links SET used_at = $4 WHERE account_id = $2 AND purpose = $3 AND used_at IS NULL
         )
         INSERT INTO public.studio_links (token_hash, account_id, purpose, created_at, expires_at) VALUES ($1, $2, $3, $4, $5)`,
        [tokenHash, accountId, purpose, now.toISOString(), expiresAt.toISOString()],
      )
    },
    async countLinksSince(accountId, purpose, since) {
      const row = await one<{ n: number }>(
        db,
        'SELECT count(*)::int AS n FROM public.studio_links WHERE account_id = $1 AND purpose = $2 AND created_at >= $3',
        [accountId, purpose, since.toISOString()],
      )
      return row!.n
    },
    async findLink(tokenHash, now) {
      const row = await one<{ account_id: Id; purpose: LinkPurpose; expires_at: Time }>(
        db,
        'SELECT account_id, purpose, expires_at FROM public.studio_links WHERE token_hash = $1 AND used_at IS NULL AND expires_at > $2',
        [tokenHash, now.toISOString()],
      )
      return row
        ? { accountId: Number(row.account_id), purpose: row.purpose, expiresAt: iso(row.expires_at) }
        : undefined
    },
    async useLink(tokenHash, now) {
      // A second UPDATE of the row waits for the first to commit, then reads used_at again: only one gets the row back.
      const rows = await all(
        db,
        'UPDATE public.studio_links SET used_at = $2 WHERE token_hash = $1 AND used_at IS NULL AND expires_at > $2 RETURNING token_hash',
        [tokenHash, now.toISOString()],
      )
      return rows.length === 1
    },
  }
}
