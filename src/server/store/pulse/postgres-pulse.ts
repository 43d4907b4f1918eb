// The PostgreSQL store's dashboard counts (pulse.ts: PulseStore's countPulse; its visits: postgres-visits.ts), on the
// tables of supabase/migrations (visit_counts:
// 20251231000000_visit_counts.sql). The same counts as sqlite-pulse.ts, each one GROUP BY over the window's leads.
import type { SqlQueryable } from '../sql-queryable.ts'
import { clickIdNetworks, emailMedia, pulseOf, type LeadPulse, type PulseQuery, type PulseStore } from './pulse.ts'

/** The host of a URL column (after ://, up to the first /), lower case, '' when it has none (as sqlite-pulse.ts). */
const hostOf = (column: string) => `lower(coalesce(substring(${column} from '://([^/]*)'), ''))`

const realtor = `lower(coalesce(fields->>'isRealtor', '')) IN ('yes', 'true', '1')`
const fromEmail = `lower(coalesce(utm->>'utm_medium', '')) IN (${emailMedia.map((m) => `'${m}'`).join(', ')})`
const network = `CASE ${clickIdNetworks
  .map(([name, ids]) => `WHEN ${ids.map((id) => `click_ids->>'${id}' IS NOT NULL`).join(' OR ')} THEN '${name}'`)
  .join(' ')} END`
const source = `coalesce(nullif(lower(btrim(coalesce(utm->>'utm_source', ''))), ''), ${network},
  CASE WHEN ref_host = '' OR ref_host = page_host THEN '' WHEN ref_host LIKE 'www.%' THEN substr(ref_host, 5) ELSE ref_host END)`

/** The scope's WHERE clause on `column`, its parameters numbered from $at; a null launch is the default launch's. */
function scopeOf(
  q: PulseQuery,
  column: string,
  nullIsDefault: false | string,
  at: number,
): { sql: string; params: unknown[] } {
  const parts: string[] = []
  const params: unknown[] = []
  const orNull = (launches: readonly string[]) =>
    nullIsDefault !== false && launches.includes(nullIsDefault) ? ` OR ${column} IS NULL` : ''
  if (q.launch !== undefined) {
    params.push(q.launch)
    parts.push(`(${column} = $${at + params.length - 1}::text${orNull([q.launch])})`)
  }
  if (q.launches !== undefined) {
    params.push([...q.launches])
    parts.push(`(${column} = ANY($${at + params.length - 1}::text[])${orNull(q.launches)})`)
  }
  return { sql: parts.length ? parts.join(' AND ') : 'true', params }
}

/** The counts' queries over the window's leads, all at once, each one GROUP BY. */
function countLeads(db: SqlQueryable, q: PulseQuery, defaultLaunch: string) {
  const scope = scopeOf(q, 'leads.launch', defaultLaunch, 3)
  const window = `WITH hosts AS (
          SELECT leads.id, leads.created_at, fields, utm, click_ids, ${hostOf('referrer')} AS ref_host, ${hostOf('page_url')} AS page_host
          FROM public.leads WHERE leads.created_at >= $1::timestamptz AND leads.created_at < $2::timestamptz AND NOT suspected_spam AND ${scope.sql}
        )`
  const params = [q.days[0]!.start, q.days.at(-1)!.end, ...scope.params]
  const days = JSON.stringify(q.days.map((d, i) => ({ i, start: d.start, stop: d.end })))
  return Promise.all([
    db.query(
      `${window} SELECT d.i, count(hosts.id)::int AS registrations, (count(*) FILTER (WHERE hosts.id IS NOT NULL AND ${fromEmail}))::int AS from_email
           FROM jsonb_to_recordset($${params.length + 1}::jsonb) AS d (i int, start timestamptz, stop timestamptz)
           LEFT JOIN hosts ON hosts.created_at >= d.start AND hosts.created_at < d.stop GROUP BY d.i`,
      [...params, days],
    ),
    db.query(`${window} SELECT ${source} AS source, count(*)::int AS registrations FROM hosts GROUP BY 1`, params),
    db.query(
      `${window} SELECT (count(*) FILTER (WHERE ${realtor}))::int AS realtors, (count(*) FILTER (WHERE NOT (${realtor})))::int AS buyers FROM hosts`,
      params,
    ),
    db.query(
      `${window} SELECT f.status, count(*)::int AS registrations FROM hosts LEFT JOIN public.lead_follow_ups AS f ON f.lead_id = hosts.id GROUP BY f.status`,
      params,
    ),
    db.query(
      `${window} SELECT coalesce(utm->>'utm_campaign', '') AS campaign, count(*)::int AS registrations, min(created_at) AS first, max(created_at) AS last
           FROM hosts WHERE ${fromEmail} GROUP BY 1 ORDER BY registrations DESC, campaign`,
      params,
    ),
  ])
}

/** The visit counts of the query's days, by day and by source. */
function countVisits(db: SqlQueryable, q: PulseQuery) {
  const visitScope = scopeOf(q, 'launch', false, 2)
  const visitDays = `day = ANY($1::date[]) AND ${visitScope.sql}`
  const visitParams = [q.days.map((d) => d.day), ...visitScope.params]
  return Promise.all([
    db.query(
      `SELECT to_char(day, 'YYYY-MM-DD') AS day, sum(visits)::int AS visits, sum(visitors)::int AS visitors FROM public.visit_counts WHERE ${visitDays} GROUP BY day`,
      visitParams,
    ),
    db.query(
      `SELECT source, sum(visitors)::int AS visitors FROM public.visit_counts WHERE ${visitDays} GROUP BY source`,
      visitParams,
    ),
  ])
}

/** The dashboard's counts (LeadPulse) for a scope over its days. */
export async function countPostgresPulse(db: SqlQueryable, q: PulseQuery, defaultLaunch: string): Promise<LeadPulse> {
  if (q.days.length === 0) return { days: [], sources: [], realtors: 0, buyers: 0, statuses: [], emailCampaigns: [] }
  const [[perDay, bySource, kinds, statuses, campaigns], [visits, visitorsBySource]] = await Promise.all([
    countLeads(db, q, defaultLaunch),
    countVisits(db, q),
  ])
  type Kinds = { realtors: number; buyers: number }
  return pulseOf(
    q,
    perDay.rows as Array<{ i: number; registrations: number; from_email: number }>,
    bySource.rows as Array<{ source: string; registrations: number }>,
    new Map((visits.rows as Array<{ day: string; visits: number; visitors: number }>).map((row) => [row.day, row])),
    visitorsBySource.rows as Array<{ source: string; visitors: number }>,
    kinds.rows[0] as Kinds,
    statuses.rows as Array<{ status: string | null; registrations: number }>,
    campaigns.rows as Array<{ campaign: string; registrations: number; first: string | Date; last: string | Date }>,
  )
}

/** The dashboard's counts on a PostgreSQL lead database. */
export function createPostgresPulse(db: SqlQueryable, defaultLaunch: string): Pick<PulseStore, 'countPulse'> {
  return { countPulse: (q) => countPostgresPulse(db, q, defaultLaunch) }
}
