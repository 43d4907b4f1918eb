// The PostgreSQL store's follow-up part (follow-up.ts), on the tables of
// supabase/migrations/20251228000000_lead_follow_up.sql. Each write is one statement, so one transaction.
import { leadUpdatedRecipient, type FollowUpStore, type HistoryEntry } from '../follow-up.ts'
import type { LeadSearch } from '../leads/lead-search.ts'
import type { SqlQueryable } from '../sql-queryable.ts'
import { toIso } from '../postgres/postgres-rows.ts'

type HistoryRow = {
  id: string | number
  lead_id: string | number
  created_at: Date | string
  author: string
  kind: HistoryEntry['kind']
  value: string
}

const toEntry = (row: HistoryRow): HistoryEntry => ({
  id: Number(row.id),
  leadId: Number(row.lead_id),
  createdAt: toIso(row.created_at),
  author: row.author,
  kind: row.kind,
  value: row.value,
})

/**
 * The WHERE clause of a search's follow-up filters on `leads`, its parameters numbered from $at (see
 * sqlite-follow-up.ts).
 */
export function followUpCondition(search: LeadSearch, at: number): { sql: string; params: unknown[] } {
  const parts: string[] = []
  const params: unknown[] = []
  const next = () => `$${at + params.length}`
  const current = (column: string) => `(SELECT f.${column} FROM public.lead_follow_ups AS f WHERE f.lead_id = leads.id)`
  if (search.status) {
    const unset = next()
    params.push(search.status.orUnset ? search.status.is : '')
    const is = next()
    params.push(search.status.is)
    parts.push(`coalesce(${current('status')}, ${unset}::text) = ${is}::text`)
  }
  if (search.assignee !== undefined) {
    parts.push(`coalesce(${current('assignee')}, '') = ${next()}::text`)
    params.push(search.assignee)
  }
  if (search.realtor !== undefined) {
    const realtor = `lower(coalesce(leads.fields->>'isRealtor', '')) IN ('yes', 'true', '1')`
    parts.push(search.realtor ? realtor : `NOT ${realtor}`)
  }
  if (search.createdFrom) {
    parts.push(`leads.created_at >= ${next()}::timestamptz`)
    params.push(search.createdFrom)
  }
  if (search.createdBefore) {
    parts.push(`leads.created_at < ${next()}::timestamptz`)
    params.push(search.createdBefore)
  }
  return { sql: parts.length ? parts.join(' AND ') : 'true', params }
}

/**
 * One statement: the follow-up row, its history line and the webhook call are committed together. A status or
 * assignee equal to the current one changes nothing (the `changed` row is missing).
 */
const recordSql = `WITH lead AS (
           SELECT l.id, f.status, coalesce(f.assignee, '') AS assignee FROM public.leads AS l
           LEFT JOIN public.lead_follow_ups AS f ON f.lead_id = l.id WHERE l.id = $1 FOR UPDATE OF l
         ), changed AS (
           SELECT id FROM lead
           WHERE NOT ($2 = 'status' AND status IS NOT DISTINCT FROM $3) AND NOT ($2 = 'assignee' AND assignee = $3)
         ), saved AS (
           INSERT INTO public.lead_follow_ups (lead_id, status, assignee, updated_at)
           SELECT lead.id, CASE WHEN $2 = 'status' THEN $3 ELSE lead.status END, CASE WHEN $2 = 'assignee' THEN $3 ELSE lead.assignee END, $5
           FROM lead JOIN changed ON changed.id = lead.id
           ON CONFLICT (lead_id) DO UPDATE SET status = excluded.status, assignee = excluded.assignee, updated_at = excluded.updated_at
         ), queued AS (
           INSERT INTO public.outbox (lead_id, kind, recipient, mail, next_attempt_at, created_at)
           SELECT changed.id, 'webhook', $6, $7::jsonb, $5, $5 FROM changed WHERE $7::jsonb IS NOT NULL
         )
         INSERT INTO public.lead_history (lead_id, created_at, author, kind, value)
         SELECT changed.id, $5, $4, $2, $3 FROM changed
         RETURNING id, lead_id, created_at, author, kind, value`

type FollowUpPart = Pick<FollowUpStore, 'recordFollowUp' | 'followUpOf' | 'listAssignees' | 'fillPhoneNumbers'>

/** The follow-up methods on a PostgreSQL lead database. */
export function createPostgresFollowUps(db: SqlQueryable, defaultLaunch: string): FollowUpPart {
  return {
    async recordFollowUp(change) {
      const { rows } = await db.query(recordSql, [
        change.leadId,
        change.kind,
        change.value,
        change.author,
        change.at,
        leadUpdatedRecipient,
        change.webhook ? JSON.stringify(change.webhook) : null,
      ])
      const row = rows[0] as HistoryRow | undefined
      return row ? toEntry(row) : undefined
    },
    async followUpOf(leadId, limit = 200) {
      const [state, history] = await Promise.all([
        db.query('SELECT status, assignee FROM public.lead_follow_ups WHERE lead_id = $1', [leadId]),
        db.query(
          'SELECT id, lead_id, created_at, author, kind, value FROM public.lead_history WHERE lead_id = $1 ORDER BY id DESC LIMIT $2',
          [leadId, limit],
        ),
      ])
      const now = (state.rows[0] as { status: string | null; assignee: string } | undefined) ?? {
        status: null,
        assignee: '',
      }
      return { status: now.status, assignee: now.assignee, history: (history.rows as HistoryRow[]).map(toEntry) }
    },
    async listAssignees() {
      const { rows } = await db.query(
        `SELECT DISTINCT assignee FROM public.lead_follow_ups WHERE assignee <> '' ORDER BY assignee`,
      )
      return (rows as Array<{ assignee: string }>).map((row) => row.assignee)
    },
    async fillPhoneNumbers(read, batch = 500) {
      let filled = 0
      for (;;) {
        const { rows } = await db.query(
          'SELECT id, launch, fields FROM public.leads WHERE phone_e164 IS NULL ORDER BY id LIMIT $1',
          [batch],
        )
        const unread = rows as Array<{
          id: string | number
          launch: string | null
          fields: Record<string, unknown> | string
        }>
        if (unread.length === 0) return filled
        const ids = unread.map((row) => String(row.id))
        const phones = unread.map((row) =>
          read({
            launch: row.launch ?? defaultLaunch,
            fields: typeof row.fields === 'string' ? (JSON.parse(row.fields) as Record<string, unknown>) : row.fields,
          }),
        )
        await db.query(
          'UPDATE public.leads AS l SET phone_e164 = r.e164 FROM unnest($1::bigint[], $2::text[]) AS r (id, e164) WHERE l.id = r.id',
          [ids, phones],
        )
        filled += unread.length
      }
    },
  }
}
