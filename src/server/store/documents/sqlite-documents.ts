// The SQLite store's documents (document-downloads.ts): each opening of a document link, and the fresh-link replies.
// Schema version 13 (sqlite-schema.ts).
import { promised } from '../sqlite/sqlite-promised.ts'
import type Database from 'better-sqlite3'
import {
  documentOpenedRecipient,
  documentsReplyRecipient,
  onRequestRecipients,
  worksheetLinkRecipient,
  type DocumentOpenings,
  type OnRequestRecipient,
  type DocumentStore,
} from '../document-downloads.ts'
import { columnsOf } from '../sqlite/sqlite-schema.ts'
import type { OutgoingMail, WebhookMessage } from '../messages.ts'

type OpeningsRow = { lead_id: number; document: string; title: string; count: number; first: string; last: string }

/** The documents' part of the SQLite store, on its connection. */
export function createSqliteDocuments(
  db: Database.Database,
  readonly: boolean,
): DocumentStore<{ id: string; body: string }, object> {
  const writable = () => {
    if (readonly) throw new Error('This lead store was opened read-only.')
  }
  const record = db.transaction(
    (
      opening: Parameters<DocumentStore<{ id: string; body: string }, object>['recordDocumentOpened']>[0],
      webhook: { id: string; body: string } | undefined,
    ) => {
      db.prepare('INSERT INTO document_downloads (lead_id, document, title, opened_at) VALUES (?, ?, ?, ?)').run(
        opening.leadId,
        opening.document,
        opening.title,
        opening.openedAt,
      )
      if (webhook) {
        db.prepare(
          `INSERT INTO outbox (lead_id, kind, recipient, mail, next_attempt_at, created_at) VALUES (?, 'webhook', ?, ?, ?, ?)`,
        ).run(opening.leadId, documentOpenedRecipient, JSON.stringify(webhook), opening.openedAt, opening.openedAt)
      }
    },
  )
  // One e-mail asked for a lead in the gap, of either kind: the check and the insert in one immediate transaction.
  const queue = db.transaction(
    (leadId: number, recipient: OnRequestRecipient, mail: object, now: string, notBefore: string): boolean => {
      const recent = db
        .prepare(
          `SELECT 1 FROM outbox WHERE lead_id = ? AND recipient IN (${onRequestRecipients.map(() => '?').join(', ')})
           AND created_at > ? LIMIT 1`,
        )
        .get(leadId, ...onRequestRecipients, notBefore)
      if (recent) return false
      db.prepare(
        `INSERT INTO outbox (lead_id, kind, recipient, mail, next_attempt_at, created_at) VALUES (?, 'reply', ?, ?, ?, ?)`,
      ).run(leadId, recipient, JSON.stringify(mail), now, now)
      return true
    },
  )
  // A read-only store (the export) may open a file from before version 13: it has no openings to show.
  let hasTable: boolean | undefined
  return promised<DocumentStore<WebhookMessage, OutgoingMail>>({
    recordDocumentOpened(opening, webhook) {
      writable()
      record.immediate(opening, webhook)
    },
    documentOpeningsOf(leadIds) {
      hasTable ??= columnsOf(db, 'document_downloads').length > 0
      if (leadIds.length === 0 || !hasTable) return []
      const rows = db
        .prepare<[string], OpeningsRow>(
          `SELECT lead_id, document, (SELECT d2.title FROM document_downloads d2 WHERE d2.lead_id = d.lead_id AND d2.document = d.document ORDER BY d2.opened_at DESC, d2.id DESC LIMIT 1) AS title,
             count(*) AS count, min(opened_at) AS first, max(opened_at) AS last
           FROM document_downloads d WHERE lead_id IN (SELECT value FROM json_each(?))
           GROUP BY lead_id, document ORDER BY lead_id, last DESC, document`,
        )
        .all(JSON.stringify(leadIds))
      return rows.map((row): DocumentOpenings => ({
        leadId: row.lead_id,
        document: row.document,
        title: row.title,
        count: row.count,
        first: row.first,
        last: row.last,
      }))
    },
    queueDocumentsReply(leadId, mail, now, notBefore) {
      writable()
      return queue.immediate(leadId, documentsReplyRecipient, mail, now.toISOString(), notBefore.toISOString())
    },
    queueWorksheetLinkReply(leadId, mail, now, notBefore) {
      writable()
      return queue.immediate(leadId, worksheetLinkRecipient, mail, now.toISOString(), notBefore.toISOString())
    },
  })
}
