import { createHash, randomBytes } from 'node:crypto'
import { Buffer } from 'node:buffer'
import type { PulseStore, VisitCount } from '../store/store.ts'
import { isBeaconView, isPageView, visitSourceOf, type VisitImageCounter } from './visit-requests.ts'

/**
 * Counts visits to each launch's pages as the Node server serves them, without cookies and without storing who
 * visited, as privacy-first analytics do (Plausible, Ackee): a visitor is SHA-256 of a random salt, the launch, the
 * address and the User-Agent. The salt is made for each day (in the team's time zone), kept in memory only and
 * dropped with that day's hashes when the day ends, so no one (not the server's owner, not a backup) can link two
 * days' visits or turn a hash back into an address. Only daily counts are stored: page views and first-seen visitors
 * per launch, day and source. Nothing is written to the visitor's browser and no script is added to the page.
 *
 * Counted: a GET of a page (HTML, 200 or 304) by a browser. Not counted: bots and link previews (by User-Agent),
 * prefetches and prerenders (Sec-Purpose, Purpose), a request that is not a navigation (Sec-Fetch-Dest), HEAD.
 * A restart makes a new salt, so a visitor seen before it and after it on one day counts twice.
 *
 * Several servers on one PostgreSQL (`shared`): the day's salt and the day's visitor hashes are kept in the database
 * for that day only (deleted when the next day's salt is made, as Plausible does), so a visitor whose views reach two
 * servers counts once, and a restart does not count anyone twice.
 */

/** The day's salt and visitors shared by several servers (store/postgres/postgres-shared.ts makes one). */
export type SharedVisitors = {
  /** The salt of `day` (YYYY-MM-DD in the team's time zone), the same on every server. */
  saltOf(day: string): Promise<Buffer>
  /** Records the visitors (hashes) of `day`; returns those no server had seen that day. */
  firstSeen(day: string, visitors: string[]): Promise<Set<string>>
}

/**
 * The counter the Node server calls for each answer it gives on a launch's site, and the function for each visit image.
 */
export type VisitCounter = {
  /** Counts the request if it is a person's view of a page (see above); never throws, never changes the answer. */
  count(request: Request, response: Response, launch: string, address: string): void
  /** Counts a page's visit image (visit-requests.ts: VisitImageCounter). */
  countBeacon: VisitImageCounter['countBeacon']
  /** Writes the counts gathered since the last write. */
  flush(): Promise<void>
  /** Writes what is left and stops the timer. */
  close(): Promise<void>
}

export type VisitCounterOptions = {
  store: Pick<PulseStore, 'addVisits'>
  /** The team's time zone (NOTIFY_TIME_ZONE): what a day is. */
  timeZone: string
  clock?: () => Date
  /** How often the counts are written. Default 10 s. */
  flushMs?: number
  /** Where a failed write is reported. */
  onError?: (error: unknown) => void
  /** Several servers count together: the salt and who was seen come from here, at each write. */
  shared?: SharedVisitors
}

// Past this many visitors in one day (a flood of made-up addresses), a further visit counts as a new visitor
// rather than growing the memory.
const maxRemembered = 200_000

type View = { key: string; visitor: string }

/** One server's own visitors: a salt made for each day and dropped, with that day's hashes, when the day ends. */
function createLocalVisitors(timeZone: string, clock: () => Date) {
  const dayFormat = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' })
  let day = ''
  let salt: Buffer = Buffer.alloc(0)
  let seen = new Set<string>()
  return {
    /** Today's day; a new day gets a new salt, and the last day's salt and hashes are dropped. */
    today(): string {
      const now = dayFormat.format(clock())
      if (now !== day) {
        day = now
        salt = randomBytes(32)
        seen = new Set()
      }
      return day
    },
    /** Whether `identity` is a visitor not seen today (remembered up to `maxRemembered`). */
    isFirst(identity: string): boolean {
      const visitor = createHash('sha256').update(salt).update(identity).digest('base64')
      const first = !seen.has(visitor)
      if (first && seen.size < maxRemembered) seen.add(visitor)
      return first
    },
  }
}

