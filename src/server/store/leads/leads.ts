// The leads' part of the store contract (store.ts): a registration as the app hands it over and as it is stored, and
// the methods that save, withdraw and read leads. Implemented side by side here: sqlite-leads.ts, postgres-leads.ts
// (reads), sqlite-save-lead.ts, postgres-save-lead.ts (the registration's one transaction).
import { impliedConsentEnd, type ConsentKind } from '../consent.ts'
import type { NewAssignment } from '../follow-up.ts'
import type { NewMessage, QueuedMail } from '../messages.ts'

/** A registration as the app hands it to the store: already validated and trimmed. */
export type NewLead = {
  submissionId: string
  /** The slug of the launch (development) the registration was made for; '' for the default launch (stored as null). */
  launch: string
  /** ISO 8601, UTC, milliseconds (`Date#toISOString()`). */
  createdAt: string
  fields: Record<string, unknown>
  /** The consent note the server showed (lead-evidence.ts: consentEvidence). */
  consentText: string
  /** SHA-256 of consentText, hex. */
  consentSha256: string
  /** What the browser reported as the note, when it differs from consentText; else null. */
  consentReported: string | null
  pageUrl: string | null
  referrer: string | null
  utm: Record<string, string>
  userAgent: string | null
  /** Ad click ids of the landing address (gclid, gbraid, wbraid, fbclid, msclkid). */
  clickIds: Record<string, string>
  /** The path of the landing page (no query, no fragment). */
  landingPage: string | null
  /** The honeypot was filled: kept (a real lead caught by mistake can be recovered) but never notified. */
  suspectedSpam: boolean
  /**
   * The launch's phase in force when it was registered (schema/phase-schedule.ts); absent for a launch without phases.
   */
  phase?: string | undefined
  /** Express or implied consent to marketing (consent.ts); absent: implied. */
  consentKind?: ConsentKind | undefined
  /** When implied consent ends (ISO 8601); absent: createdAt + 6 months. */
  impliedConsentUntil?: string | undefined
}

/** The columns a new lead's values go to, in leadColumnValues' order. */
export const leadColumnNames = [
  'submission_id',
  'created_at',
  'fields',
  'consent_text',
  'page_url',
  'referrer',
  'utm',
  'user_agent',
  'click_ids',
  'landing_page',
  'suspected_spam',
  'consent_sha256',
  'consent_reported',
  'launch',
  'phase',
  'consent_kind',
  'implied_until',
] as const

/**
 * A new lead's values in the column order both stores insert them (submission_id, created_at, fields,
 * consent_text, page_url, referrer, utm, user_agent, click_ids, landing_page, suspected_spam, consent_sha256,
 * consent_reported, launch, phase, consent_kind, implied_until), JSON columns serialised, the flag as 1/0, no launch
 * ('') as null: the default
 * launch's; no phase as null.
 */
export function leadColumnValues(lead: NewLead): Array<string | number | null> {
  return [
    lead.submissionId,
    lead.createdAt,
    JSON.stringify(lead.fields),
    lead.consentText,
    lead.pageUrl,
    lead.referrer,
    JSON.stringify(lead.utm),
    lead.userAgent,
    JSON.stringify(lead.clickIds),
    lead.landingPage,
    lead.suspectedSpam ? 1 : 0,
    lead.consentSha256,
    lead.consentReported,
    lead.launch || null,
    lead.phase ?? null,
    lead.consentKind ?? 'implied',
    lead.impliedConsentUntil ?? impliedConsentEnd(lead.createdAt),
  ]
}

/**
 * What the database adds to a lead it stores: its id, its submission id as stored, when the person first registered.
 */
export type LeadAdded = { id: number; submissionId: string; firstRegisteredAt: string | null }

/**
 * A lead just stored, as reading its row back would give it: what was sent (`lead`) and what the database added. For a
 * store that would otherwise read back every column of every new lead only to hand the same values over again.
 */
