// The leads list's part of the store contract (store.ts): a search, newest first, paged by position. Implemented side
// by side here: sqlite-lead-search.ts, postgres-lead-search.ts.
import type { FollowUpState } from '../follow-up.ts'
import type { StoredLead } from './leads.ts'

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

/**
 * Where a lead's notification stands, read from the outbox: 'retrying' is pending after a failed attempt, 'none' none.
 */
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

// JSON writes a string verbatim unless it holds `"`, `\`, a control character or a lone surrogate.
// eslint-disable-next-line no-control-regex -- the control characters are what is looked for
const notVerbatimInJson = /["\\\u0000-\u001f\ud800-\udfff]/

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
  const verbatim = !notVerbatimInJson.test(trimmed)
  return {
    like,
    digits: digitsOnly === null ? null : `%${digitsOnly}%`,
    rough: verbatim ? { like, digits: digitsOnly === null ? null : `%${digitsOnly.split('').join('%')}%` } : null,
  }
}

/** The leads list's part of a LeadStore. */
export interface LeadSearchStore {
  /** A page of the leads list, newest first (created_at, then id), with each lead's notification state. */
  searchLeads(search: LeadSearch): Promise<LeadSearchPage>
}
