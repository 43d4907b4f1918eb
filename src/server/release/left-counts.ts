/**
 * What is left, for the page (issue 45): `GET /_release/left.json` on a launch's host (the Node server), and
 * `GET <function>/left.json?launch=<slug>` on the function (the static-host set-up: function/service-routes.ts),
 * answer the models of its lots still available, read from the store at most every few seconds and sent with an ETag
 * (a repeat gets 304), so a new load of the page shows an allocation within seconds with no build. A home types card
 * counts the lots that take one of its models; held, allocated and sold lots are not left.
 */
import type { Context, Hono } from 'hono'
import type { ReleaseStore } from '../store/release.ts'

/** The path of the answer on every launch's host. */
export const leftCountsPath = '/_release/left.json'

/** The path of the answer under the function's paths, for a launch named in `?launch=`. */
export const functionLeftCountsPath = '/left.json'

/**
 * The answer: each model's lots left, each lot left's models (a card naming several models counts a lot once), and
 * whether the launch has an inventory at all (a page shows no count before it has one, "sold out" once none is left).
 */
export type LeftCounts = { left: Record<string, number>; available: string[][]; inventory: boolean }

/** What the answer needs: the store, the clock and how long an answer is reused. */
export type LeftCountsReading = {
  release: Pick<ReleaseStore, 'listLotModels'>
  clock?: () => number
  /** How long one reading of the store is reused, in ms. Default 5,000. */
  cacheMs?: number
}

/** What the site's route needs besides: the launch of a request. */
export type LeftCountsDeps = LeftCountsReading & { launchOf: (c: Context) => Promise<string> }

type Cached = { at: number; body: string; etag: string }

/** The counts of a launch's lots. */
export async function leftCountsOf(release: Pick<ReleaseStore, 'listLotModels'>, launch: string): Promise<LeftCounts> {
  const lots = await release.listLotModels(launch)
  const available = lots.filter((lot) => lot.status === 'available').map((l) => l.models)
  const left: Record<string, number> = {}
  for (const models of available) for (const model of models) left[model] = (left[model] ?? 0) + 1
  return { left, available, inventory: lots.length > 0 }
}

/**
 * Whether If-None-Match names this ETag, compared weakly as RFC 9110 has it for this header: a proxy that compresses
 * the answer (Supabase's gateway may) sends the tag back as W/"…".
 */
function matchesEtag(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false
  return header.split(',').some((tag) => {
    const bare = tag.trim().replace(/^W\//, '')
    return bare === etag || bare === '*'
  })
}

/** A launch's answer (200, or 304 to its ETag), each reading reused for cacheMs; `headers` are added to it. */
export type LeftCountsAnswer = (c: Context, launch: string, headers?: Record<string, string>) => Promise<Response>

/** Makes the answer, with its own cache of each launch's reading. */
export function createLeftCountsAnswer(deps: LeftCountsReading): LeftCountsAnswer {
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
  return async (c, launch, extra = {}) => {
    const answer = await read(launch)
    const headers = {
      etag: answer.etag,
      'cache-control': `public, max-age=${Math.floor(cacheMs / 1000)}`,
      'content-type': 'application/json; charset=utf-8',
      ...extra,
    }
    if (matchesEtag(c.req.header('if-none-match'), answer.etag)) return c.body(null, 304, headers)
    return c.body(answer.body, 200, headers)
  }
}

/** Adds `GET /_release/left.json` to the site. */
export function addLeftCountsRoute(app: Hono, deps: LeftCountsDeps): void {
  const answer = createLeftCountsAnswer(deps)
  app.get(leftCountsPath, async (c) => answer(c, await deps.launchOf(c)))
}
