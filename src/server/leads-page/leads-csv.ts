import { stringify } from 'csv-stringify/sync'
import { isRealtorLead } from '../delivery/realtor.ts'
import { clickIdParams } from '../../../schema/registration-contract.ts'
import { orderedFields, type NotificationForm } from '../delivery/notification.ts'
import type { StoredLead } from '../store/store.ts'
import type { DocumentOpenings } from '../store/document-downloads.ts'
import type { ReleaseStore, StoredWorksheet } from '../store/release.ts'

/**
 * Leads as CSV (RFC 4180), for `npm run leads:export` and the leads page's download: one writer, so both apply the
 * same formula-injection rule and the same columns.
 */

const standardUtm = ['utm_source', 'utm_medium', 'utm_campaign', 'utm_term', 'utm_content']

/**
 * One CSV record (RFC 4180, by csv-stringify): fields with a comma, quote, CR or LF are quoted, quotes doubled,
 * CRLF at the end. Text starting with =, +, -, @, tab or carriage return (or their full-width forms) would be run
 * as a formula by a spreadsheet ("=HYPERLINK(…)"), so it gets a leading apostrophe, which spreadsheets show as text.
 */
export function csvRecord(values: string[]): string {
  // Giving record_delimiter turns off quoting of line breaks unless asked for: a field with a bare LF must be quoted.
  return stringify([values], { record_delimiter: 'windows', quote_record_delimiter: true, escape_formulas: true })
}

/**
 * The form fields of several launches' forms as one list of columns: each form's in its own order, the first form's
 * (the default launch's) first, a field two forms share once. Fields asked only under a condition (a realtor's
 * brokerage) are left to the data: they become columns, after these, only when some lead holds them.
 */
export function fieldsOfForms(forms: NotificationForm[]): string[] {
  const fields: string[] = []
  for (const form of forms) {
    const always = Object.keys((form.schema as { properties?: object }).properties ?? {})
    for (const field of orderedFields(form)) if (always.includes(field) && !fields.includes(field)) fields.push(field)
  }
  return fields
}

function cell(value: unknown): string {
  if (value === undefined || value === null) return ''
  return typeof value === 'string' ? value : JSON.stringify(value)
}

/** The full CSV's columns: the lead's own, its form fields, consent, where it came from, its documents. */
function headerOf(fields: string[], utm: string[], worksheets: boolean): string[] {
  return [
    'id',
    'created_at',
    'submission_id',
    'launch',
    'phase',
    'realtor',
    'first_registered_at',
    'suspected_spam',
    ...fields,
    'consent_text',
    'consent_sha256',
    'consent_reported',
    'consent_kind',
    'implied_consent_until',
    'page_url',
    'referrer',
    'landing_page',
    ...utm,
    ...clickIdParams,
    'user_agent',
    'withdrawn_at',
    'documents_opened',
    // A realtor's worksheets and their outcome (issue 45), where the server has a release store.
    ...(worksheets ? ['worksheets'] : []),
  ]
}

/** One lead as a record of the full CSV, in headerOf's order. */
function recordOf(
  lead: StoredLead,
  fields: string[],
  utm: string[],
  opened: DocumentOpenings[],
  worksheets: StoredWorksheet[] | undefined,
): string {
  return csvRecord([
    String(lead.id),
    lead.createdAt,
    lead.submissionId,
    lead.launch,
    cell(lead.phase),
    // A realtor's registration (isRealtor yes), and when this person first registered for the launch (co-operation).
    isRealtorLead(lead.fields) ? 'yes' : '',
    cell(lead.firstRegisteredAt),
    // Caught by the honeypot: kept apart from real leads by this column, so one caught by mistake can be recovered.
    lead.suspectedSpam ? 'yes' : '',
    ...fields.map((f) => cell(lead.fields[f])),
    cell(lead.consentText),
    cell(lead.consentSha256),
    cell(lead.consentReported),
    // CASL: express (the updates box ticked) or implied, and when implied consent ends (it stops marketing then).
    lead.consentKind,
    lead.consentKind === 'implied' ? lead.impliedConsentUntil : '',
    cell(lead.pageUrl),
    cell(lead.referrer),
    cell(lead.landingPage),
    ...utm.map((k) => cell(lead.utm[k])),
    ...clickIdParams.map((k) => cell(lead.clickIds[k])),
    cell(lead.userAgent),
    cell(lead.withdrawnAt),
    // Which documents the lead opened (the best sign of a hot lead): "Price list: 3 (last 2026-03-03T15:04:05.000Z)".
    opened.map((o) => `${o.title}: ${o.count} (last ${o.last})`).join('; '),
    ...(worksheets ? [worksheets.map(worksheetLine).join(' | ')] : []),
  ])
}

