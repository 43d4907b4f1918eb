import type { Context } from 'hono'
import type { LeadStore } from '../store/store.ts'

/**
 * GET /healthz: whether the database answers, and how many messages wait or have failed; counts only, never a
 * person. 200 when the database answers (even with failed mail: that is for a person to look at, not for a load
 * balancer to restart the server over), 503 when it does not.
 */
export function healthHandler(store: LeadStore, log?: { error(message: string, error?: unknown): void }) {
  return async (_c: Context): Promise<Response> => {
    const headers = { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' }
    try {
      const counts = await store.countMessages()
      return new Response(JSON.stringify({ ok: true, database: 'ok', outbox: { pending: counts.pending, failed: counts.failed } }), { status: 200, headers })
    } catch (error) {
      log?.error('healthz: the database does not answer', error)
      return new Response(JSON.stringify({ ok: false, database: 'unavailable' }), { status: 503, headers: { ...headers, 'retry-after': '10' } })
    }
  }
}
