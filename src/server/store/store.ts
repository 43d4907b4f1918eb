// The store room (src/server/store/): where leads are kept: this contract, its SQLite and PostgreSQL drivers, the
// data folder's lock and private files, the evidence a lead records, erasure and the suppression list.
/**
 * The one storage interface the app and the outbox worker use. Two implementations keep the same table
 * shape: sqlite-store.ts (Node, one machine) and postgres-store.ts (Supabase / any PostgreSQL).
 *
 * leads                                   outbox
 *   id             integer, primary key     id               integer, primary key
 *   submission_id  unique (idempotency)     lead_id          → leads.id
 *   created_at     when it was stored       recipient        where the notification goes
 *   fields         every validated field    mail             the composed message (subject, text, html…), or what to compose when sent (messages.ts LaterMail)
 *   consent_text   the consent shown        status           'pending' | 'sent'
 *   page_url       where it was sent from   attempts         delivery attempts so far
 *   referrer       document.referrer        next_attempt_at  not tried again before this
 *   utm            utm_* parameters         locked_until     claimed by a worker until this
 *   user_agent     the browser's UA         last_error       why the last attempt failed (no personal data)
 *   withdrawn_at   consent withdrawn (CASL) created_at, sent_at, failed_at
 *   click_ids      gclid, fbclid … (JSON)   kind             'notification' | 'reply' | 'webhook' | 'assignment' (one each a
 *                                                            lead), 'announcement', 'summary' (no lead: lead_id null)
 *   landing_page   the landing path
 *   suspected_spam the honeypot was filled: stored, never notified, replied to or sent to the webhook
 *   consent_sha256 SHA-256 of consent_text
 *   consent_reported the browser's text, if other
 *   launch         the launch's slug; null on leads stored before launches were kept (the default launch)
 *   phone_e164     the phone read as E.164 by the leads page; null until read, '' when none (follow-up.ts)
 *   phase          the launch's phase when it was registered (page.config.json "phases"); null for a launch without
 *                  phases, and on leads stored before phases were kept
 *   consent_kind   'express' (the form's updates box ticked) | 'implied' (the inquiry; CASL: six months) (consent.ts)
 *   implied_until  when implied consent ends: the inquiry + 6 months, computed once at registration
 *
 * consent_text is the launch's note as the server knows it (never the browser's copy), consent_sha256 its version
 * (null on leads stored before it was kept), consent_reported what the browser claimed it showed when that differs.
 * page_url is scheme://host/path of one of the site's own pages, or null (lead-evidence.ts).
 *
 * An outbox row is `pending` until it is sent, or `failed` once it was refused for good or ran out of attempts
 * (`npm run outbox:retry` puts those back), or `cancelled` when the registrant withdrew before it went.
 *
 * A lead's launch is never null to callers: a store is opened with the default launch's slug and reads a null
 * launch as it, in every list and filter (filtering by the default launch includes the leads stored before).
 *
 * suppressions: address_key (HMAC of an address that withdrew consent, never the address), created_at
 * sign_in_failures, sign_in_devices: the sign-in limiter's counts (store/sign-in-counts.ts)
 * lead_follow_ups (status, assignee), lead_history (status, assignee, note; when, who): the follow-up (follow-up.ts)
 * roster_turns (roster, turns): each launch's round robin (follow-up.ts: NewAssignment); daily_runs (job, day) (daily-runs.ts)
 * visit_counts (launch, day, source; visits, visitors): the launch pages' visits a day, counted without cookies (PulseStore)
 * document_downloads (lead, document, title, when): each opening of a document link (document-downloads.ts)
 */
import type { SignInCounts } from './sign-in-counts.ts'
import type { FollowUpState, FollowUpStore, NewAssignment } from './follow-up.ts'
import type { DailyMailStore } from './daily-runs.ts'
import type { AnnouncementStore } from './announcements.ts'
import type { DocumentStore } from './document-downloads.ts'
import { impliedConsentEnd, type ConsentKind } from './consent.ts'
import type {
  MessageCounts,
  MessageQuery,
  MessageState,
  NewMessage,
  OutboxJob,
  OutgoingMail,
  QueuedMail,
  WebhookMessage,
} from './messages.ts'

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
  /** The launch's phase in force when it was registered (schema/phase-schedule.ts); absent for a launch without phases. */
  phase?: string | undefined
  /** Express or implied consent to marketing (consent.ts); absent: implied. */
  consentKind?: ConsentKind | undefined
  /** When implied consent ends (ISO 8601); absent: createdAt + 6 months. */
  impliedConsentUntil?: string | undefined
}

