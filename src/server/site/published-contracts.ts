/**
 * The launches the send-contact-email function serves, as published from the studio (issue 26): each launch's newest
 * contract in the database (public.published_contracts(),
 * supabase/migrations/20260106000000_function_reads_published.sql),
 * else the one in the function's bundle (supabase/functions/_shared/launches.json, the first version). Read again at
 * most every `refreshMs`, and whatever is made of them (the app) is made again only when a launch's number changed.
 * Web-standard only: the Deno entry runs it.
 */
import type { FunctionLaunch } from '../../../schema/function-launch.ts'
import type { SqlQueryable } from '../store/sql-queryable.ts'

/** One launch's newest published contract. */
export type PublishedContract = { launch: string; number: number; contract: FunctionLaunch }

/** Each launch's newest published contract, read through the one function the function's role may call. */
export async function readPublishedContracts(db: SqlQueryable): Promise<PublishedContract[]> {
  const { rows } = await db.query('SELECT launch, number, contract FROM public.published_contracts()')
  return (rows as Array<{ launch: string; number: number; contract: FunctionLaunch }>).map((row) => ({
    launch: row.launch,
    number: Number(row.number),
    contract: row.contract,
  }))
}

/** What a published contract must have for the app to serve it (one built before contracts existed has none). */
function usable(row: PublishedContract): boolean {
  const contract = row.contract as Partial<FunctionLaunch> | null
  return (
    typeof contract === 'object' &&
    contract !== null &&
    contract.slug === row.launch &&
    typeof contract.form?.schema === 'object' &&
    Array.isArray(contract.origins) &&
    typeof contract.site?.name === 'string'
  )
}

/**
 * The launches to serve: the bundle's in its order, each replaced by its published contract, then those only published.
 */
export function launchesToServe(
  bundle: readonly FunctionLaunch[],
  published: readonly PublishedContract[],
): FunctionLaunch[] {
  const newest = new Map(published.map((row) => [row.launch, row.contract]))
  const fromBundle = bundle.map((launch) => newest.get(launch.slug) ?? launch)
  const onlyPublished = published
    .filter((row) => !bundle.some((launch) => launch.slug === row.launch))
    .sort((a, b) => a.launch.localeCompare(b.launch))
    .map((row) => row.contract)
  return [...fromBundle, ...onlyPublished]
}

export type PublishedLaunchesOptions<T> = {
  /** The bundle's launches: served where the database has no version (or cannot be read at first). */
  bundle: readonly FunctionLaunch[]
  /** Reads the newest contracts (readPublishedContracts on the function's pool). */
  read: () => Promise<PublishedContract[]>
  /** Makes what serves these launches (the app); called again only when the set of versions changed. */
  make: (launches: FunctionLaunch[]) => T
  /** How long a reading is trusted (PUBLISHED_REFRESH_SECONDS). */
  refreshMs: number
  now?: () => number
  /** Where a failed reading or an unusable version is told (the operator's log): never the caller. */
  log?: (message: string) => void
  /** Where each change of what is served is told (which version of each launch). */
  info?: (message: string) => void
}

/** What serves the launches now; `current()` re-reads the database when the last reading is older than refreshMs. */
export type PublishedLaunches<T> = { current(): Promise<T> }

/** What a launch served before, kept when its new version cannot be served (nothing for a launch that is new). */
function servedBefore(
  slug: string,
  servedLaunches: FunctionLaunch[],
  servedNumbers: Map<string, number>,
): PublishedContract[] {
  const before = servedLaunches.find((launch) => launch.slug === slug)
  return before ? [{ launch: slug, number: servedNumbers.get(slug) ?? 0, contract: before }] : []
}

/** The launches whose new version alone cannot be served with what is served now (each is logged). */
function unservable<T>(
  options: PublishedLaunchesOptions<T>,
  good: PublishedContract[],
  servedLaunches: FunctionLaunch[],
  servedNumbers: Map<string, number>,
  log: (message: string) => void,
): Set<string> {
  const changed = good.filter((row) => servedNumbers.get(row.launch) !== row.number)
  const failing = changed.filter((row) => {
    try {
      options.make(launchesToServe(servedLaunches, [row]))
      return false
    } catch (reason) {
      log(
        `send-contact-email: version ${row.number} of launch ${row.launch} cannot be served (${(reason as Error).message}); serving the one before.`,
      )
      return true
    }
  })
  return new Set(failing.map((row) => row.launch))
}

/**
 * Keeps what serves the published launches. Concurrent callers share one reading; a reading that fails keeps the
 * last launches (the bundle's before any) and is tried again after refreshMs. A version `make` refuses (its schema
 * does not compile) is logged once and the last one kept. The first call makes from the bundle at least, and throws
 * what `make` throws for the bundle, so an entry that awaits it fails at start as before.
 */
export function createPublishedLaunches<T>(options: PublishedLaunchesOptions<T>): PublishedLaunches<T> {
  const now = options.now ?? (() => Date.now())
  const log = options.log ?? ((message: string) => console.error(message))
  const info = options.info ?? ((message: string) => console.log(message))
  let served: { key: string; value: T } | undefined
  let checkedAt = Number.NEGATIVE_INFINITY
  let reading: Promise<T> | undefined
  let servedLaunches: FunctionLaunch[] = []
  let servedNumbers = new Map<string, number>()

  async function refresh(): Promise<T> {
    let published: PublishedContract[] | undefined
    try {
      published = await options.read()
    } catch (error) {
      log(
        `send-contact-email: could not read the published launches (${(error as Error).message ?? error}); serving ${served ? 'the last ones read' : "the bundle's"}.`,
      )
    }
    checkedAt = now()
    if (published === undefined) {
      if (served) return served.value
      published = []
    }
    const key = published
      .map((row) => `${row.launch}:${row.number}`)
      .sort()
      .join(',')
    if (served?.key === key) return served.value
    // A version without a usable contract: the launch keeps what it served before (the bundle's, if nothing yet).
    let good = published.flatMap((row): PublishedContract[] => {
      if (usable(row)) return [row]
      log(
        `send-contact-email: version ${row.number} of launch ${row.launch} has no usable contract; serving the one before.`,
      )
      return servedBefore(row.launch, servedLaunches, servedNumbers)
    })
    let launches = launchesToServe(options.bundle, good)
    try {
      served = { key, value: options.make(launches) }
    } catch (error) {
      if (!served) throw error
      // One launch's version that cannot be served is that launch's problem alone: it keeps what it served before
      // (or waits, if new), and every other launch's new version goes live.
      const bad = unservable(options, good, servedLaunches, servedNumbers, log)
      good = good.flatMap((row): PublishedContract[] => {
        if (!bad.has(row.launch)) return [row]
        return servedBefore(row.launch, servedLaunches, servedNumbers)
      })
      launches = launchesToServe(options.bundle, good)
      try {
        served = { key, value: options.make(launches) }
      } catch (again) {
        log(
          `send-contact-email: the published launches (${key}) cannot be served (${(again as Error).message}); still serving the last ones.`,
        )
        served = { key, value: served.value }
        return served.value
      }
    }
    servedLaunches = launches
    servedNumbers = new Map(good.map((row) => [row.launch, row.number]))
    const versions = launches.map((launch) => `${launch.slug} ${servedNumbers.get(launch.slug) || '(bundle)'}`)
    info(`send-contact-email: serving ${versions.join(', ')}`)
    return served.value
  }

  return {
    current() {
      if (served && now() - checkedAt < options.refreshMs) return Promise.resolve(served.value)
      return (reading ??= refresh().finally(() => (reading = undefined)))
    },
  }
}
