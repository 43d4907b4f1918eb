// The SQLite store's dashboard counts (pulse.ts: PulseStore's countPulse): the leads page's counts, one GROUP BY over
// the window's leads (the leads_newest index bounds them by date), and the visit counts of schema version 9 (added by
// sqlite-visits.ts).
import type { SqliteContext } from '../sqlite/sqlite-context.ts'
import { promised } from '../sqlite/sqlite-promised.ts'
import { clickIdNetworks, emailMedia, pulseOf, type LeadPulse, type PulseQuery, type PulseStore } from './pulse.ts'

/** The host of a URL column (after ://, up to the first /), lower case, '' when it has none. */
function hostOf(column: string): string {
  return `lower(CASE WHEN instr(${column}, '://') > 0 THEN substr(substr(${column}, instr(${column}, '://') + 3), 1, instr(substr(${column}, instr(${column}, '://') + 3) || '/', '/') - 1) ELSE '' END)`
}

const realtor = `lower(coalesce(json_extract(fields, '$.isRealtor'), '')) IN ('yes', 'true', '1')`
const fromEmail = `lower(coalesce(json_extract(utm, '$.utm_medium'), '')) IN (${emailMedia.map((m) => `'${m}'`).join(', ')})`
const network = `CASE ${clickIdNetworks
  .map(
    ([name, ids]) =>
      `WHEN ${ids.map((id) => `json_extract(click_ids, '$.${id}') IS NOT NULL`).join(' OR ')} THEN '${name}'`,
  )
  .join(' ')} END`
// hosts.ref_host and hosts.page_host come from the window's CTE below.
const source = `coalesce(nullif(lower(trim(coalesce(json_extract(utm, '$.utm_source'), ''))), ''), ${network},
  CASE WHEN ref_host = '' OR ref_host = page_host THEN '' WHEN ref_host LIKE 'www.%' THEN substr(ref_host, 5) ELSE ref_host END)`

/** The scope's WHERE clause on `column` (a launch, or a list of them); a null launch is `nullIs`'s (false: none). */
function scopeOf(q: PulseQuery, column: string, nullIs: string | false): { sql: string; params: unknown[] } {
  const parts: string[] = []
  const params: unknown[] = []
  const orNull = (launches: readonly string[]) =>
    nullIs !== false && launches.includes(nullIs) ? ` OR ${column} IS NULL` : ''
  if (q.launch !== undefined) {
    parts.push(`(${column} = ?${orNull([q.launch])})`)
    params.push(q.launch)
  }
  if (q.launches !== undefined) {
    parts.push(`(${column} IN (SELECT value FROM json_each(?))${orNull(q.launches)})`)
    params.push(JSON.stringify(q.launches))
  }
  return { sql: parts.length ? parts.join(' AND ') : '1 = 1', params }
}

/** One group of the window's leads: everything the dashboard counts them by, and how many. */
type Fact = {
  i: number
  source: string
  realtor: number
  status: string | null
  email: number
  campaign: string
  first: string
  last: string
  n: number
}

/**
 * The window's leads grouped by day (by its place among the days' ends: ISO text sorts as time), source, kind, status
 * and campaign: one pass, whose few groups are then summed each way.
 */
function factsOf(ctx: SqliteContext, q: PulseQuery): Fact[] {
  const scope = scopeOf(q, 'leads.launch', ctx.defaultLaunch)
  // The window's leads with what the counts read of them; a CTE each query inlines (SQLite flattens it).
  const window = `WITH hosts AS (
          SELECT leads.id, leads.created_at, fields, utm, click_ids, ${hostOf('referrer')} AS ref_host, ${hostOf('page_url')} AS page_host
          FROM leads WHERE leads.created_at >= ? AND leads.created_at < ? AND suspected_spam = 0 AND ${scope.sql}
        )`
  const params = [q.days[0]!.start, q.days.at(-1)!.end, ...scope.params]
  const dayOf = `CASE ${q.days.map((_, i) => `WHEN created_at < ? THEN ${i}`).join(' ')} END`
  return ctx
    .query<Fact>(
      `${window} SELECT ${dayOf} AS i, ${source} AS source, ${realtor} AS realtor, f.status AS status, ${fromEmail} AS email,
           CASE WHEN ${fromEmail} THEN coalesce(json_extract(utm, '$.utm_campaign'), '') ELSE '' END AS campaign,
           min(created_at) AS first, max(created_at) AS last, count(*) AS n
         FROM hosts LEFT JOIN lead_follow_ups AS f ON f.lead_id = hosts.id GROUP BY 1, 2, 3, 4, 5, 6`,
    )
    .all(...params, ...q.days.map((d) => d.end))
}