/**
 * A new lead's values in the column order both stores insert them (submission_id, created_at, fields,
 * consent_text, page_url, referrer, utm, user_agent, click_ids, landing_page, suspected_spam, consent_sha256,
 * consent_reported, launch, phase, consent_kind, implied_until), JSON columns serialised, the flag as 1/0, no launch ('') as null: the default
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

/** A registration as stored. Leads stored before the consent hash was kept have none; `withdrawnAt` once it unsubscribed. */
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

export type {
  OutgoingMail,
  MessageKind,
  MessageStatus,
  WebhookMessage,
  LaterMail,
  QueuedMail,
  NewMessage,
  OutboxJob,
  MessageState,
  MessageQuery,
  MessageCounts,
} from './messages.ts'

/** The outcome of a withdrawal: the lead, and when it withdrew (the first time, if it already had). */
export type Withdrawal = { leadId: number; withdrawnAt: string; already: boolean }

/** The outcome of saving a lead: `created` false means the submission id was already stored (nothing changed). */
export type SaveLeadResult = { created: true; lead: StoredLead } | { created: false; lead: StoredLead }

/** Where a page of the leads list ends: a lead's time and id, never its personal data (it travels in URLs). */
export type LeadPosition = { createdAt: string; id: number }

/** A search of the leads list, which runs newest first. */
export type LeadSearch = {
  /**
   * Text any form field's value contains, case-insensitively (ASCII). When it looks like a phone number (digits
   * with spaces, dashes, dots, brackets or +), a value matches whatever separators it was typed with.
   */
  text?: string
  /** Leads older than this one (the next page), or newer than it (the previous page); the newest when absent. */
  from?: { older: LeadPosition } | { newer: LeadPosition }
  /** Only this launch's leads (the default launch's include those stored before launches were kept). */
  launch?: string
  /** Only leads of these launches (an account limited to some; empty: none), besides `launch`. */
  launches?: readonly string[]
  /** Leads whose phone in E.164 is this one (follow-up.ts), as well as those the text finds: e.g. '+16475550111'. */
  phone?: string
  /** Only leads in this status; `orUnset`: and those never given one (it is the launch's first status, New). */
  status?: { is: string; orUnset: boolean }
  /** Only leads assigned to this person ('' unassigned). */
  assignee?: string
  /** Only realtors (the form's isRealtor is yes), or only the others. */
  realtor?: boolean
  /** Only leads received at or after this time (ISO 8601, UTC). */
  createdFrom?: string
  /** Only leads received before this time (ISO 8601, UTC). */
  createdBefore?: string
  /** Leads a page. */
  limit: number
}

/** Where a lead's notification stands, read from the outbox: 'retrying' is pending after a failed attempt, 'none' none. */
export type NotificationState = {
  status: 'pending' | 'retrying' | 'sent' | 'failed' | 'cancelled' | 'none'
  attempts: number
}

/** A lead as the leads page lists it: with its notification's state and, once it withdrew its consent, when. */
export type ListedLead = StoredLead & {
  notification: NotificationState
  withdrawnAt?: string
  followUp?: FollowUpState
}

/** A listed lead's withdrawal, as the store read it (absent unless the lead withdrew). */
export function withdrawalOf(withdrawnAt: string | null | undefined): { withdrawnAt?: string } {
  return withdrawnAt ? { withdrawnAt } : {}
}

/** One page of a search, newest first, and whether there is more on either side. */
export type LeadSearchPage = { leads: ListedLead[]; total: number; hasNewer: boolean; hasOlder: boolean }

