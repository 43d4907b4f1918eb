// Erasing leads on PostgreSQL (erasure.ts: ErasureStore): the count an erasure would remove, and the erasure in one
// statement, withdrawn addresses left on the suppression list.
import type { SqlQueryable } from '../sql-queryable.ts'
import { whereOf } from '../postgres/postgres-rows.ts'
import type { ErasureResult, ErasureStore, LeadSelector } from '../erasure.ts'
import type { AddressKey } from '../suppression.ts'

/** The selected leads, with the address of those that withdrew. */
async function findErasable(db: SqlQueryable, selector: LeadSelector) {
  const [where, param] = whereOf(selector)
  const { rows } = await db.query(
    `SELECT id, fields->>'email' AS email, withdrawn_at IS NOT NULL AS withdrawn FROM public.leads WHERE ${where}`,
    [param],
  )
  return rows as Array<{ id: string | number; email: string | null; withdrawn: boolean }>
}

/** Removes the selected leads and their messages, and keeps the withdrawn addresses' keys (ErasureStore.eraseLeads). */
export async function erasePostgresLeads(
  db: SqlQueryable,
  selector: LeadSelector,
  keyOf: (email: string) => Promise<AddressKey>,
): Promise<ErasureResult> {
  const found = await findErasable(db, selector)
  if (found.length === 0) return { leads: 0, messages: 0, suppressed: 0, messageIds: [] }
  const keys: string[] = []
  for (const lead of found) if (lead.withdrawn && lead.email) keys.push(await keyOf(lead.email))
  // One statement, so one transaction; the foreign key is checked at its end, when both deletes are done.
  const { rows } = await db.query(
    `WITH suppressed AS (
           INSERT INTO public.suppressions (address_key) SELECT unnest($2::text[]) ON CONFLICT DO NOTHING RETURNING 1
         ), mail AS (
           DELETE FROM public.outbox WHERE lead_id = ANY($1::bigint[]) RETURNING mail->>'messageId' AS message_id
         ), gone AS (
           DELETE FROM public.leads WHERE id = ANY($1::bigint[]) RETURNING id
         )
         SELECT (SELECT count(*)::int FROM gone) AS leads, (SELECT count(*)::int FROM mail) AS messages,
                (SELECT count(*)::int FROM suppressed) AS suppressed,
                coalesce((SELECT array_agg(message_id) FROM mail WHERE message_id IS NOT NULL), '{}') AS message_ids`,
    [found.map((l) => String(l.id)), keys],
  )
  const row = rows[0] as { leads: number; messages: number; suppressed: number; message_ids: string[] }
  return { leads: row.leads, messages: row.messages, suppressed: row.suppressed, messageIds: row.message_ids }
}

/** ErasureStore on a PostgreSQL lead database. */
export function createPostgresErasure(db: SqlQueryable): ErasureStore {
  return {
    async countErasable(selector) {
      const [where, param] = whereOf(selector)
      const { rows } = await db.query(
        `SELECT count(*)::int AS leads, (SELECT count(*)::int FROM public.outbox WHERE lead_id IN (SELECT id FROM public.leads WHERE ${where})) AS messages
         FROM public.leads WHERE ${where}`,
        [param],
      )
      return rows[0] as { leads: number; messages: number }
    },
    eraseLeads: (selector, keyOf) => erasePostgresLeads(db, selector, keyOf),
  }
}
