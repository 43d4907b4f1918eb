/**
 * The PostgreSQL store's rows as the driver reads them (ids may come back as strings or bigints, times as Date or
 * text, JSON as objects or text) and their conversion to the store contract's types; the WHERE clauses the store's
 * queries share. The SQLite store's counterpart is sqlite/sqlite-rows.ts.
 */
import {
  searchPatterns,
  type LeadSearch,
  type LeadSelector,
  type MessageKind,
  type MessageState,
  type MessageStatus,
  type OutboxJob,
  type OutgoingMail,
  type QueuedMail,
  type StoredLead,
  type WebhookMessage,
} from '../store.ts'
import { impliedConsentEnd, type ConsentKind } from '../consent.ts'
import { leadColumnNames } from '../leads/leads.ts'

export type LeadRow = {
  id: string | number | bigint
  submission_id: string
  created_at: Date | string
  fields: Record<string, unknown> | string
  consent_text: string
  page_url: string | null
  referrer: string | null
  utm: Record<string, string> | string
  user_agent: string | null
  click_ids: Record<string, string> | string
  landing_page: string | null
  suspected_spam: boolean
  consent_sha256: string | null
  consent_reported: string | null
  withdrawn_at: Date | string | null
  launch: string | null
  phase: string | null
  first_registered_at: Date | string | null
  consent_kind: ConsentKind | null
  implied_until: Date | string | null
}

export type JobRow = {
  id: string | number | bigint
  lead_id: string | number | bigint | null
  attempts: number
  kind: MessageKind
  mail: QueuedMail | WebhookMessage | string
  withdrawn: boolean
}

export type MessageRow = {
  id: string | number | bigint
  lead_id: string | number | bigint | null
  kind: MessageKind
  status: MessageStatus
  attempts: number
  last_error: string | null
  created_at: Date | string
  next_attempt_at: Date | string
  sent_at: Date | string | null
  failed_at: Date | string | null
}

export const leadColumns =
  'id, submission_id, created_at, fields, consent_text, page_url, referrer, utm, user_agent, click_ids, landing_page, suspected_spam, consent_sha256, consent_reported, withdrawn_at, launch, phase, first_registered_at, consent_kind, implied_until'
export const messageColumns =
  'id, lead_id, kind, status, attempts, last_error, created_at, next_attempt_at, sent_at, failed_at'
// A lead's address as compared for withdrawal: trimmed, lower case (the partial index leads_withdrawn_email).
export const emailKey = (alias: string) => `lower(btrim(${alias}.fields->>'email'))`

export type ListedRow = LeadRow & {
  withdrawn_at: Date | string | null
  mail_status: string | null
  mail_attempts: number | null
  fu_status: string | null
  fu_assignee: string | null
}

/** The WHERE clause of a search's text, its parameters numbered from $1 (see sqlite-store.ts for the rule). */
export function searchCondition(search: LeadSearch): { sql: string; params: unknown[] } {
  if (!search.text?.trim()) return { sql: 'true', params: [] }
  const { like, digits, rough } = searchPatterns(search.text)
  const phone = digits === null ? '' : ` OR regexp_replace(f.value, '[-\\s.()+]', '', 'g') LIKE $2`
  const exact = `EXISTS (SELECT 1 FROM jsonb_each_text(leads.fields) AS f WHERE jsonb_typeof(leads.fields -> f.key) = 'string' AND (f.value ILIKE $1${phone}))`
  const params = digits === null ? [like] : [like, digits]
  if (!rough) return { sql: exact, params }
  // The whole JSON text first (one ILIKE a lead), so only the leads that may match have their fields read one by one.
  const at = params.length + 1
  const roughPhone = rough.digits === null ? '' : ` OR leads.fields::text LIKE $${at + 1}`
  return {
    sql: `(leads.fields::text ILIKE $${at}${roughPhone}) AND ${exact}`,
    params: [...params, ...(rough.digits === null ? [rough.like] : [rough.like, rough.digits])],
  }
}

/**
 * The WHERE clause keeping one launch's leads, its parameter numbered $at: the default launch's include those
 * stored before launches were kept (launch null).
 */
export function launchCondition(
  launch: string | undefined,
  defaultLaunch: string,
  at: number,
): { sql: string; params: unknown[] } {
  if (launch === undefined) return { sql: 'true', params: [] }
  return {
    sql: launch === defaultLaunch ? `(leads.launch = $${at} OR leads.launch IS NULL)` : `leads.launch = $${at}`,
    params: [launch],
  }
}

