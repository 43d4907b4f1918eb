import type { SignInCounts } from '../sign-in-counts.ts'

/** What the counts need of a Postgres client (postgres-store.ts's SqlQueryable: a pg.Pool, PGlite). */
type Queryable = { query(text: string, params?: unknown[]): Promise<{ rows: unknown[] }> }

/**
 * The sign-in counts in PostgreSQL (supabase/migrations/20251226000000_sign_in_limits.sql). Each write is one
 * statement, so servers sharing the database count together without holding a connection across awaits.
 */
export function createPostgresSignInCounts(db: Queryable): SignInCounts {
  return {
    async addSignInFailure(keys, at, forgetBefore) {
      await db.query(
        `WITH forgotten AS (DELETE FROM public.sign_in_failures WHERE failed_at < $3)
         INSERT INTO public.sign_in_failures (key, failed_at) SELECT unnest($1::text[]), $2`,
        [keys, at, forgetBefore],
      )
    },
    async countSignInFailures(keys, since) {
      const { rows } = await db.query(
        `SELECT key, count(*)::int AS failures, min(failed_at) AS oldest FROM public.sign_in_failures
         WHERE key = ANY($1::text[]) AND failed_at > $2 GROUP BY key`,
        [keys, since],
      )
      return (rows as Array<{ key: string; failures: number; oldest: Date | string }>).map((row) => ({
        key: row.key,
        failures: Number(row.failures),
        oldestAt: new Date(row.oldest),
      }))
    },
    async saveSignInDevice(deviceHash, account, expiresAt, now) {
      await db.query(
        `WITH forgotten AS (DELETE FROM public.sign_in_devices WHERE expires_at <= $4)
         INSERT INTO public.sign_in_devices (device_hash, account, expires_at) VALUES ($1, $2, $3)
         ON CONFLICT (device_hash) DO UPDATE SET account = excluded.account, expires_at = excluded.expires_at`,
        [deviceHash, account, expiresAt, now],
      )
    },
    async isSignInDevice(deviceHash, account, now) {
      const { rows } = await db.query(
        'SELECT 1 FROM public.sign_in_devices WHERE device_hash = $1 AND account = $2 AND expires_at > $3',
        [deviceHash, account, now],
      )
      return rows.length > 0
    },
  }
}
