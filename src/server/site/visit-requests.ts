import { clickIdNetworks } from '../store/store.ts'

/**
 * Which requests are a person's visit to a launch's pages, and counting the pages' visit images where nothing stays in
 * memory between requests (the Edge Function). Web-standard only: the Deno function imports it, and visit-counter.ts
 * (the Node server's counter, which keeps the day's salt in memory) builds on it.
 */

// Crawlers, link previews, uptime checks and command-line clients: none is a person looking at the page.
const bots =
  /bot\b|bot\/|crawl|spider|slurp|archiver|facebookexternalhit|meta-externalagent|embedly|preview|headless|lighthouse|pagespeed|pingdom|uptime|monitor|curl\/|wget\/|python|httpclient|http-client|go-http|java\/|okhttp|node-fetch|undici|axios|postman|insomnia|scrapy|feedfetcher|whatsapp|telegram|discord|skype|bingpreview|yandex|baidu|duckduckgo|petal|semrush|ahrefs|mj12|dotbot|bytespider|gptbot|claude|perplexity|ccbot/i

/** Whether a GET comes from a person's browser: not a bot, a link preview, a prefetch or a prerender. */
function isPersonsBrowser(request: Request): boolean {
  if (request.method !== 'GET') return false
  const agent = request.headers.get('user-agent') ?? ''
  if (agent === '' || !/^Mozilla\//.test(agent) || bots.test(agent)) return false
  const purpose = `${request.headers.get('sec-purpose') ?? ''} ${request.headers.get('purpose') ?? ''} ${request.headers.get('x-purpose') ?? ''} ${request.headers.get('x-moz') ?? ''}`
  return !/prefetch|prerender|preview/i.test(purpose)
}

/** Whether a request is a person's browser opening a page (not a bot, a prefetch or a sub-request). */
export function isPageView(request: Request): boolean {
  if (!isPersonsBrowser(request)) return false
  const dest = request.headers.get('sec-fetch-dest')
  return dest === null || dest === 'document'
}

/**
 * Whether a request is a page's visit image (VisitBeacon in src/page/Page.tsx) loaded by a person's browser: how a
 * page on a static host, which no server of ours serves, is counted. No script: the prerendered HTML asks for it.
 */
export function isBeaconView(request: Request): boolean {
  if (!isPersonsBrowser(request)) return false
  const dest = request.headers.get('sec-fetch-dest')
  return dest === null || dest === 'image'
}

/** A host without its port and a leading www., lower case. */
const bareHost = (host: string) =>
  host
    .toLowerCase()
    .replace(/:\d+$/, '')
    .replace(/^www\./, '')

/**
 * Where a visit came from, read as the store reads a registration's source: utm_source (lower case), else the
 * network of an ad click id, else the referring site's host (not this site's), else '' (direct).
 */
export function visitSourceOf(request: Request): string {
  const url = new URL(request.url)
  const utm = url.searchParams.get('utm_source')?.trim().toLowerCase()
  if (utm) return utm.slice(0, 100)
  for (const [network, ids] of clickIdNetworks) if (ids.some((id) => url.searchParams.has(id))) return network
  const referer = request.headers.get('referer')
  if (!referer || !URL.canParse(referer)) return ''
  const from = bareHost(new URL(referer).host)
  return from === bareHost(request.headers.get('host') ?? url.host) ? '' : from.slice(0, 100)
}

/** What the app calls for each visit image (GET …/visit/<launch>, app.ts). */
export type VisitImageCounter = {
  /**
   * Counts a page's visit image (isBeaconView) as a view of that launch's page. Its source is unknown (''): the image
   * is asked for with no referrer, and the page's own address (its utm_source) is not in the image's.
   */
  countBeacon(request: Request, launch: string, address: string): void
  /** Writes (or waits for) the counts made so far. */
  flush(): Promise<void>
}

/** What counting visit images in the database needs (the Edge Function: nothing is kept in memory between requests). */
export type VisitImageCounterOptions = {
  /**
   * Counts one view of `launch` on `day` by the visitor `identity` (store/postgres/postgres-shared.ts: countVisitIn).
   */
  record(launch: string, day: string, identity: Uint8Array): Promise<void>
  /** The team's time zone (NOTIFY_TIME_ZONE): what a day is. */
  timeZone: string
  clock?: () => Date
}

/**
 * Counts each visit image at once in the database, which hashes the visitor with the day's shared salt (never read
 * here) exactly as createVisitCounter does with `shared`, so a visitor seen by a Node server and by the function on
 * one day counts once. `flush` waits for the counts under way.
 */
export function createVisitImageCounter(options: VisitImageCounterOptions): VisitImageCounter {
  const clock = options.clock ?? (() => new Date())
  const dayFormat = new Intl.DateTimeFormat('en-CA', {
    timeZone: options.timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  })
  let underWay: Array<Promise<void>> = []
  return {
    countBeacon(request, launch, address) {
      if (!isBeaconView(request)) return
      const identity = new TextEncoder().encode(`\0${launch}\0${address}\0${request.headers.get('user-agent')}`)
      underWay.push(options.record(launch, dayFormat.format(clock()), identity))
    },
    async flush() {
      const counts = underWay
      underWay = []
      await Promise.all(counts)
    },
  }
}