/**
 * Writes leads as CSV through `write`, in the order `leads()` yields them. Two passes, so memory stays flat: the
 * first finds the columns (the forms' fields in form order, then any other field or utm_* key the data holds) and
 * the newest id, the second writes the leads up to that id (a lead stored in between has a higher id and waits
 * for the next download). `leads` is called once for each pass. `openings` (the store's documentOpeningsOf) fills the
 * documents_opened column, read for a few hundred leads at a time. Returns how many were written.
 */
export async function writeLeadsCsv(
  leads: () => AsyncIterable<StoredLead>,
  formFields: string[],
  write: (chunk: string) => void | Promise<void>,
  openings?: (leadIds: readonly number[]) => Promise<DocumentOpenings[]>,
  worksheetsOf?: (leads: readonly StoredLead[]) => Promise<Map<number, StoredWorksheet[]>>,
): Promise<number> {
  const fields = [...formFields]
  const utm = [...standardUtm]
  let lastId = 0
  for await (const lead of leads()) {
    for (const key of Object.keys(lead.fields)) if (!fields.includes(key)) fields.push(key)
    for (const key of Object.keys(lead.utm)) if (!utm.includes(key)) utm.push(key)
    lastId = Math.max(lastId, lead.id)
  }
  await write(csvRecord(headerOf(fields, utm, worksheetsOf !== undefined)))
  let count = 0
  let batch: StoredLead[] = []
  const flush = async () => {
    const read = openings && batch.length ? await openings(batch.map((lead) => lead.id)) : []
    const sheets = worksheetsOf && batch.length ? await worksheetsOf(batch) : undefined
    for (const lead of batch) {
      await write(
        recordOf(
          lead,
          fields,
          utm,
          read.filter((o) => o.leadId === lead.id),
          sheets && (sheets.get(lead.id) ?? []),
        ),
      )
    }
    count += batch.length
    batch = []
  }
  for await (const lead of leads()) {
    if (lead.id > lastId) continue
    batch.push(lead)
    if (batch.length >= 500) await flush()
  }
  await flush()
  return count
}

// A realtor's worksheets (issue 45): on the realtor's lead page and in one column of the CSV.

/** What the leads page reads of the release store. */
export type LeadsWorksheets = Pick<ReleaseStore, 'listWorksheets'>

/** A worksheet's outcome in words: "allocated Lot 14 (Maple)", "waitlisted: why", "declined: why", "waiting". */
export function outcomeWords(worksheet: StoredWorksheet): string {
  if (worksheet.outcome === 'allocated') return `allocated ${worksheet.allocatedLot} (${worksheet.allocatedModel})`
  if (worksheet.outcome === 'received') return 'waiting'
  return `${worksheet.outcome}: ${worksheet.reason ?? ''}`
}

/** A worksheet's choices in words: "Lot 14, Maple; any lot, Birch". */
export function choicesWords(worksheet: StoredWorksheet): string {
  return worksheet.choices.map((c) => `${c.lot ?? 'any lot'}, ${c.model}`).join('; ')
}

/** A worksheet in one line of the CSV: "#2 Cleo Client (Lot 14, Maple): allocated Lot 14 (Maple)". */
export function worksheetLine(worksheet: StoredWorksheet): string {
  return `#${worksheet.number} ${worksheet.clientName} (${choicesWords(worksheet)}): ${outcomeWords(worksheet)}`
}

/** The worksheets of each of `leads` (a realtor's lead id → its worksheets), read one launch at a time. */
export async function worksheetsOfLeads(
  release: LeadsWorksheets,
  leads: ReadonlyArray<{ id: number; launch: string }>,
): Promise<Map<number, StoredWorksheet[]>> {
  const ids = new Set(leads.map((lead) => lead.id))
  const byLead = new Map<number, StoredWorksheet[]>()
  for (const launch of new Set(leads.map((lead) => lead.launch))) {
    for (const worksheet of await release.listWorksheets(launch)) {
      if (!ids.has(worksheet.realtorLeadId)) continue
      byLead.set(worksheet.realtorLeadId, [...(byLead.get(worksheet.realtorLeadId) ?? []), worksheet])
    }
  }
  return byLead
}
