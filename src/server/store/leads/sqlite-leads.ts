// Reading leads and recording a withdrawal in SQLite (leads.ts: LeadsStore), and the launch filters the leads list
// shares (sqlite-lead-search.ts).
import type { SqliteContext } from '../sqlite/sqlite-context.ts'
import { promised } from '../sqlite/sqlite-promised.ts'
import { emailKey, type LeadRow } from '../sqlite/sqlite-rows.ts'
import { countsByLaunch, type LeadsStore } from './leads.ts'

/** A WHERE clause on `leads` and its parameters. */
export type SqliteCondition = { sql: string; params: unknown[] }

/** The WHERE clause and parameters that keep one launch's leads (null launches are the default launch's). */
export function launchCondition(ctx: SqliteContext, launch: string | undefined): SqliteCondition {
  if (launch === undefined) return { sql: '1 = 1', params: [] }
  if (!ctx.hasLaunch) return { sql: launch === ctx.defaultLaunch ? '1 = 1' : '0 = 1', params: [] }
  return launch === ctx.defaultLaunch
    ? { sql: '(leads.launch = ? OR leads.launch IS NULL)', params: [launch] }
    : { sql: 'leads.launch = ?', params: [launch] }
}

/** The WHERE clause that keeps the leads of a list of launches (undefined: every launch). */
export function launchesCondition(ctx: SqliteContext, launches: readonly string[] | undefined): SqliteCondition {
  if (launches === undefined) return { sql: '1 = 1', params: [] }
  const withDefault = launches.includes(ctx.defaultLaunch)
  if (!ctx.hasLaunch) return { sql: withDefault ? '1 = 1' : '0 = 1', params: [] }
  const listed = 'leads.launch IN (SELECT value FROM json_each(?))'
  return { sql: withDefault ? `(${listed} OR leads.launch IS NULL)` : listed, params: [JSON.stringify(launches)] }
}

/** LeadsStore on an open SQLite lead database. */
export function createSqliteLeads(ctx: SqliteContext): LeadsStore {
  const { query, toStored } = ctx
  return promised<LeadsStore>({
    withdrawLead(submissionId, now) {
      ctx.writable()
      const at = now.toISOString()
      const row = query<{ id: number; withdrawn_at: string }>(
        `UPDATE leads SET withdrawn_at = coalesce(withdrawn_at, @now) WHERE submission_id = @submissionId RETURNING id, withdrawn_at`,
      ).get({ now: at, submissionId: submissionId.toLowerCase() })
      return row ? { leadId: row.id, withdrawnAt: row.withdrawn_at, already: row.withdrawn_at !== at } : undefined
    },
    isAddressWithdrawn(email) {
      // Prepared on first use: a read-only store may open a file that predates withdrawn_at.
      return (
        query<{ one: number }>(
          `SELECT 1 AS one FROM leads WHERE withdrawn_at IS NOT NULL AND ${emailKey('fields')} = ? LIMIT 1`,
        ).get(email.trim().toLowerCase()) !== undefined
      )
    },
    findLead(submissionId) {
      const row = query<LeadRow>('SELECT * FROM leads WHERE submission_id = ?').get(submissionId.toLowerCase())
      return row ? toStored(row) : undefined
    },
    leadsById(ids) {
      return ids.length === 0
        ? []
        : query<LeadRow>('SELECT * FROM leads WHERE id IN (SELECT value FROM json_each(?))')
            .all(JSON.stringify(ids))
            .map(toStored)
    },
    listLeads(afterId, limit, launch) {
      const only = launchCondition(ctx, launch)
      return query<LeadRow>(`SELECT * FROM leads WHERE id > ? AND ${only.sql} ORDER BY id LIMIT ?`)
        .all(afterId, ...only.params, limit)
        .map(toStored)
    },
    countLeadsByLaunch() {
      const rows = query<{ launch: string | null; leads: number }>(
        ctx.hasLaunch
          ? 'SELECT launch, count(*) AS leads FROM leads GROUP BY launch'
          : 'SELECT NULL AS launch, count(*) AS leads FROM leads',
      ).all()
      return countsByLaunch(
        rows.filter((row) => row.leads > 0),
        ctx.defaultLaunch,
      )
    },
  })
}
