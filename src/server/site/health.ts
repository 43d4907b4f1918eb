import { waitedSeconds } from '../delivery/sending/backlog-words.ts'
import type { LeadStore } from '../store/store.ts'

/** How many launches a server has, and the names of those broken or not published (never where or why). */
export type LaunchHealth = { count: number; broken: string[]; unpublished: string[] }

/**
 * GET /healthz: whether the database answers, how many messages wait or have failed and how long the oldest waiting
 * one has waited (`oldestPendingSeconds`: the mail falls behind when it grows); counts only, never a
 * person (with `launches`, which launches are broken or unpublished, by name). 200 when the database answers (even with
 * failed mail: that is for a person to look at, not for a load
 * balancer to restart the server over), 503 when it does not.
 */
export function healthHandler(
  store: LeadStore,
  log?: { error(message: string, error?: unknown): void },
  launches?: () => LaunchHealth,
) {
  return async (): Promise<Response> => {
    const headers = { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' }
    try {
      const [counts, backlog] = await Promise.all([store.countMessages(), store.countBacklog()])
      const outbox = { pending: counts.pending, failed: counts.failed, oldestPendingSeconds: waitedSeconds(backlog) }
      return new Response(
        JSON.stringify({ ok: true, database: 'ok', outbox, ...(launches ? { launches: launches() } : {}) }),
        { status: 200, headers },
      )
    } catch (error) {
      log?.error('healthz: the database does not answer', error)
      return new Response(JSON.stringify({ ok: false, database: 'unavailable' }), {
        status: 503,
        headers: { ...headers, 'retry-after': '10' },
      })
    }
  }
}
