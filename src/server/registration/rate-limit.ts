/** The verdict for one request. */
export type RateVerdict = { allowed: true } | { allowed: false; retryAfterSeconds: number }

/**
 * Counts requests per key (client IP) in fixed one-minute windows: in memory, or in the database several servers share.
 */
export type RateLimiter = { hit(key: string, nowMs: number): RateVerdict | Promise<RateVerdict> }

/**
 * A per-key limit of `perMinute` requests a minute, in memory (one process or one function instance; each
 * Supabase instance counts on its own; Node servers on PostgreSQL count together: store/postgres/postgres-shared.ts).
 * 0 turns it off. At most `maxKeys` keys are remembered: beyond that,
 * expired windows are dropped first and then the oldest, so rotating addresses cannot exhaust memory.
 */
export function createRateLimiter(
  perMinute: number,
  maxKeys = 20_000,
): { hit(key: string, nowMs: number): RateVerdict } {
  const windowMs = 60_000
  const windows = new Map<string, { start: number; count: number }>()
  return {
    hit(key, nowMs) {
      if (perMinute <= 0) return { allowed: true }
      let entry = windows.get(key)
      if (!entry || nowMs - entry.start >= windowMs) {
        if (entry) windows.delete(key)
        if (windows.size >= maxKeys) {
          for (const [k, w] of windows) if (nowMs - w.start >= windowMs) windows.delete(k)
          // Still full: forget the oldest windows (Map keeps insertion order).
          for (const k of windows.keys()) {
            if (windows.size < maxKeys) break
            windows.delete(k)
          }
        }
        entry = { start: nowMs, count: 0 }
        windows.set(key, entry)
      }
      entry.count += 1
      if (entry.count <= perMinute) return { allowed: true }
      return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((entry.start + windowMs - nowMs) / 1000)) }
    },
  }
}
