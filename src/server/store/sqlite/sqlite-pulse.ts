// The SQLite store's dashboard part (store.ts: PulseStore): the leads page's counts, each one GROUP BY over the
// window's leads (the leads_newest index bounds them by date), and the visit counts of schema version 9.
import type Database from 'better-sqlite3'
import { clickIdNetworks, emailMedia, pulseOf, type PulseQuery, type PulseStore, type VisitCount } from '../store.ts'

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

/** The pulse methods on an open SQLite lead database (version 9); statements are prepared on first use. */
export function createSqlitePulse(db: Database.Database, defaultLaunch: string): PulseStore {
  const cache = new Map<string, Database.Statement<unknown[], unknown>>()
  function query<T>(sql: string): Database.Statement<unknown[], T> {
    let statement = cache.get(sql)
    if (!statement) {
      statement = db.prepare<unknown[], unknown>(sql)
      cache.set(sql, statement)
    }
    return statement as Database.Statement<unknown[], T>
  }

  /** The scope's WHERE clause on `column` (a launch, or a list of them); a null launch is the default launch's. */
  function scopeOf(q: PulseQuery, column: string, nullIsDefault: boolean): { sql: string; params: unknown[] } {
    const parts: string[] = []
    const params: unknown[] = []
    const orNull = (launches: readonly string[]) =>
      nullIsDefault && launches.includes(defaultLaunch) ? ` OR ${column} IS NULL` : ''
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

  const addVisits = db.transaction((counts: readonly VisitCount[]) => {
    const upsert = query(
      `INSERT INTO visit_counts (launch, day, source, visits, visitors) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (launch, day, source) DO UPDATE SET visits = visits + excluded.visits, visitors = visitors + excluded.visitors`,
    )
    for (const c of counts) upsert.run(c.launch, c.day, c.source, c.visits, c.visitors)
  })

  return {
    async addVisits(counts) {
      if (counts.length > 0) addVisits.immediate(counts)
    },
    async countPulse(q) {
      const first = q.days[0]
      const last = q.days.at(-1)
      if (!first || !last) return { days: [], sources: [], realtors: 0, buyers: 0, statuses: [], emailCampaigns: [] }
      const scope = scopeOf(q, 'leads.launch', true)
      // The window's leads with what the counts read of them; a CTE each query inlines (SQLite flattens it).
      const window = `WITH hosts AS (
          SELECT leads.id, leads.created_at, fields, utm, click_ids, ${hostOf('referrer')} AS ref_host, ${hostOf('page_url')} AS page_host
          FROM leads WHERE leads.created_at >= ? AND leads.created_at < ? AND suspected_spam = 0 AND ${scope.sql}
        )`
      const params = [first.start, last.end, ...scope.params]
      // Each lead's day by its place among the days' ends (ISO text sorts as time). One pass over the window, grouped
      // by everything the dashboard counts; the few groups are then summed each way.
      const dayOf = `CASE ${q.days.map((_, i) => `WHEN created_at < ? THEN ${i}`).join(' ')} END`
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
      const facts = query<Fact>(
        `${window} SELECT ${dayOf} AS i, ${source} AS source, ${realtor} AS realtor, f.status AS status, ${fromEmail} AS email,
           CASE WHEN ${fromEmail} THEN coalesce(json_extract(utm, '$.utm_campaign'), '') ELSE '' END AS campaign,
           min(created_at) AS first, max(created_at) AS last, count(*) AS n
         FROM hosts LEFT JOIN lead_follow_ups AS f ON f.lead_id = hosts.id GROUP BY 1, 2, 3, 4, 5, 6`,
      ).all(...params, ...q.days.map((d) => d.end))
      const sum = <K>(key: (fact: Fact) => K, only: (fact: Fact) => boolean = () => true) => {
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
      const perDay = sum((f) => f.i).map(([i, row]) => ({ i, registrations: row.n, from_email: row.email }))
      const bySource = sum((f) => f.source).map(([source, row]) => ({ source, registrations: row.n }))
      const kinds = {
        realtors: facts.reduce((n, f) => n + (f.realtor ? f.n : 0), 0),
        buyers: facts.reduce((n, f) => n + (f.realtor ? 0 : f.n), 0),
      }
      const statuses = sum((f) => f.status).map(([status, row]) => ({ status, registrations: row.n }))
      const campaigns = sum(
        (f) => f.campaign,
        (f) => f.email === 1,
      )
        .map(([campaign, row]) => ({ campaign, registrations: row.n, first: row.first, last: row.last }))
        .sort(
          (x, y) =>
            y.registrations - x.registrations || (x.campaign < y.campaign ? -1 : x.campaign > y.campaign ? 1 : 0),
        )
      const visitScope = scopeOf(q, 'launch', false)
      const visitDays = `day IN (SELECT value FROM json_each(?)) AND ${visitScope.sql}`
      const visitParams = [JSON.stringify(q.days.map((d) => d.day)), ...visitScope.params]
      const visitsByDay = new Map(
        query<{ day: string; visits: number; visitors: number }>(
          `SELECT day, sum(visits) AS visits, sum(visitors) AS visitors FROM visit_counts WHERE ${visitDays} GROUP BY day`,
        )
          .all(...visitParams)
          .map((row) => [row.day, row]),
      )
      const visitorsBySource = query<{ source: string; visitors: number }>(
        `SELECT source, sum(visitors) AS visitors FROM visit_counts WHERE ${visitDays} GROUP BY source`,
      ).all(...visitParams)
      return pulseOf(q, perDay, bySource, visitsByDay, visitorsBySource, kinds, statuses, campaigns)
    },
  }
}
