/**
 * What is left, for the page (issue 45): `GET /_release/left.json` on a launch's host answers the models of its lots
 * still available, read from the store at most every few seconds and sent with an ETag (a repeat gets 304), so a
 * new load of the page shows an allocation within seconds with no build. A home types card counts the lots that take
 * one of its models; held, allocated and sold lots are not left.
 */
import type { Context, Hono } from 'hono'
import type { ReleaseStore } from '../store/release.ts'

/** The path of the answer on every launch's host. */
export const leftCountsPath = '/_release/left.json'

/**
 * The answer: each model's lots left, each lot left's models (a card naming several models counts a lot once), and
 * whether the launch has an inventory at all (a page shows no count before it has one, "sold out" once none is left).
 */
export type LeftCounts = { left: Record<string, number>; available: string[][]; inventory: boolean }

/** What the route needs: the store, the launch of a request, the clock and how long an answer is reused. */
export type LeftCountsDeps = {
  release: ReleaseStore
  launchOf: (c: Context) => Promise<string>
  clock?: () => number
  /** How long one reading of the store is reused, in ms. Default 5,000. */
  cacheMs?: number
}

type Cached = { at: number; body: string; etag: string }

/** The counts of a launch's lots. */
export async function leftCountsOf(release: ReleaseStore, launch: string): Promise<LeftCounts> {
  const lots = await release.listLotModels(launch)
  const available = lots.filter((lot) => lot.status === 'available').map((l) => l.models)
  const left: Record<string, number> = {}
  for (const models of available) for (const model of models) left[model] = (left[model] ?? 0) + 1
  return { left, available, inventory: lots.length > 0 }
}

/** Adds `GET /_release/left.json` to the site. */
export function addLeftCountsRoute(app: Hono, deps: LeftCountsDeps): void {
  const clock = deps.clock ?? Date.now
  const cacheMs = deps.cacheMs ?? 5_000
  const cache = new Map<string, Cached>()
  const read = async (launch: string): Promise<Cached> => {
    const held = cache.get(launch)
    if (held && clock() - held.at < cacheMs) return held
    const body = JSON.stringify(await leftCountsOf(deps.release, launch))
    const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(body))
    const etag = `"${Array.from(new Uint8Array(digest).slice(0, 12), (b) => b.toString(16).padStart(2, '0')).join('')}"`
    const fresh = { at: clock(), body, etag }
    cache.set(launch, fresh)
    return fresh
  }
  app.get(leftCountsPath, async (c) => {
    const answer = await read(await deps.launchOf(c))
    const headers = {
      etag: answer.etag,
      'cache-control': `public, max-age=${Math.floor(cacheMs / 1000)}`,
      'content-type': 'application/json; charset=utf-8',
    }
    if (c.req.header('if-none-match') === answer.etag) return c.body(null, 304, headers)
    return c.body(answer.body, 200, headers)
  })
}
