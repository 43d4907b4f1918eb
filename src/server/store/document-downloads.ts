/**
 * The documents' part of the store (schema/documents.ts): each opening of a document link (which lead, which document,
 * when), and the fresh-link e-mails a registrant asked for. Both stores implement it (sqlite-documents.ts,
 * postgres-documents.ts) on the table of supabase/migrations/20260107000000_document_downloads.sql.
 *
 * document_downloads: id, lead_id (→ leads, erased with it), document (its id: the file's name), title, opened_at
 * outbox: a document.opened webhook call (recipient 'webhook:document.opened') and a fresh-link reply (recipient
 *   'reply:documents') and a realtor's worksheet link asked for again (recipient 'worksheet:link'), any number of
 *   each a lead, but at most one of the two kinds a lead in the rate limit's gap
 */

/** The outbox recipient of document.opened webhook calls: a lead may have any number of them. */
export const documentOpenedRecipient = 'webhook:document.opened'

/** The outbox recipient of a reply with fresh document links (kind 'reply'): a lead may ask again later. */
export const documentsReplyRecipient = 'reply:documents'

/** The outbox recipient of a realtor's worksheet link sent again on request (kind 'reply'). */
export const worksheetLinkRecipient = 'worksheet:link'

/** The e-mails a person asks for with a link or an address: one of them a lead in the rate limit's gap, whichever. */
export const onRequestRecipients = [documentsReplyRecipient, worksheetLinkRecipient] as const

/** Which e-mail asked for: fresh document links, or the realtor's worksheet link. */
export type OnRequestRecipient = (typeof onRequestRecipients)[number]

/** One opening of a document link, as the function records it. */
export type DocumentOpening = {
  leadId: number
  /** The document's id (schema/documents.ts: documentIdOf). */
  document: string
  /** Its title when it was opened: the leads page shows it even after the config changed. */
  title: string
  /** ISO 8601, UTC. */
  openedAt: string
}

/** A lead's openings of one document: how many, the first and the last. */
export type DocumentOpenings = {
  leadId: number
  document: string
  title: string
  count: number
  first: string
  last: string
}

/**
 * The documents' part of a LeadStore, over the store's webhook message and mail (generic so this file needs nothing
 * of store.ts, which extends it).
 */
export interface DocumentStore<Webhook, Mail> {
  /** Records one opening, and its document.opened webhook call when given, in one transaction. */
  recordDocumentOpened(opening: DocumentOpening, webhook?: Webhook): Promise<void>
  /** The openings of these leads' documents, by lead then document (the latest opened first). */
  documentOpeningsOf(leadIds: readonly number[]): Promise<DocumentOpenings[]>
  /**
   * Queues a reply with fresh document links for a lead, unless one was queued for it after `notBefore` (the rate
   * limit: a link anyone holding it may use must not flood an inbox). True when it was queued.
   */
  queueDocumentsReply(leadId: number, mail: Mail & { to: string }, now: Date, notBefore: Date): Promise<boolean>
  /**
   * Queues the e-mail with a realtor's worksheet link they asked for again, under the same rate limit: not when an
   * e-mail asked for (this or fresh document links) was queued for the lead after `notBefore`. True when queued.
   */
  queueWorksheetLinkReply(leadId: number, mail: Mail & { to: string }, now: Date, notBefore: Date): Promise<boolean>
}