/**
 * Shared: each view waits for the next write, where it is hashed with the shared salt and checked against the
 * visitors every server saw. `countFirstSeen` adds to `counts` the visitors among `batch` that no server had seen
 * today.
 */
function createSharedTally(shared: SharedVisitors) {
  let sharedDay = ''
  let sharedSalt: Buffer = Buffer.alloc(0)
  return async function countFirstSeen(counts: Map<string, VisitCount>, batch: View[]): Promise<void> {
    const byDay = new Map<string, View[]>()
    for (const view of batch) {
      const on = counts.get(view.key)!.day
      byDay.set(on, [...(byDay.get(on) ?? []), view])
    }
    for (const [on, dayViews] of byDay) {
      if (on !== sharedDay) {
        sharedSalt = await shared.saltOf(on)
        sharedDay = on
      }
      const hashed = dayViews.map((view) => ({
        key: view.key,
        hash: createHash('sha256').update(sharedSalt).update(view.visitor).digest('base64'),
      }))
      const fresh = await shared.firstSeen(on, [...new Set(hashed.map((view) => view.hash))])
      for (const view of hashed) if (fresh.delete(view.hash)) counts.get(view.key)!.visitors += 1
    }
  }
}

/**
 * Whether an answer is a person's view of a page: 200/304 HTML (by its type, or the request's Accept) and a page view.
 */
function isCountedPage(request: Request, response: Response): boolean {
  if (response.status !== 200 && response.status !== 304) return false
  const type = response.headers.get('content-type')
  if (type ? !type.startsWith('text/html') : !(request.headers.get('accept') ?? '').includes('text/html')) return false
  return isPageView(request)
}

/**
 * The same identity for a page view and a visit image: a visitor seen by a server and the function on one day counts
 * once.
 */
const identityOf = (request: Request, launch: string, address: string) =>
  `\0${launch}\0${address}\0${request.headers.get('user-agent')}`

/** Starts a visit counter; its timer does not keep the process alive. */
export function createVisitCounter(options: VisitCounterOptions): VisitCounter {
  const local = createLocalVisitors(options.timeZone, options.clock ?? (() => new Date()))
  const countFirstSeen = options.shared ? createSharedTally(options.shared) : undefined
  // Past `maxRemembered` views between two writes, a shared view counts as a new visitor.
  let views: View[] = []
  let pending = new Map<string, VisitCount>()

  async function flush(): Promise<void> {
    if (pending.size === 0) return
    // Taken at once: views counted while this write waits belong to the next one.
    const counts = pending
    const batch = views
    pending = new Map()
    views = []
    await countFirstSeen?.(counts, batch)
    await options.store.addVisits([...counts.values()])
  }
  const timer = setInterval(
    () => void flush().catch((error: unknown) => options.onError?.(error)),
    options.flushMs ?? 10_000,
  )
  timer.unref()

  /** Adds one view of `launch` from `source` by the visitor `identity` (launch, address and User-Agent). */
  function tally(launch: string, source: string, identity: string): void {
    const on = local.today()
    const key = `${launch}\0${on}\0${source}`
    const count = pending.get(key) ?? { launch, day: on, source, visits: 0, visitors: 0 }
    count.visits += 1
    pending.set(key, count)
    if (countFirstSeen) {
      if (views.length < maxRemembered) views.push({ key, visitor: identity })
      else count.visitors += 1
    } else if (local.isFirst(identity)) count.visitors += 1
  }

  /** Never throws: a counting problem is reported, the answer goes out as it is. */
  const safely = (count: () => void) => {
    try {
      count()
    } catch (error) {
      options.onError?.(error)
    }
  }
  return {
    count: (request, response, launch, address) =>
      safely(() => {
        if (isCountedPage(request, response))
          tally(launch, visitSourceOf(request), identityOf(request, launch, address))
      }),
    countBeacon: (request, launch, address) =>
      safely(() => {
        if (isBeaconView(request)) tally(launch, '', identityOf(request, launch, address))
      }),
    flush,
    async close() {
      clearInterval(timer)
      await flush()
    },
  }
}
