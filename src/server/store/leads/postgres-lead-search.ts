// The leads list on PostgreSQL (lead-search.ts: LeadSearchStore): a page of a search, its count and whether there is
// more on either side, in at most two round trips.
import type { SqlQueryable } from '../sql-queryable.ts'
import { followUpCondition } from '../follow-up/postgres-follow-up.ts'
import {
  launchCondition,
  launchesCondition,
  leadColumns,
  searchCondition,
  toIso,
  toLead,
  toNumber,
  type LeadRow,
  type ListedRow,
} from '../postgres/postgres-rows.ts'
import type { StoredLead } from './leads.ts'
import {
  notificationStateOf,
  withdrawalOf,
  type LeadSearch,
  type LeadSearchPage,
  type LeadSearchStore,
} from './lead-search.ts'

/** A search's WHERE clause on `leads` (text, phone, launches, follow-up filters), its parameters numbered from $1. */
function matchOf(search: LeadSearch, defaultLaunch: string): { sql: string; params: unknown[] } {
  const typed = searchCondition(search)
  // A phone typed in another format than the lead's is found by its E.164 reading (the leads page passes it).
  const text = search.phone
    ? {
        sql: `(${typed.sql} OR leads.phone_e164 = $${typed.params.length + 1})`,
        params: [...typed.params, search.phone],
      }
    : typed
  const launch = launchCondition(search.launch, defaultLaunch, text.params.length + 1)
  const launches = launchesCondition(search.launches, defaultLaunch, text.params.length + launch.params.length + 1)
  const follow = followUpCondition(search, text.params.length + launch.params.length + launches.params.length + 1)
  return {
    sql: `${text.sql} AND ${launch.sql} AND ${launches.sql} AND ${follow.sql}`,
    params: [...text.params, ...launch.params, ...launches.params, ...follow.params],
  }
}

/** A search's page: its matches, the position it starts from and its direction, as SQL pieces and parameters. */
type PageQuery = {
  match: { sql: string; params: unknown[] }
  /** Read towards newer leads (oldest first), from `position`. */
  newer: boolean
  fromPosition: boolean
  keysetOn(alias: string): string
  order: 'ASC' | 'DESC'
  limit: string
  params: unknown[]
}

function pageQueryOf(search: LeadSearch, defaultLaunch: string): PageQuery {
  const match = matchOf(search, defaultLaunch)
  const n = match.params.length
  const from = search.from
  const newer = from !== undefined && 'newer' in from
  const position = from === undefined ? undefined : 'newer' in from ? from.newer : from.older
  return {
    match,
    newer,
    fromPosition: position !== undefined,
    keysetOn: (alias) =>
      position
        ? ` AND (${alias}.created_at, ${alias}.id) ${newer ? '>' : '<'} ($${n + 1}::timestamptz, $${n + 2})`
        : '',
    order: newer ? 'ASC' : 'DESC',
    limit: `$${n + (position ? 3 : 1)}`,
    params: [...match.params, ...(position ? [position.createdAt, position.id] : []), search.limit],
  }
}

// The lead's first outbox row is its notification; (lead_id, id) is indexed, so this stays one index probe a lead
// whatever the planner's statistics say (min(id) made it walk the primary key on a fresh table).
const listedColumns = `${leadColumns
  .split(', ')
  .map((c) => `leads.${c}`)
  .join(', ')}, leads.withdrawn_at, o.status AS mail_status, o.attempts AS mail_attempts,
           fu.status AS fu_status, fu.assignee AS fu_assignee`
const details = `LEFT JOIN LATERAL (
           SELECT status, attempts FROM public.outbox WHERE outbox.lead_id = leads.id ORDER BY outbox.id LIMIT 1
         ) AS o ON true LEFT JOIN public.lead_follow_ups AS fu ON fu.lead_id = leads.id`

/**
 * A text search reads every lead's fields: the matches are found once, and the page, the count and whether there is
 * more on either side are all taken from them (otherwise each is its own pass over the leads).
 */
