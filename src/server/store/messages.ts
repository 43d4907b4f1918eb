// The outbox's messages as the store keeps them (store.ts re-exports them): what is queued, claimed and listed.

/** A composed notification, stored with its lead so it can be sent (again) later. `from` is the mailer's. */
export type OutgoingMail = {
  to: string
  replyTo?: string | undefined
  subject: string
  text: string
  html: string
  /** A stable id for this message (`<…@…>`): a re-sent copy carries the same one. */
  messageId: string
  /** A stable key for HTTP mail APIs that de-duplicate retried sends (Resend's Idempotency-Key). */
  idempotencyKey: string
  /** The sender's display name; the address stays the mailer's (MAIL_FROM). Absent: the mailer's From as it is. */
  fromName?: string | undefined
  /** Extra headers, e.g. List-Unsubscribe (RFC 8058). Names and values are made header-safe by the mailer. */
  headers?: Record<string, string> | undefined
}

/**
 * What a message is: one of a lead's ('notification', 'reply', 'webhook', 'assignment', 'announcement'), or one of no
 * lead: 'summary' (the sales manager's morning summary) and 'account' (a studio account's invitation or reset link).
 */
export type MessageKind = 'notification' | 'reply' | 'webhook' | 'announcement' | 'assignment' | 'summary' | 'account'

/**
 * Where a message stands: `pending` (queued, or waiting for its next attempt), `sent`, `failed` (refused for good
 * or out of attempts; see its last error), `cancelled` (the registrant withdrew before it went).
 */
export type MessageStatus = 'pending' | 'sent' | 'failed' | 'cancelled'

/** A CRM webhook call as queued: the exact JSON body (sent byte for byte on every attempt) and its idempotency key. */
export type WebhookMessage = { id: string; body: string }

/**
 * A lead's notification or reply queued as what to send rather than as the finished e-mail: the delivery process
 * composes it from the stored lead and its launch's config when it sends it (compose-later.ts), so the request
 * that stores the lead neither composes nor stores the two e-mails. `to` is the recipient and `messageId` the
 * Message-ID it will carry (an erasure deletes the .eml copies by it); `assignedTo` is the notification's
 * "Assigned to" line, decided with the lead.
 */
export type LaterMail = {
  compose: 'notification' | 'reply'
  to: string
  messageId: string
  assignedTo?: string | undefined
}

/** A notification or reply as queued: the finished e-mail, or what to compose when it is sent. */
export type QueuedMail = OutgoingMail | LaterMail

/** A message queued with a lead besides its notification, in the same transaction. */
export type NewMessage = { kind: 'reply'; mail: QueuedMail } | { kind: 'webhook'; webhook: WebhookMessage }

/** One message claimed for delivery. */
export type OutboxJob = {
  id: number
  leadId: number | null // null: a message of no lead (a summary)
  /** Attempts made before this one. */
  attempts: number
  /** The registrant's address has withdrawn (this lead or another of the same address): send no reply or webhook. */
  withdrawn: boolean
} & ({ kind: Exclude<MessageKind, 'webhook'>; mail: QueuedMail } | { kind: 'webhook'; webhook: WebhookMessage })

/** One message's state, for the leads page and the retry command: no message content. */
export type MessageState = {
  id: number
  leadId: number | null // null: a summary
  kind: MessageKind
  status: MessageStatus
  attempts: number
  /** Why the last attempt failed (addresses and numbers removed), or null. */
  lastError: string | null
  createdAt: string
  nextAttemptAt: string
  sentAt: string | null
  failedAt: string | null
}

/** Which messages listMessages returns, in id order. */
export type MessageQuery = { leadId?: number; status?: MessageStatus; afterId?: number; limit: number }

/** Counts of the outbox by state. */
export type MessageCounts = Record<MessageStatus, number>

/**
 * Whether a queued notification or reply is still to be composed (src/server/compose-later.ts does it when sending).
 */
export function isLaterMail(mail: QueuedMail): mail is LaterMail {
  return 'compose' in mail
}
