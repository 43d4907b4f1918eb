// The SQLite store's follow-up part (follow-up.ts): status, assignee, notes and history; the same person's other
// registrations; phones in E.164; and the follow-up filters of the leads list. Schema version 8 (sqlite-schema.ts).
import type { SqliteContext } from '../sqlite/sqlite-context.ts'
import { promised } from '../sqlite/sqlite-promised.ts'
import { leadUpdatedRecipient, type FollowUpStore, type HistoryEntry } from '../follow-up.ts'
import type { LeadSearch } from '../leads/lead-search.ts'

type HistoryRow = {
  id: number
  lead_id: number
  created_at: string
  author: string
  kind: HistoryEntry['kind']
  value: string
}

const toEntry = (row: HistoryRow): HistoryEntry => ({
  id: row.id,
  leadId: row.lead_id,
  createdAt: row.created_at,
  author: row.author,
  kind: row.kind,
  value: row.value,
})

/**
 * The WHERE clause and parameters of a search's follow-up filters (status, assignee, realtor, dates) on `leads`:
 * correlated lookups, so the count and paging queries need no join.
 */
export function followUpCondition(search: LeadSearch): { sql: string; params: unknown[] } {
  const parts: string[] = []
  const params: unknown[] = []
  const current = (column: string) => `(SELECT f.${column} FROM lead_follow_ups AS f WHERE f.lead_id = leads.id)`
  if (search.status) {
    // A lead never given a status reads as the chosen one when that is the launch's first (New), else as none.
    parts.push(`coalesce(${current('status')}, ?) = ?`)
    params.push(search.status.orUnset ? search.status.is : '', search.status.is)
  }
  if (search.assignee !== undefined) {
    parts.push(`coalesce(${current('assignee')}, '') = ?`)
    params.push(search.assignee)
  }
  if (search.realtor !== undefined) {
    const realtor = `lower(coalesce(json_extract(leads.fields, '$.isRealtor'), '')) IN ('yes', 'true', '1')`
    parts.push(search.realtor ? realtor : `NOT ${realtor}`)
  }
  if (search.createdFrom) {
    parts.push('leads.created_at >= ?')
    params.push(search.createdFrom)
  }
  if (search.createdBefore) {
    parts.push('leads.created_at < ?')
    params.push(search.createdBefore)
  }
  return { sql: parts.length ? parts.join(' AND ') : '1 = 1', params }
}

type FollowUpPart = Pick<FollowUpStore, 'recordFollowUp' | 'followUpOf' | 'listAssignees' | 'fillPhoneNumbers'>

/** The follow-up methods on an open SQLite lead database (version 8); statements are prepared on first use. */
export function createSqliteFollowUps(ctx: SqliteContext): FollowUpPart {
  const { db, query } = ctx
  const stateOf = (leadId: number) =>
    query<{ status: string | null; assignee: string }>(
      'SELECT status, assignee FROM lead_follow_ups WHERE lead_id = ?',
    ).get(leadId) ?? { status: null, assignee: '' }

  const record = db.transaction((change: Parameters<FollowUpStore['recordFollowUp']>[0]): HistoryEntry | undefined => {
    if (!query<{ id: number }>('SELECT id FROM leads WHERE id = ?').get(change.leadId)) return undefined
    const now = stateOf(change.leadId)
    if (change.kind === 'status' && now.status === change.value) return undefined
    if (change.kind === 'assignee' && now.assignee === change.value) return undefined
    query(
      `INSERT INTO lead_follow_ups (lead_id, status, assignee, updated_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (lead_id) DO UPDATE SET status = excluded.status, assignee = excluded.assignee, updated_at = excluded.updated_at`,
    ).run(
      change.leadId,
      change.kind === 'status' ? change.value : now.status,
      change.kind === 'assignee' ? change.value : now.assignee,
      change.at,
    )
    const row = query<HistoryRow>(
      'INSERT INTO lead_history (lead_id, created_at, author, kind, value) VALUES (?, ?, ?, ?, ?) RETURNING *',
    ).get(change.leadId, change.at, change.author, change.kind, change.value)!
    if (change.webhook) {
      query(
        `INSERT INTO outbox (lead_id, kind, recipient, mail, next_attempt_at, created_at) VALUES (?, 'webhook', ?, ?, ?, ?)`,
      ).run(change.leadId, leadUpdatedRecipient, JSON.stringify(change.webhook), change.at, change.at)
    }
    return toEntry(row)
  })

  return promised<FollowUpPart>({
    recordFollowUp(change) {
      return record.immediate(change)
    },
    followUpOf(leadId, limit = 200) {
      const history = query<HistoryRow>('SELECT * FROM lead_history WHERE lead_id = ? ORDER BY id DESC LIMIT ?').all(
        leadId,
        limit,
      )
      return { ...stateOf(leadId), history: history.map(toEntry) }
    },
    listAssignees() {
      return query<{ assignee: string }>(
        `SELECT DISTINCT assignee FROM lead_follow_ups WHERE assignee <> '' ORDER BY assignee`,
      )
        .all()
        .map((row) => row.assignee)
    },
    fillPhoneNumbers(read, batch = 500) {
      const unread = query<{ id: number; launch: string | null; fields: string }>(
        'SELECT id, launch, fields FROM leads WHERE phone_e164 IS NULL ORDER BY id LIMIT ?',
      )
      const update = query('UPDATE leads SET phone_e164 = ? WHERE id = ?')
      const write = db.transaction((rows: Array<{ id: number; e164: string }>) => {
        for (const row of rows) update.run(row.e164, row.id)
      })
      let filled = 0
      for (;;) {
        const rows = unread.all(batch)
        if (rows.length === 0) return filled
        write.immediate(
          rows.map((row) => ({
            id: row.id,
            e164: read({
              launch: row.launch ?? ctx.defaultLaunch,
              fields: JSON.parse(row.fields) as Record<string, unknown>,
            }),
          })),
        )
        filled += rows.length
      }
    },
  })
}