async function textSearchPage(db: SqlQueryable, p: PageQuery, toStored: (row: LeadRow) => StoredLead) {
  const { rows } = await db.query(
    `WITH m AS MATERIALIZED (SELECT id, created_at FROM public.leads WHERE ${p.match.sql}),
           p AS (SELECT id, created_at FROM m WHERE true${p.keysetOn('m')} ORDER BY created_at ${p.order}, id ${p.order} LIMIT ${p.limit}),
           meta AS (SELECT (SELECT count(*)::int FROM m) AS total,
             EXISTS (SELECT 1 FROM m WHERE (m.created_at, m.id) > (SELECT created_at, id FROM p ORDER BY created_at DESC, id DESC LIMIT 1)) AS newer,
             EXISTS (SELECT 1 FROM m WHERE (m.created_at, m.id) < (SELECT created_at, id FROM p ORDER BY created_at, id LIMIT 1)) AS older)
           SELECT meta.total, meta.newer AS has_newer, meta.older AS has_older, ${listedColumns}
           FROM meta LEFT JOIN (p JOIN public.leads ON leads.id = p.id ${details}) ON true
           ORDER BY p.created_at ${p.order}, p.id ${p.order}`,
    p.params,
  )
  const found = rows as Array<ListedRow & { total: number; has_newer: boolean; has_older: boolean }>
  const { total, has_newer: hasNewer, has_older: hasOlder } = found[0]!
  return listedPage(
    found.filter((row) => row.id !== null),
    toStored,
    p,
    { total, hasNewer, hasOlder },
  )
}

/** A page without a text: the page, then its count and whether there is more on either side in one round trip. */
async function plainSearchPage(db: SqlQueryable, p: PageQuery, toStored: (row: LeadRow) => StoredLead) {
  const { rows } = await db.query(
    `SELECT ${listedColumns}
         FROM public.leads ${details}
         WHERE ${p.match.sql}${p.keysetOn('leads')}
         ORDER BY leads.created_at ${p.order}, leads.id ${p.order} LIMIT ${p.limit}`,
    p.params,
  )
  const listed = rows as ListedRow[]
  const n = p.match.params.length
  const first = p.newer ? listed.at(-1) : listed[0]
  const last = p.newer ? listed[0] : listed.at(-1)
  const count = `SELECT (SELECT count(*)::int FROM public.leads WHERE ${p.match.sql}) AS total`
  const beyond = (side: '<' | '>', at: number) =>
    `EXISTS (SELECT 1 FROM public.leads WHERE ${p.match.sql} AND (created_at, id) ${side} ($${at}::timestamptz, $${at + 1}))`
  const { rows: meta } = await db.query(
    first && last
      ? `${count}, ${beyond('>', n + 1)} AS newer, ${beyond('<', n + 3)} AS older`
      : `${count}, false AS newer, false AS older`,
    first && last
      ? [...p.match.params, toIso(first.created_at), toNumber(first.id), toIso(last.created_at), toNumber(last.id)]
      : p.match.params,
  )
  const { total, newer: hasNewer, older: hasOlder } = meta[0] as { total: number; newer: boolean; older: boolean }
  return listedPage(listed, toStored, p, { total, hasNewer, hasOlder })
}

/**
 * A search's page of rows as the leads page lists it, newest first (a page read towards newer leads comes oldest
 * first); a page past the end of the matches still says there are newer ones when there are any.
 */
function listedPage(
  rows: ListedRow[],
  toStored: (row: LeadRow) => StoredLead,
  p: Pick<PageQuery, 'newer' | 'fromPosition'>,
  meta: Omit<LeadSearchPage, 'leads'>,
): LeadSearchPage {
  if (p.newer) rows.reverse()
  return {
    leads: rows.map((row) => ({
      ...toStored(row),
      notification: notificationStateOf(row.mail_status, row.mail_attempts),
      ...withdrawalOf(row.withdrawn_at === null ? null : toIso(row.withdrawn_at)),
      followUp: { status: row.fu_status, assignee: row.fu_assignee ?? '' },
    })),
    total: meta.total,
    hasNewer: rows.length === 0 ? meta.total > 0 && p.fromPosition : meta.hasNewer,
    hasOlder: meta.hasOlder,
  }
}

/** LeadSearchStore on a PostgreSQL lead database. */
export function createPostgresLeadSearch(db: SqlQueryable, defaultLaunch: string): LeadSearchStore {
  const toStored = (row: LeadRow) => toLead(row, defaultLaunch)
  return {
    async searchLeads(search) {
      const page = pageQueryOf(search, defaultLaunch)
      return search.text?.trim() ? await textSearchPage(db, page, toStored) : await plainSearchPage(db, page, toStored)
    },
  }
}
