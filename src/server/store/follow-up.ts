// The follow-up part of the store contract (store.ts): a lead's status, assignee and notes with their history, the
// other registrations of the same person, and each phone number in E.164. Both stores implement it
// (sqlite-follow-up.ts, postgres-follow-up.ts) on the tables of supabase/migrations/20251228000000_lead_follow_up.sql.

/** What one change is: a new status, a new assignee ('' unassigned) or a note. */
export type FollowUpKind = 'status' | 'assignee' | 'note'

/**
 * A change as the leads page records it. `webhook`: the signed lead.updated call to queue with it (WEBHOOK_URL set).
 */
export type FollowUpChange = {
  leadId: number
  kind: FollowUpKind
  value: string
  /** Who made it: the account's e-mail, or the shared password's words. */
  author: string
  /** ISO 8601, UTC. */
  at: string
  /** store.ts's WebhookMessage: the exact body and its idempotency key. */
  webhook?: { id: string; body: string } | undefined
}

/** One line of a lead's history. */
export type HistoryEntry = {
  id: number
  leadId: number
  createdAt: string
  author: string
  kind: FollowUpKind
  value: string
}

/** Where a lead's follow-up stands: status null is the launch's first status (New); assignee '' is nobody. */
export type FollowUpState = { status: string | null; assignee: string }

/** A lead's follow-up and its history, newest first. */
export type FollowUp = FollowUpState & { history: HistoryEntry[] }

/** Another registration of the same person (same e-mail, or same phone in E.164): no personal data. */
export type OtherRegistration = { id: number; launch: string; createdAt: string }

/**
 * The realtor's registration a buyer named as their agent: its id, when it was made, the realtor's name and brokerage.
 */
export type AgentRegistration = { id: number; createdAt: string; name: string; brokerage: string }

/** The outbox recipient of lead.updated webhook calls: a lead may have any number of them. */
export const leadUpdatedRecipient = 'webhook:lead.updated'

/** How a lead's phone reads in E.164, by its launch's form: '' when it has none that reads as a number. */
export type PhoneReader = (lead: { launch: string; fields: Record<string, unknown> }) => string

/** The follow-up methods of a LeadStore. */
export interface FollowUpStore {
  /**
   * Records a change, its history line and its webhook call (if any) in one transaction; a status or assignee equal
   * to the current one records nothing (undefined). Undefined too when there is no such lead.
   */
  recordFollowUp(change: FollowUpChange): Promise<HistoryEntry | undefined>
  /** A lead's follow-up, its history newest first (at most `limit` lines, default 200). */
  followUpOf(leadId: number, limit?: number): Promise<FollowUp>
  /** The person's other registrations (same e-mail, case-insensitive, or same E.164 phone), newest first. */
  otherRegistrationsOf(leadId: number): Promise<OtherRegistration[]>
  /** How many other registrations each of these leads' person has (leads without any are left out). */
  countOtherRegistrations(leadIds: readonly number[]): Promise<Array<{ leadId: number; others: number }>>
  /**
   * The realtor's registration (isRealtor yes, same launch) whose name or e-mail is what this lead typed as its agent
   * (field `agent`; trimmed, any case), the earliest when several match; undefined when it named none or none matches.
   */
  agentRegistrationOf(leadId: number): Promise<AgentRegistration | undefined>
  /** Every assignee some lead has now, sorted. */
  listAssignees(): Promise<string[]>
  /**
   * Reads the phone of every lead not read yet (stored before version 8, or since by the function) with `read`, and
   * stores it; returns how many. Each batch of `batch` (default 500) is one write.
   */
  fillPhoneNumbers(read: PhoneReader, batch?: number): Promise<number>
}

/**
 * Who a new lead is assigned to, decided inside saveLead's transaction (so concurrent registrations, on one server or
 * several, never take one turn twice): the next of `candidates` in turn when `turns` names a counter (the launch's
 * roster: the store's counter for it goes up by one with each new lead), else the first (the co-op desk). The chosen
 * one becomes the lead's assignee, with a history line by `author`, and their `mail` is queued (kind 'assignment') with
 * every `leadIdMark` in it replaced by the new lead's id. A repeated submission assigns nothing and takes no turn.
 */
export type NewAssignment = {
  turns: string | null
  /** Each possible assignee and the mail that tells them; no mail where another message tells them already. */
  candidates: Array<{ assignee: string; mail?: OutgoingMailLike | undefined }>
  author: string
}

/** The composed mail of store.ts (OutgoingMail), as far as this part needs it: JSON to store. */
type OutgoingMailLike = { to: string } & Record<string, unknown>

/**
 * What an assignment's mail says where the new lead's id goes (its leads page link), replaced by the store: made anew
 * by
 * each process, so no visitor can type it.
 */
export const leadIdMark = `[lead-id:${crypto.randomUUID()}]`

/** The index of the candidate a turn gives (turns counted from 1), or the first without turns. */
export function candidateOf(turn: number | undefined, count: number): number {
  return turn === undefined || count === 0 ? 0 : (turn - 1) % count
}

/** An assignment's mail as stored: its JSON with the lead's id in place of the mark. */
export function assignmentMailJson(mail: OutgoingMailLike, leadId: number): string {
  return JSON.stringify(mail).split(leadIdMark).join(String(leadId))
}
