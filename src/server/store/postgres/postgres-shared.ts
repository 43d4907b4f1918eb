import { randomBytes } from 'node:crypto'
import { Buffer } from 'node:buffer'
import type { SqlQueryable } from './postgres-store.ts'

/**
 * What several Node servers on one PostgreSQL share besides the leads
 * (supabase/migrations/20260104000000_node_servers.sql):
 * the registration rate limit's counts, the keys they must agree on, the visit counter's salt and today's visitors,
 * and which of them runs a once-a-day job. Each call is one statement (or a few that are each safe alone), so no
 * connection is held across awaits.
 */

/** A rate limit's verdict (registration/rate-limit.ts's RateVerdict). */
type Verdict = { allowed: true } | { allowed: false; retryAfterSeconds: number }

/**
 * The registration rate limit (RATE_LIMIT_PER_MINUTE) counted in the database, in fixed one-minute windows: a
 * registration/rate-limit.ts RateLimiter whose counts every server adds to.
 */
export function createPostgresRateLimiter(
  db: SqlQueryable,
  perMinute: number,
): { hit(key: string, nowMs: number): Promise<Verdict> } {
  let swept = 0
  return {
    async hit(key, nowMs) {
      if (perMinute <= 0) return { allowed: true }
      const windowStart = Math.floor(nowMs / 60_000) * 60_000
      // Past windows go once a minute per server; a single DELETE of rows nobody counts any more.
      if (windowStart > swept) {
        swept = windowStart
        await db.query('DELETE FROM public.rate_limit_counts WHERE window_start < $1', [
          new Date(windowStart).toISOString(),
        ])
      }
      const { rows } = await db.query(
        `INSERT INTO public.rate_limit_counts (key, window_start, hits) VALUES ($1, $2, 1)
         ON CONFLICT (key, window_start) DO UPDATE SET hits = rate_limit_counts.hits + 1
         RETURNING hits`,
        [key, new Date(windowStart).toISOString()],
      )
      const hits = (rows[0] as { hits: number }).hits
      if (hits <= perMinute) return { allowed: true }
      return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((windowStart + 60_000 - nowMs) / 1000)) }
    },
  }
}

/**
 * The key named `name` that every server uses: the first to ask stores `proposed` (this server's own key file, so
 * links it signed before still work, or 32 random bytes as hex), and every server then reads that one.
 */
export async function sharedSecret(
  db: SqlQueryable,
  name: string,
  proposed = randomBytes(32).toString('hex'),
): Promise<string> {
  await db.query('INSERT INTO public.server_secrets (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING', [
    name,
    proposed,
  ])
  const { rows } = await db.query('SELECT value FROM public.server_secrets WHERE name = $1', [name])
  return (rows[0] as { value: string }).value
}

/**
 * Claims today's run of `job` (`day` as YYYY-MM-DD) for this server: true for the one server that claims it first.
 * `release` gives a claim back (the job failed), so another server, or the next try, runs it.
 */
export function createDailyRuns(db: SqlQueryable) {
  return {
    async claim(job: string, day: string): Promise<boolean> {
      const { rows } = await db.query(
        'INSERT INTO public.daily_runs (job, day) VALUES ($1, $2) ON CONFLICT DO NOTHING RETURNING 1',
        [job, day],
      )
      return rows.length === 1
    },
    async release(job: string, day: string): Promise<void> {
      await db.query('DELETE FROM public.daily_runs WHERE job = $1 AND day = $2', [job, day])
    },
  }
}

/** The visit counter's shared day: one salt a day for every server, and which visitors (salted hashes) were seen. */
export type SharedVisitors = {
  /** The salt of `day` (YYYY-MM-DD in the team's time zone); the salts and visitors of earlier days are deleted. */
  saltOf(day: string): Promise<Buffer>
  /** Records the visitors of `day`; returns those no server had seen that day. */
  firstSeen(day: string, visitors: string[]): Promise<Set<string>>
}

/** SharedVisitors in the database. */
export function createPostgresVisitors(db: SqlQueryable): SharedVisitors {
  return {
    async saltOf(day) {
      await db.query('DELETE FROM public.visit_salts WHERE day < $1::date', [day])
      await db.query('DELETE FROM public.visit_visitors WHERE day < $1::date', [day])
      await db.query('INSERT INTO public.visit_salts (day, salt) VALUES ($1::date, $2) ON CONFLICT (day) DO NOTHING', [
        day,
        randomBytes(32),
      ])
      const { rows } = await db.query('SELECT salt FROM public.visit_salts WHERE day = $1::date', [day])
      return Buffer.from((rows[0] as { salt: Uint8Array }).salt)
    },
    async firstSeen(day, visitors) {
      if (visitors.length === 0) return new Set()
      const { rows } = await db.query(
        'INSERT INTO public.visit_visitors (day, visitor) SELECT $1::date, unnest($2::text[]) ON CONFLICT DO NOTHING RETURNING visitor',
        [day, visitors],
      )
      return new Set((rows as Array<{ visitor: string }>).map((row) => row.visitor))
    },
  }
}