/** The facts summed by `key` (those `only` keeps): leads, leads from an e-mail, first and last. */
function sumFacts<K>(facts: Fact[], key: (fact: Fact) => K, only: (fact: Fact) => boolean = () => true) {
  const out = new Map<K, { n: number; email: number; first: string; last: string }>()
  for (const fact of facts) {
    if (!only(fact)) continue
    const row = out.get(key(fact)) ?? { n: 0, email: 0, first: fact.first, last: fact.last }
    row.n += fact.n
    row.email += fact.email ? fact.n : 0
    if (fact.first < row.first) row.first = fact.first
    if (fact.last > row.last) row.last = fact.last
    out.set(key(fact), row)
  }
  return [...out]
}

/** The visit counts of the query's days, by day and by source. */
function visitsOf(ctx: SqliteContext, q: PulseQuery) {
  const visitScope = scopeOf(q, 'launch', false)
  const visitDays = `day IN (SELECT value FROM json_each(?)) AND ${visitScope.sql}`
  const visitParams = [JSON.stringify(q.days.map((d) => d.day)), ...visitScope.params]
  const byDay = new Map(
    ctx
      .query<{ day: string; visits: number; visitors: number }>(
        `SELECT day, sum(visits) AS visits, sum(visitors) AS visitors FROM visit_counts WHERE ${visitDays} GROUP BY day`,
      )
      .all(...visitParams)
      .map((row) => [row.day, row]),
  )
  const bySource = ctx
    .query<{ source: string; visitors: number }>(
      `SELECT source, sum(visitors) AS visitors FROM visit_counts WHERE ${visitDays} GROUP BY source`,
    )
    .all(...visitParams)
  return { byDay, bySource }
}

/** The dashboard's counts (LeadPulse) for a scope over its days. */
export function countSqlitePulse(ctx: SqliteContext, q: PulseQuery): LeadPulse {
  if (q.days.length === 0) return { days: [], sources: [], realtors: 0, buyers: 0, statuses: [], emailCampaigns: [] }
  const facts = factsOf(ctx, q)
  const perDay = sumFacts(facts, (f) => f.i).map(([i, row]) => ({ i, registrations: row.n, from_email: row.email }))
  const bySource = sumFacts(facts, (f) => f.source).map(([source, row]) => ({ source, registrations: row.n }))
  const kinds = {
    realtors: facts.reduce((n, f) => n + (f.realtor ? f.n : 0), 0),
    buyers: facts.reduce((n, f) => n + (f.realtor ? 0 : f.n), 0),
  }
  const statuses = sumFacts(facts, (f) => f.status).map(([status, row]) => ({ status, registrations: row.n }))
  const campaigns = sumFacts(
    facts,
    (f) => f.campaign,
    (f) => f.email === 1,
  )
    .map(([campaign, row]) => ({ campaign, registrations: row.n, first: row.first, last: row.last }))
    .sort(
      (x, y) => y.registrations - x.registrations || (x.campaign < y.campaign ? -1 : x.campaign > y.campaign ? 1 : 0),
    )
  const visits = visitsOf(ctx, q)
  return pulseOf(q, perDay, bySource, visits.byDay, visits.bySource, kinds, statuses, campaigns)
}

/** The dashboard's counts on an open SQLite lead database (version 9). */
export function createSqlitePulse(ctx: SqliteContext): Pick<PulseStore, 'countPulse'> {
  return promised<Pick<PulseStore, 'countPulse'>>({ countPulse: (q) => countSqlitePulse(ctx, q) })
}
