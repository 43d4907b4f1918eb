// The PostgreSQL store's documents (document-downloads.ts), as sqlite/sqlite-documents.ts, on the table of
// supabase/migrations/20260107000000_document_downloads.sql.
import {
  documentOpenedRecipient,
  documentsReplyRecipient,
  onRequestRecipients,
  worksheetLinkRecipient,
  type DocumentStore,
  type OnRequestRecipient,
} from '../document-downloads.ts'
import type { SqlQueryable } from '../sql-queryable.ts'
import { toIso, toNumber } from '../postgres/postgres-rows.ts'

type OpeningsRow = {
  lead_id: string | number
  document: string
  title: string
  count: string | number
  first: Date | string
  last: Date | string
}

/** The documents' part of the Postgres store. Each write is one statement: it commits whole or not at all. */
export function createPostgresDocuments(db: SqlQueryable): DocumentStore<{ id: string; body: string }, object> {
  return {
    async recordDocumentOpened(opening, webhook) {
      // No RETURNING: the function's role may add rows to document_downloads but read none.
      await db.query(
        `WITH opened AS (INSERT INTO public.document_downloads (lead_id, document, title, opened_at) VALUES ($1, $2, $3, $4))
         INSERT INTO public.outbox (lead_id, kind, recipient, mail, next_attempt_at, created_at)
         SELECT $1, 'webhook', $5, $6::jsonb, $4, $4 WHERE $6::jsonb IS NOT NULL`,
        [
          opening.leadId,
          opening.document,
          opening.title,
          opening.openedAt,
          documentOpenedRecipient,
          webhook ? JSON.stringify(webhook) : null,
        ],
      )
    },
    async documentOpeningsOf(leadIds) {
      if (leadIds.length === 0) return []
      const { rows } = await db.query(
        `SELECT lead_id, document, (array_agg(title ORDER BY opened_at DESC, id DESC))[1] AS title, count(*) AS count, min(opened_at) AS first, max(opened_at) AS last
         FROM public.document_downloads WHERE lead_id = ANY($1::bigint[])
         GROUP BY lead_id, document ORDER BY lead_id, last DESC, document`,
        [leadIds.map(String)],
      )
      return (rows as OpeningsRow[]).map((row) => ({
        leadId: toNumber(row.lead_id),
        document: row.document,
        title: row.title,
        count: Number(row.count),
        first: toIso(row.first),
        last: toIso(row.last),
      }))
    },
    queueDocumentsReply: (leadId, mail, now, notBefore) =>
      queueOnRequest(db, leadId, documentsReplyRecipient, mail, now, notBefore),
    queueWorksheetLinkReply: (leadId, mail, now, notBefore) =>
      queueOnRequest(db, leadId, worksheetLinkRecipient, mail, now, notBefore),
  }
}

/**
 * Queues an e-mail a person asked for (fresh document links, a worksheet link) in one statement, unless one of either
 * kind was queued for the lead since notBefore. The lead's row is the gate
 * (supabase/migrations/20260110000000_documents_reply_gate.sql): a request at the same moment waits for this one's row
 * lock, then sees documents_reply_at moved and queues nothing; NOT EXISTS on the outbox alone let both through. The
 * outbox check stays for replies queued before the column was there.
 */
async function queueOnRequest(
  db: SqlQueryable,
  leadId: number,
  recipient: OnRequestRecipient,
  mail: object,
  now: Date,
  notBefore: Date,
): Promise<boolean> {
  const { rows } = await db.query(
    `WITH gate AS (
       UPDATE public.leads SET documents_reply_at = $4
       WHERE id = $1 AND (documents_reply_at IS NULL OR documents_reply_at <= $5)
         AND NOT EXISTS (SELECT 1 FROM public.outbox WHERE lead_id = $1 AND recipient = ANY($6::text[]) AND created_at > $5)
       RETURNING id
     )
     INSERT INTO public.outbox (lead_id, kind, recipient, mail, next_attempt_at, created_at)
     SELECT gate.id, 'reply', $2, $3::jsonb, $4, $4 FROM gate
     RETURNING id`,
    [leadId, recipient, JSON.stringify(mail), now.toISOString(), notBefore.toISOString(), [...onRequestRecipients]],
  )
  return rows.length > 0
}
