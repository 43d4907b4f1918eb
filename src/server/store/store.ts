// The store room (src/server/store/): where leads are kept: this contract, its SQLite and PostgreSQL drivers, the
// data folder's lock and private files, the evidence a lead records, erasure and the suppression list.
/**
 * The one storage interface the app and the outbox worker use, composed from one part per concern. Two
 * implementations keep the same table shape: sqlite/sqlite-store.ts (Node, one machine) and postgres/postgres-store.ts
 * (Supabase / any PostgreSQL), each assembled from its concerns' modules. A concern's part of the contract is the file
 * named for it (leads/leads.ts, outbox/outbox.ts, follow-up.ts …) and its folder holds the SQLite and PostgreSQL
 * versions side by side (leads/sqlite-leads.ts beside leads/postgres-leads.ts). A new concern: its folder, its part
 * of the contract added to LeadStore below, and one line in each store's assembly.
 *
 * leads                                   outbox
 *   id             integer, primary key     id               integer, primary key
 *   submission_id  unique (idempotency)     lead_id          → leads.id
 *   created_at     when it was stored       recipient        where the notification goes
 * fields         every validated field    mail             the composed message (subject, text, html…), or what to
 * compose when sent (messages.ts LaterMail)
 *   consent_text   the consent shown        status           'pending' | 'sent'
 *   page_url       where it was sent from   attempts         delivery attempts so far
 *   referrer       document.referrer        next_attempt_at  not tried again before this
 *   utm            utm_* parameters         locked_until     claimed by a worker until this
 *   user_agent     the browser's UA         last_error       why the last attempt failed (no personal data)
 *   withdrawn_at   consent withdrawn (CASL) created_at, sent_at, failed_at
 * click_ids      gclid, fbclid … (JSON)   kind             'notification' | 'reply' | 'webhook' | 'assignment' (one
 *                                                            each a lead), 'announcement', 'summary', 'account' (no
 *                                                            lead: lead_id null)
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
 * roster_turns (roster, turns): each launch's round robin (follow-up.ts: NewAssignment); daily_runs (job, day)
 * (daily-runs.ts)
 * visit_counts (launch, day, source; visits, visitors): the launch pages' visits a day, counted without cookies
 * (PulseStore)
 * document_downloads (lead, document, title, when): each opening of a document link (document-downloads.ts)
 */
import type { SignInCounts } from './sign-in-counts.ts'
import type { FollowUpStore } from './follow-up.ts'
import type { DailyMailStore } from './daily-runs.ts'
import type { AccountMailStore } from './account-mail/account-mail.ts'
import type { AnnouncementStore } from './announcements.ts'
import type { DocumentStore } from './document-downloads.ts'
import type { ErasureStore } from './erasure.ts'
import type { SuppressionStore } from './suppression.ts'
import type { OutgoingMail, WebhookMessage } from './messages.ts'
import type { LeadsStore, SaveLeadStore, StoredLead } from './leads/leads.ts'
import type { LeadSearchStore } from './leads/lead-search.ts'
import type { OutboxStore } from './outbox/outbox.ts'
import type { PulseStore } from './pulse/pulse.ts'

// The contract's parts, named here too for the rooms that import them from the contract.
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
export type {
  NewLead,
  LaunchOptions,
  LaunchCount,
  StoredLead,
  Withdrawal,
  SaveLeadResult,
  LeadsStore,
  SaveLeadStore,
} from './leads/leads.ts'
export { leadColumnValues, countsByLaunch } from './leads/leads.ts'
export type {
  LeadPosition,
  LeadSearch,
  NotificationState,
  ListedLead,
  LeadSearchPage,
  LeadSearchStore,
} from './leads/lead-search.ts'
export { withdrawalOf, notificationStateOf, searchPatterns } from './leads/lead-search.ts'
export type { OutboxCounts, OutboxStore } from './outbox/outbox.ts'
export type { LeadSelector, ErasureResult, ErasureStore } from './erasure.ts'
export type { AddressKey, SuppressionStore } from './suppression.ts'
export type { PulseDay, PulseQuery, LeadPulse, VisitCount, PulseStore } from './pulse/pulse.ts'
export { clickIdNetworks, sourceOfLead, emailMedia, pulseOf } from './pulse/pulse.ts'

/**
 * Where leads and their pending messages live, and the sign-in limiter's counts (sign-in-counts.ts): every concern's
 * part in one; all callable at once.
 */
export interface LeadStore
  extends
    SaveLeadStore,
    LeadsStore,
    LeadSearchStore,
    OutboxStore,
    ErasureStore,
    SuppressionStore,
    SignInCounts,
    FollowUpStore,
    PulseStore,
    AnnouncementStore<StoredLead, OutgoingMail>,
    DailyMailStore<OutgoingMail>,
    AccountMailStore<OutgoingMail>,
    DocumentStore<WebhookMessage, OutgoingMail> {
  /** Releases the database. */
  close(): Promise<void>
}