/** The WHERE clause keeping the leads of a list of launches (undefined: every launch), its parameter numbered $at. */
export function launchesCondition(
  launches: readonly string[] | undefined,
  defaultLaunch: string,
  at: number,
): { sql: string; params: unknown[] } {
  if (launches === undefined) return { sql: 'true', params: [] }
  const listed = `leads.launch = ANY($${at}::text[])`
  return {
    sql: launches.includes(defaultLaunch) ? `(${listed} OR leads.launch IS NULL)` : listed,
    params: [[...launches]],
  }
}

// Drivers differ in how they hand back bigint, timestamptz and jsonb; normalise here.
export function toNumber(value: string | number | bigint): number {
  return typeof value === 'number' ? value : Number(value)
}

export function toIso(value: Date | string): string {
  return (value instanceof Date ? value : new Date(value)).toISOString()
}

export function fromJson<T>(value: T | string): T {
  return typeof value === 'string' ? (JSON.parse(value) as T) : value
}

export function toLead(row: LeadRow, defaultLaunch: string): StoredLead {
  return {
    id: toNumber(row.id),
    submissionId: row.submission_id,
    launch: row.launch ?? defaultLaunch,
    createdAt: toIso(row.created_at),
    fields: fromJson(row.fields),
    consentText: row.consent_text,
    consentSha256: row.consent_sha256,
    consentReported: row.consent_reported,
    pageUrl: row.page_url,
    referrer: row.referrer,
    utm: fromJson(row.utm),
    userAgent: row.user_agent,
    clickIds: fromJson(row.click_ids),
    landingPage: row.landing_page,
    suspectedSpam: row.suspected_spam === true,
    consentKind: row.consent_kind ?? 'implied',
    impliedConsentUntil: row.implied_until ? toIso(row.implied_until) : impliedConsentEnd(toIso(row.created_at)),
    ...(row.phase ? { phase: row.phase } : {}),
    ...(row.first_registered_at ? { firstRegisteredAt: toIso(row.first_registered_at) } : {}),
    ...(row.withdrawn_at ? { withdrawnAt: toIso(row.withdrawn_at) } : {}),
  }
}

export function toJob(row: JobRow): OutboxJob {
  const base = {
    id: toNumber(row.id),
    leadId: row.lead_id === null ? null : toNumber(row.lead_id),
    attempts: row.attempts,
    withdrawn: row.withdrawn,
  }
  return row.kind === 'webhook'
    ? { ...base, kind: 'webhook', webhook: fromJson(row.mail as WebhookMessage | string) }
    : { ...base, kind: row.kind, mail: fromJson(row.mail as OutgoingMail | string) }
}

export function toMessageState(row: MessageRow): MessageState {
  return {
    id: toNumber(row.id),
    leadId: row.lead_id === null ? null : toNumber(row.lead_id),
    kind: row.kind,
    status: row.status,
    attempts: row.attempts,
    lastError: row.last_error,
    createdAt: toIso(row.created_at),
    nextAttemptAt: toIso(row.next_attempt_at),
    sentAt: row.sent_at === null ? null : toIso(row.sent_at),
    failedAt: row.failed_at === null ? null : toIso(row.failed_at),
  }
}

/** The WHERE clause (parameter $1) and its parameter for a selector (leads table). */
export function whereOf(selector: LeadSelector): [string, string] {
  if ('email' in selector) return [`lower(btrim(fields->>'email')) = $1`, selector.email.trim().toLowerCase()]
  if ('submissionId' in selector) return ['submission_id::text = $1', selector.submissionId.trim().toLowerCase()]
  return ['created_at < $1', selector.createdBefore.toISOString()]
}

/** The leads columns whose value (from leadColumnValues) is not text as it is: its PostgreSQL type. */
const leadColumnTypes: Partial<Record<(typeof leadColumnNames)[number], string>> = {
  submission_id: 'uuid',
  created_at: 'timestamptz',
  fields: 'jsonb',
  utm: 'jsonb',
  click_ids: 'jsonb',
  suspected_spam: 'boolean',
  implied_until: 'timestamptz',
}

/** A new lead's value for the leads column `name`, from `value` (text, or 1/0 for the flag) as the table takes it. */
export function leadValueSql(name: (typeof leadColumnNames)[number], value: string): string {
  // The flag comes as 1 or 0 (leadColumnValues serves both stores).
  if (name === 'suspected_spam') return `${value}::int = 1`
  const type = leadColumnTypes[name]
  return type ? `${value}::${type}` : value
}

/** The leads columns as a record of text (jsonb_to_recordset's column list), after `i int`. */
export const leadRecordColumns = leadColumnNames
  .map((name) => `${name} ${name === 'suspected_spam' ? 'int' : 'text'}`)
  .join(', ')