export function storedLeadOf(lead: NewLead, added: LeadAdded, defaultLaunch: string): StoredLead {
  return {
    id: added.id,
    submissionId: added.submissionId,
    launch: lead.launch || defaultLaunch,
    createdAt: lead.createdAt,
    fields: lead.fields,
    consentText: lead.consentText,
    consentSha256: lead.consentSha256,
    consentReported: lead.consentReported,
    pageUrl: lead.pageUrl,
    referrer: lead.referrer,
    utm: lead.utm,
    userAgent: lead.userAgent,
    clickIds: lead.clickIds,
    landingPage: lead.landingPage,
    suspectedSpam: lead.suspectedSpam,
    consentKind: lead.consentKind ?? 'implied',
    impliedConsentUntil: lead.impliedConsentUntil ?? impliedConsentEnd(lead.createdAt),
    ...(lead.phase ? { phase: lead.phase } : {}),
    ...(added.firstRegisteredAt ? { firstRegisteredAt: added.firstRegisteredAt } : {}),
  }
}

/** Options every store is opened with. */
export type LaunchOptions = {
  /** The default launch's slug: what a lead stored before launches were kept (launch null) is read as. */
  defaultLaunch: string
}

/** How many leads each launch has, by slug (null launches counted as the default launch's), sorted by slug. */
export function countsByLaunch(
  rows: Array<{ launch: string | null; leads: number }>,
  defaultLaunch: string,
): LaunchCount[] {
  const counts = new Map<string, number>()
  for (const row of rows) {
    const slug = row.launch ?? defaultLaunch
    counts.set(slug, (counts.get(slug) ?? 0) + Number(row.leads))
  }
  return [...counts].sort(([a], [b]) => a.localeCompare(b)).map(([launch, leads]) => ({ launch, leads }))
}

/** A launch that has leads, and how many. */
export type LaunchCount = { launch: string; leads: number }

/**
 * A registration as stored. Leads stored before the consent hash was kept have none; `withdrawnAt` once it
 * unsubscribed.
 */
export type StoredLead = Omit<NewLead, 'consentSha256' | 'consentKind' | 'impliedConsentUntil'> & {
  id: number
  consentSha256: string | null
  consentKind: ConsentKind
  impliedConsentUntil: string
  withdrawnAt?: string
  /**
   * When this person (same address, same launch) first registered: set by the database on insert, never changed
   * (realtors' co-operation goes to whoever registered the buyer first). Absent only in a file not yet upgraded.
   */
  firstRegisteredAt?: string
}

/** The outcome of a withdrawal: the lead, and when it withdrew (the first time, if it already had). */
export type Withdrawal = { leadId: number; withdrawnAt: string; already: boolean }

/** The outcome of saving a lead: `created` false means the submission id was already stored (nothing changed). */
export type SaveLeadResult = { created: true; lead: StoredLead } | { created: false; lead: StoredLead }

/** Saving a registration: the lead and everything queued with it, in one transaction. */
export interface SaveLeadStore {
  /**
   * Stores the lead and its notification in ONE transaction, or nothing at all; `mail` null stores the lead alone
   * (suspected spam is never notified). A submission id that is already stored changes nothing and returns the
   * stored lead with `created: false`. `more` (the reply, the webhook call) is queued in the same transaction, and so
   * is
   * the `assignment` (its turn taken, the assignee recorded, their mail queued: follow-up.ts).
   */
  saveLead(
    lead: NewLead,
    mail: QueuedMail | null,
    more?: NewMessage[],
    assignment?: NewAssignment,
  ): Promise<SaveLeadResult>
}

/** Reading leads, and a registrant's withdrawal. */
export interface LeadsStore {
  /**
   * Records that a registrant withdrew consent (unsubscribed), with the time; a second withdrawal keeps the first
   * time. Undefined when no lead has this submission id.
   */
  withdrawLead(submissionId: string, now: Date): Promise<Withdrawal | undefined>
  /** Whether any lead of this e-mail address (trimmed, case-insensitive) has withdrawn. */
  isAddressWithdrawn(email: string): Promise<boolean>
  /**
   * Leads in id order, after `afterId`, at most `limit` of them (for paging through an export); of one launch when
   * given.
   */
  listLeads(afterId: number, limit: number, launch?: string): Promise<StoredLead[]>
  /** The launches that have leads, with how many each (the leads page's filter, the export's check of a slug). */
  countLeadsByLaunch(): Promise<LaunchCount[]>
  /** The lead of a submission id (case-insensitive), or undefined: e.g. whose launch an unsubscribe link is for. */
  findLead(submissionId: string): Promise<StoredLead | undefined>
  /** The stored leads of these ids (those still stored), in no set order: what the delivery process composes from. */
  leadsById(ids: readonly number[]): Promise<StoredLead[]>
}