/** The notification state of an outbox row's status and attempts (no row: 'none'). */
export function notificationStateOf(status: string | null, attempts: number | null): NotificationState {
  const tries = attempts ?? 0
  if (status === 'sent' || status === 'failed') return { status, attempts: tries }
  if (status === 'cancelled') return { status: 'cancelled', attempts: tries }
  if (status === 'pending') return { status: tries > 0 ? 'retrying' : 'pending', attempts: tries }
  return { status: 'none', attempts: tries }
}

/**
 * A search text as a LIKE pattern (\\ escapes), and its digits alone when it reads as a phone number. `rough` is what
 * every match's whole `fields` JSON text must contain, cheap to test before each field is looked at: the text as it
 * is (JSON writes a value verbatim unless it holds `"`, `\\` or a control character, and then there is none), and for
 * a phone number its digits in order with anything between. Only a filter: the fields decide.
 */
export function searchPatterns(text: string): {
  like: string
  digits: string | null
  rough: { like: string; digits: string | null } | null
} {
  const trimmed = text.trim()
  const like = `%${trimmed.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`
  const digitsOnly =
    /^[\d\s().+-]+$/.test(trimmed) && (trimmed.match(/\d/g) ?? []).length >= 3 ? trimmed.replace(/\D/g, '') : null
  const verbatim = !/["\\\u0000-\u001f\ud800-\udfff]/.test(trimmed)
  return {
    like,
    digits: digitsOnly === null ? null : `%${digitsOnly}%`,
    rough: verbatim ? { like, digits: digitsOnly === null ? null : `%${digitsOnly.split('').join('%')}%` } : null,
  }
}

/** Counts of the outbox by state (health checks, tests, bench). */
export type OutboxCounts = { pending: number; sent: number }

/** Which leads to erase: every lead of an e-mail address (case-insensitive), one submission, or all stored before a time. */
export type LeadSelector = { email: string } | { submissionId: string } | { createdBefore: Date }

/**
 * A keyed hash (HMAC-SHA256, suppression.ts) of an e-mail address: what the suppression list holds instead of the
 * address. Branded, so a plain address cannot be stored by mistake.
 */
export type AddressKey = string & { readonly __addressKey: unique symbol }

/** What an erasure removed: counts for the person running it, and the message ids whose .eml copies must go too. */
export type ErasureResult = {
  leads: number
  messages: number
  /** Addresses newly put on the suppression list (leads that had withdrawn their consent). */
  suppressed: number
  messageIds: string[]
}

/** Where leads and their pending messages live, and the sign-in limiter's counts (sign-in-counts.ts); all callable at once. */
export interface LeadStore
  extends
    SignInCounts,
    FollowUpStore,
    PulseStore,
    AnnouncementStore<StoredLead, OutgoingMail>,
    DailyMailStore<OutgoingMail>,
    DocumentStore<WebhookMessage, OutgoingMail> {
  /**
   * Stores the lead and its notification in ONE transaction, or nothing at all; `mail` null stores the lead alone
   * (suspected spam is never notified). A submission id that is already stored changes nothing and returns the
   * stored lead with `created: false`. `more` (the reply, the webhook call) is queued in the same transaction, and so is
   * the `assignment` (its turn taken, the assignee recorded, their mail queued: follow-up.ts).
   */
  saveLead(
    lead: NewLead,
    mail: QueuedMail | null,
    more?: NewMessage[],
    assignment?: NewAssignment,
  ): Promise<SaveLeadResult>
  /**
   * Claims up to `limit` pending notifications that are due at `now` and not claimed by someone else, and marks
   * them claimed until `now + leaseMs` (a worker that dies mid-send releases them that way).
   */
  claimDueMail(now: Date, limit: number, leaseMs: number): Promise<OutboxJob[]>
  /** Marks notifications delivered. */
  markMailSent(ids: number[], now: Date): Promise<void>
  /** Records a failed attempt and when to try again. */
  markMailFailed(id: number, error: string, nextAttemptAt: Date): Promise<void>
  /** Records a last failed attempt: the message is `failed` (refused for good, or out of attempts) until retried. */
  markMessageFailed(id: number, error: string, now: Date): Promise<void>
  /** Ends a message unsent because its registrant withdrew. */
  markMessageCancelled(id: number, now: Date): Promise<void>
  /** Puts every `failed` message back to `pending`, due now, with a fresh count of attempts; returns how many. */
  retryFailedMessages(now: Date): Promise<number>
  /** Messages by state, kind and lead (no content): what the leads page and the retry command show. */
  listMessages(query: MessageQuery): Promise<MessageState[]>
  /** How many messages are in each state. */
  countMessages(): Promise<MessageCounts>
  /**
   * Records that a registrant withdrew consent (unsubscribed), with the time; a second withdrawal keeps the first
   * time. Undefined when no lead has this submission id.
   */
  withdrawLead(submissionId: string, now: Date): Promise<Withdrawal | undefined>
  /** Whether any lead of this e-mail address (trimmed, case-insensitive) has withdrawn. */
  isAddressWithdrawn(email: string): Promise<boolean>
  /** Leads in id order, after `afterId`, at most `limit` of them (for paging through an export); of one launch when given. */
  listLeads(afterId: number, limit: number, launch?: string): Promise<StoredLead[]>
  /** The launches that have leads, with how many each (the leads page's filter, the export's check of a slug). */
  countLeadsByLaunch(): Promise<LaunchCount[]>
  /** The lead of a submission id (case-insensitive), or undefined: e.g. whose launch an unsubscribe link is for. */
  findLead(submissionId: string): Promise<StoredLead | undefined>
  /** The stored leads of these ids (those still stored), in no set order: what the delivery process composes from. */
  leadsById(ids: readonly number[]): Promise<StoredLead[]>
  /** A page of the leads list, newest first (created_at, then id), with each lead's notification state. */
  searchLeads(search: LeadSearch): Promise<LeadSearchPage>
  /** How many notifications are pending and sent. */
  countMail(): Promise<OutboxCounts>
  /** How many leads, and notifications of theirs, an erasure with this selector would remove. */
  countErasable(selector: LeadSelector): Promise<{ leads: number; messages: number }>
  /**
   * Removes the selected leads and their notifications in one transaction. A lead that had withdrawn its consent
   * leaves its address's key (from `keyOf`) on the suppression list, so erasing it never makes it contactable again.
   * SQLite also overwrites the freed bytes and empties its WAL.
   */
  eraseLeads(selector: LeadSelector, keyOf: (email: string) => Promise<AddressKey>): Promise<ErasureResult>
  /** Puts an address (as its key) on the suppression list: it withdrew consent and must not be contacted again. */
  suppressAddress(key: AddressKey): Promise<void>
  /** Whether an address (as its key) is on the suppression list. */
  isSuppressed(key: AddressKey): Promise<boolean>
  /** Releases the database. */
  close(): Promise<void>
}

/** One day of the dashboard, in the team's time zone: its date (YYYY-MM-DD) and its bounds as ISO 8601 UTC. */
export type PulseDay = { day: string; start: string; end: string }

/** What the dashboard counts: the leads of a scope (LeadSearch's launch and launches) over consecutive days, oldest first. */
export type PulseQuery = Pick<LeadSearch, 'launch' | 'launches'> & { days: readonly PulseDay[] }

/**
 * The dashboard's counts over the query's days (suspected spam left out). A source is the lead's utm_source (lower
 * case), else the network of its ad click id, else its referrer's host (without www., not the page's own), else ''
 * (direct); a visit's source is read the same way from the page's address and Referer. Status null: never given one.
 */
export type LeadPulse = {
  days: Array<{ day: string; registrations: number; fromEmail: number; visits: number; visitors: number }>
  sources: Array<{ source: string; registrations: number; visitors: number }>
  realtors: number
  buyers: number
  statuses: Array<{ status: string | null; registrations: number }>
  /** Registrations from an e-mail's links (utm_medium email), by utm_campaign ('' none). */
  emailCampaigns: Array<{ campaign: string; registrations: number; first: string; last: string }>
}

/** A launch's page views and new unique visitors on one day (in the team's time zone), from one source. */
export type VisitCount = { launch: string; day: string; source: string; visits: number; visitors: number }

/** The networks an ad click id names, as a source. */
export const clickIdNetworks: ReadonlyArray<readonly [string, readonly string[]]> = [
  ['Google Ads', ['gclid', 'gbraid', 'wbraid']],
  ['Meta ads', ['fbclid']],
  ['Microsoft Ads', ['msclkid']],
]

/** A registration's source as the dashboard counts it in SQL (LeadPulse), read in code: '' is direct. */
export function sourceOfLead(lead: Pick<StoredLead, 'utm' | 'clickIds' | 'referrer' | 'pageUrl'>): string {
  const utm = (lead.utm.utm_source ?? '').trim().toLowerCase()
  if (utm) return utm
  for (const [network, ids] of clickIdNetworks) if (ids.some((id) => lead.clickIds[id] !== undefined)) return network
  const hostOf = (url: string | null) =>
    url && url.includes('://')
      ? url
          .slice(url.indexOf('://') + 3)
          .split('/')[0]!
          .toLowerCase()
      : ''
  const from = hostOf(lead.referrer)
  if (from === '' || from === hostOf(lead.pageUrl)) return ''
  return from.startsWith('www.') ? from.slice(4) : from
}

/** The utm_medium values (lower case) of a link in an e-mail: the blast's registrations. */
export const emailMedia = ['email', 'e-mail', 'newsletter'] as const

/** The dashboard's part of the store: counts made in SQL, never by reading every lead. */
export interface PulseStore {
  /** The counts of the dashboard (LeadPulse) for a scope over its days. */
  countPulse(query: PulseQuery): Promise<LeadPulse>
  /** Adds visit counts to the stored ones (same launch, day and source: summed). */
  addVisits(counts: readonly VisitCount[]): Promise<void>
}

/** The dashboard's counts from the rows of its queries, as both stores read them (numbers may come as text). */
export function pulseOf(
  q: PulseQuery,
  perDay: Array<{ i: number | string; registrations: number | string; from_email: number | string }>,
  bySource: Array<{ source: string; registrations: number | string }>,
  visitsByDay: ReadonlyMap<string, { visits: number | string; visitors: number | string }>,
  visitorsBySource: Array<{ source: string; visitors: number | string }>,
  kinds: { realtors: number | string | null; buyers: number | string | null },
  statuses: Array<{ status: string | null; registrations: number | string }>,
  campaigns: Array<{ campaign: string; registrations: number | string; first: string | Date; last: string | Date }>,
): LeadPulse {
  const byIndex = new Map(perDay.map((row) => [Number(row.i), row]))
  const sources = new Map<string, { source: string; registrations: number; visitors: number }>()
  for (const row of bySource)
    sources.set(row.source, { source: row.source, registrations: Number(row.registrations), visitors: 0 })
  for (const row of visitorsBySource) {
    const known = sources.get(row.source) ?? { source: row.source, registrations: 0, visitors: 0 }
    known.visitors += Number(row.visitors)
    sources.set(row.source, known)
  }
  const iso = (value: string | Date) => (value instanceof Date ? value : new Date(value)).toISOString()
  return {
    days: q.days.map((d, i) => ({
      day: d.day,
      registrations: Number(byIndex.get(i)?.registrations ?? 0),
      fromEmail: Number(byIndex.get(i)?.from_email ?? 0),
      visits: Number(visitsByDay.get(d.day)?.visits ?? 0),
      visitors: Number(visitsByDay.get(d.day)?.visitors ?? 0),
    })),
    sources: [...sources.values()].sort(
      (a, b) => b.registrations - a.registrations || b.visitors - a.visitors || a.source.localeCompare(b.source),
    ),
    realtors: Number(kinds.realtors ?? 0),
    buyers: Number(kinds.buyers ?? 0),
    statuses: statuses.map((row) => ({ status: row.status, registrations: Number(row.registrations) })),
    emailCampaigns: campaigns.map((row) => ({
      campaign: row.campaign,
      registrations: Number(row.registrations),
      first: iso(row.first),
      last: iso(row.last),
    })),
  }
}
