// The leads list in SQLite (lead-search.ts: LeadSearchStore): a page of a search, its count and whether there is more
// on either side.
import type { SqliteContext } from '../sqlite/sqlite-context.ts'
import { promised } from '../sqlite/sqlite-promised.ts'
import { searchCondition, type ListedRow } from '../sqlite/sqlite-rows.ts'
import { followUpCondition } from '../follow-up/sqlite-follow-up.ts'
import { launchCondition, launchesCondition, type SqliteCondition } from './sqlite-leads.ts'
import {
  notificationStateOf,
  withdrawalOf,
  type LeadSearch,
  type LeadSearchPage,
  type LeadSearchStore,
} from './lead-search.ts'

/** A search's WHERE clause on `leads` (text, phone, launches, follow-up filters). */
function matchOf(ctx: SqliteContext, search: LeadSearch): SqliteCondition {
  const typed = searchCondition(search)
  // A phone typed in another format than the lead's is found by its E.164 reading (the leads page passes it).
  const text =
    ctx.hasFollowUps && search.phone
      ? { sql: `(${typed.sql} OR leads.phone_e164 = ?)`, params: [...typed.params, search.phone] }
      : typed
  const launch = launchCondition(ctx, search.launch)
  const launches = launchesCondition(ctx, search.launches)
  const follow = ctx.hasFollowUps ? followUpCondition(search) : { sql: '1 = 1', params: [] }
  return {
    sql: `${text.sql} AND ${launch.sql} AND ${launches.sql} AND ${follow.sql}`,
    params: [...text.params, ...launch.params, ...launches.params, ...follow.params],
  }
}

/** The page's rows, newest first, with each lead's notification and follow-up. */
function pageRows(ctx: SqliteContext, search: LeadSearch, match: SqliteCondition) {
  const from = search.from
  const newer = from !== undefined && 'newer' in from
  const position = from === undefined ? undefined : 'newer' in from ? from.newer : from.older
  const keyset = position ? ` AND (leads.created_at, leads.id) ${newer ? '>' : '<'} (?, ?)` : ''
  const order = newer ? 'ASC' : 'DESC'
  const followUp = ctx.hasFollowUps
  const rows = ctx
    .query<ListedRow>(
      `SELECT leads.*, o.status AS mail_status, o.attempts AS mail_attempts${followUp ? ', fu.status AS fu_status, fu.assignee AS fu_assignee' : ''}
       FROM leads LEFT JOIN outbox AS o ON o.id = (SELECT min(id) FROM outbox WHERE outbox.lead_id = leads.id)${followUp ? ' LEFT JOIN lead_follow_ups AS fu ON fu.lead_id = leads.id' : ''}
       WHERE ${match.sql}${keyset}
       ORDER BY leads.created_at ${order}, leads.id ${order} LIMIT ?`,
    )
    .all(...match.params, ...(position ? [position.createdAt, position.id] : []), search.limit)
  if (newer) rows.reverse()
  return { rows, fromPosition: position !== undefined }
}

/** A page of the leads list, newest first, with its count and whether there is more on either side. */
export function searchSqliteLeads(ctx: SqliteContext, search: LeadSearch): LeadSearchPage {
  const match = matchOf(ctx, search)
  const { rows, fromPosition } = pageRows(ctx, search, match)
  const total =
    ctx.query<{ n: number }>(`SELECT count(*) AS n FROM leads WHERE ${match.sql}`).get(...match.params)?.n ?? 0
  const beyond = (row: ListedRow | undefined, side: '<' | '>') =>
    row !== undefined &&
    ctx
      .query<{ found: number }>(
        `SELECT EXISTS (SELECT 1 FROM leads WHERE ${match.sql} AND (created_at, id) ${side} (?, ?)) AS found`,
      )
      .get(...match.params, row.created_at, row.id)?.found === 1
  return {
    leads: rows.map((row) => ({
      ...ctx.toStored(row),
      notification: notificationStateOf(row.mail_status, row.mail_attempts),
      ...withdrawalOf(row.withdrawn_at),
      followUp: { status: row.fu_status ?? null, assignee: row.fu_assignee ?? '' },
    })),
    total,
    hasNewer: rows.length === 0 ? total > 0 && fromPosition : beyond(rows[0], '>'),
    hasOlder: beyond(rows.at(-1), '<'),
  }
}

/** LeadSearchStore on an open SQLite lead database. */
export function createSqliteLeadSearch(ctx: SqliteContext): LeadSearchStore {
  return promised<LeadSearchStore>({ searchLeads: (search) => searchSqliteLeads(ctx, search) })
}
