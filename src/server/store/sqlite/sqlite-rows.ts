// The SQLite store's rows and SQL pieces: what a row reads as, and the WHERE clauses of selectors and searches.
import {
  searchPatterns,
  type LeadSearch,
  type LeadSelector,
  type MessageKind,
  type MessageState,
  type MessageStatus,
  type OutboxJob,
  type OutgoingMail,
  type StoredLead,
  type WebhookMessage,
} from '../store.ts'
import { impliedConsentEnd, type ConsentKind } from '../consent.ts'
import { leadColumnNames } from '../leads/leads.ts'

/** The WHERE clause and parameter for a selector (leads table). */
export function whereOf(selector: LeadSelector): [string, string] {
  if ('email' in selector)
    return [`lower(trim(json_extract(fields, '$.email'))) = ?`, selector.email.trim().toLowerCase()]
  if ('submissionId' in selector) return ['submission_id = ?', selector.submissionId.trim().toLowerCase()]
  return ['created_at < ?', selector.createdBefore.toISOString()]
}

/** The address of a lead as compared for withdrawal: trimmed, lower case. */
export function emailKey(fieldsColumn: string): string {
  return `lower(trim(json_extract(${fieldsColumn}, '$.email')))`
}

/** A row of the leads table as better-sqlite3 returns it. */
export type LeadRow = {
  id: number
  withdrawn_at?: string | null
  submission_id: string
  created_at: string
  fields: string
  consent_text: string
  page_url: string | null
  referrer: string | null
  utm: string
  user_agent: string | null
  click_ids: string
  landing_page: string | null
  suspected_spam: number
  consent_sha256: string | null
  consent_reported: string | null
  launch?: string | null
  phase?: string | null
  first_registered_at?: string | null
  consent_kind?: ConsentKind | null
  implied_until?: string | null
}

/** An outbox row claimed for sending, with whether its lead has withdrawn. */
export type JobRow = {
  id: number
  lead_id: number | null
  attempts: number
  kind: MessageKind
  mail: string
  withdrawn: number
}

/** The outbox columns that say how a lead's messages went. */
export type MessageRow = {
  id: number
  lead_id: number | null
  kind: MessageKind
  status: MessageStatus
  attempts: number
  last_error: string | null
  created_at: string
  next_attempt_at: string
  sent_at: string | null
  failed_at: string | null
}

/** How one of a lead's messages went, from its outbox row. */
export function toMessageState(row: MessageRow): MessageState {
  return {
    id: row.id,
    leadId: row.lead_id,
    kind: row.kind,
    status: row.status,
    attempts: row.attempts,
    lastError: row.last_error,
    createdAt: row.created_at,
    nextAttemptAt: row.next_attempt_at,
    sentAt: row.sent_at,
    failedAt: row.failed_at,
  }
}

/** A claimed outbox row as the job the outbox worker sends. */
export function toJob(row: JobRow): OutboxJob {
  const base = { id: row.id, leadId: row.lead_id, attempts: row.attempts, withdrawn: row.withdrawn === 1 }
  return row.kind === 'webhook'
    ? { ...base, kind: 'webhook', webhook: JSON.parse(row.mail) as WebhookMessage }
    : { ...base, kind: row.kind, mail: JSON.parse(row.mail) as OutgoingMail }
}

/** A lead as the leads list reads it: with its withdrawal and its notification's state. */
export type ListedRow = LeadRow & {
  withdrawn_at: string | null
  mail_status: string | null
  mail_attempts: number | null
  fu_status?: string | null
  fu_assignee?: string | null
}

/**
 * The statements that store a registration, shared by the store's own connection and its writer thread: a lead (its
 * columns in the order of leadColumnValues; nothing done on a repeated submission id) and its messages.
 */
