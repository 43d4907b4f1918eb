/**
 * Announcements to a launch's list (the leads page): a short message the team writes once, queued in the outbox as one
 * 'announcement' message per lead who may receive marketing (consent.ts), each with its own unsubscribe link.
 *
 * announcements: id, key (a UUID, part of each message's Message-ID), launch, subject, body, author, created_at
 * outbox.announcement_id: the announcement a message belongs to (null for every other kind); one per lead and
 * announcement.
 * An author's test copy is an 'announcement' message of no lead and no announcement (lead_id and announcement_id null).
 */

/** An announcement as the leads page hands it to the store. */
export type NewAnnouncement = {
  /** A fresh UUID: each message's Message-ID and idempotency key carry it, so a re-sent copy is the same message. */
  key: string
  launch: string
  subject: string
  /** The plain text the author wrote (never markup). */
  text: string
  /** Who sent it: the studio account's e-mail, or "Team password". */
  author: string
  /** ISO 8601, UTC. */
  createdAt: string
}

/** An announcement as the leads page lists it: how many messages it queued, and how many have gone. */
export type Announcement = NewAnnouncement & { id: number; recipients: number; sent: number }

/** An announcement in a lead's history: what it was and how its message to this lead went. */
export type LeadAnnouncement = {
  id: number
  subject: string
  createdAt: string
  author: string
  status: 'pending' | 'sent' | 'failed' | 'cancelled'
}

/**
 * The announcements' part of the store, over the store's lead and mail (store.ts: StoredLead, OutgoingMail; generic so
 * this file needs nothing of store.ts, which extends it).
 */
export interface AnnouncementStore<Lead, Mail> {
  /**
   * The leads of `launch` who may receive marketing at `now`: express consent, or implied consent not yet ended;
   * never suspected spam, never a lead whose address withdrew (this lead or another of the same address). Newest
   * first; several leads of one address all come (onePerAddress keeps one). The suppression list is the caller's.
   */
  listMarketableLeads(launch: string, now: Date): Promise<Lead[]>
  /**
   * Stores the announcement and queues its messages (one per lead), all in one transaction. With `quietSince` (ISO
   * 8601), only if no announcement of its launch was made after that time, checked in the same transaction (two senders
   * at once never both pass): undefined when one was, and nothing is stored.
   */
  saveAnnouncement(
    announcement: NewAnnouncement,
    messages: Array<{ leadId: number; mail: Mail }>,
    quietSince?: string,
  ): Promise<Announcement | undefined>
  /**
   * Queues the author's test copy of an announcement: a message of no lead (lead_id null), sent and retried by the
   * outbox.
   */
  queueTestAnnouncement(mail: Mail, now: Date): Promise<void>
  /** Announcements newest first, of these launches (undefined: every launch). */
  listAnnouncements(launches: readonly string[] | undefined): Promise<Announcement[]>
  /** The announcements sent to one lead, newest first. */
  listLeadAnnouncements(leadId: number): Promise<LeadAnnouncement[]>
}

/** One lead per address (trimmed, lower case), the first of each in the given order. */
export function onePerAddress<Lead extends { fields: Record<string, unknown> }>(leads: Lead[]): Lead[] {
  const seen = new Set<string>()
  return leads.filter((lead) => {
    const email = typeof lead.fields.email === 'string' ? lead.fields.email.trim().toLowerCase() : ''
    if (email === '' || seen.has(email)) return false
    seen.add(email)
    return true
  })
}

/**
 * Who an announcement of `launch` goes to at `now`, from the leads page or at a phase's start: the leads who may
 * receive marketing (listMarketableLeads), one per address, none whose address is on the suppression list.
 */
export async function listRecipients<Lead extends { fields: Record<string, unknown> }, Key>(
  store: Pick<AnnouncementStore<Lead, unknown>, 'listMarketableLeads'> & { isSuppressed(key: Key): Promise<boolean> },
  launch: string,
  now: Date,
  suppressionKeyOf: (email: string) => Promise<Key>,
): Promise<Lead[]> {
  const kept: Lead[] = []
  for (const lead of onePerAddress(await store.listMarketableLeads(launch, now))) {
    if (!(await store.isSuppressed(await suppressionKeyOf(String(lead.fields.email))))) kept.push(lead)
  }
  return kept
}