export const saveStatements = {
  insertLead: `INSERT INTO leads (${leadColumnNames.join(', ')}) VALUES (${leadColumnNames.map(() => '?').join(', ')})
    ON CONFLICT (submission_id) DO NOTHING RETURNING id`,
  insertMail: 'INSERT INTO outbox (lead_id, recipient, mail, next_attempt_at, created_at) VALUES (?, ?, ?, ?, ?)',
  insertMessage:
    'INSERT INTO outbox (lead_id, kind, recipient, mail, next_attempt_at, created_at) VALUES (?, ?, ?, ?, ?, ?)',
  // A new lead's assignment (follow-up.ts: NewAssignment): the roster's next turn, the assignee and its history line.
  takeTurn:
    'INSERT INTO roster_turns (roster, turns) VALUES (?, 1) ON CONFLICT (roster) DO UPDATE SET turns = turns + 1 RETURNING turns',
  assignLead: 'INSERT INTO lead_follow_ups (lead_id, status, assignee, updated_at) VALUES (?, NULL, ?, ?)',
  assignmentHistory:
    "INSERT INTO lead_history (lead_id, created_at, author, kind, value) VALUES (?, ?, ?, 'assignee', ?)",
}

// The leads list pages newest first by (created_at, id): this index serves both the order and the keyset.
export const leadsListIndex = 'CREATE INDEX IF NOT EXISTS leads_newest ON leads (created_at, id)'

/**
 * How far behind the mail is (countBacklog): the pending messages by when they were queued, so their count and the
 * oldest come from the index alone, as supabase/migrations/20260128000000_outbox_backlog.sql.
 */
export const outboxBacklogIndex =
  "CREATE INDEX IF NOT EXISTS outbox_pending_since ON outbox (created_at) WHERE status = 'pending'"

// A value with a phone number's usual separators removed, so "555 555 0100" finds "555-555-0100".
const phoneDigits = ['-', ' ', '.', '(', ')', '+'].reduce((sql, ch) => `replace(${sql}, '${ch}', '')`, 'f.value')

/** The WHERE clause and parameters of a search's text (without the paging position). */
export function searchCondition(search: LeadSearch): { sql: string; params: unknown[] } {
  if (!search.text?.trim()) return { sql: '1 = 1', params: [] }
  const { like, digits, rough } = searchPatterns(search.text)
  const phone = digits === null ? '' : ` OR ${phoneDigits} LIKE ?`
  const exact = {
    sql: `EXISTS (SELECT 1 FROM json_each(leads.fields) AS f WHERE f.type = 'text' AND (f.value LIKE ? ESCAPE '\\'${phone}))`,
    params: digits === null ? [like] : [like, digits],
  }
  if (!rough) return exact
  // The whole JSON text first (one LIKE a lead), so only the leads that may match have their fields read one by one.
  const roughPhone = rough.digits === null ? '' : ' OR leads.fields LIKE ?'
  return {
    sql: `(leads.fields LIKE ? ESCAPE '\\'${roughPhone}) AND ${exact.sql}`,
    params: [...(rough.digits === null ? [rough.like] : [rough.like, rough.digits]), ...exact.params],
  }
}

/** A leads row as the store's StoredLead; `defaultLaunch` for rows stored before launches were kept. */
export function toLead(row: LeadRow, defaultLaunch: string): StoredLead {
  return {
    id: row.id,
    submissionId: row.submission_id,
    // Null on leads stored before launches were kept; absent in a read-only file an older server still runs on.
    launch: row.launch ?? defaultLaunch,
    createdAt: row.created_at,
    fields: JSON.parse(row.fields) as Record<string, unknown>,
    consentText: row.consent_text,
    // A read-only database not yet upgraded (an older server still runs on it) has neither column.
    consentSha256: row.consent_sha256 ?? null,
    consentReported: row.consent_reported ?? null,
    pageUrl: row.page_url,
    referrer: row.referrer,
    utm: JSON.parse(row.utm) as Record<string, string>,
    userAgent: row.user_agent,
    clickIds: JSON.parse(row.click_ids) as Record<string, string>,
    landingPage: row.landing_page,
    suspectedSpam: row.suspected_spam === 1,
    // A read-only file not yet upgraded has neither: its leads were all implied.
    consentKind: row.consent_kind ?? 'implied',
    impliedConsentUntil: row.implied_until ?? impliedConsentEnd(row.created_at),
    ...(row.phase ? { phase: row.phase } : {}),
    ...(row.first_registered_at ? { firstRegisteredAt: row.first_registered_at } : {}),
    ...(row.withdrawn_at ? { withdrawnAt: row.withdrawn_at } : {}),
  }
}
