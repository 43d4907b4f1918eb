// The PostgreSQL store's release (release.ts), as sqlite/sqlite-release.ts, on the tables of
// supabase/migrations/20260120000000_release.sql. Each write is one statement, so one transaction (the worksheets
// arriving together: one for the group, postgres-worksheet-saves.ts): an allocation changes the lot only while it is
// still available, and a second one at the same moment (another server) waits for the first's row lock, then finds
// the lot allocated and changes nothing.
// The Supabase function runs the worksheet page and the page's counts as lead_writer
// (20260129000000_function_release.sql): those queries read only the lots' id, models and status, a realtor's
// worksheets through public.realtor_worksheets(), and store worksheets without reading them back.
import type { SqlQueryable } from '../sql-queryable.ts'
import { createPostgresWorksheetSaves } from './postgres-worksheet-saves.ts'
import {
  compareLots,
  firstRealtorStatement,
  realtorOfAddressStatement,
  lotOf,
  namedAgentCondition,
  worksheetOf,
  worksheetRecipient,
  type AllocationResult,
  type ImportCounts,
  type LotModels,
  type LotRow,
  type RealtorClient,
  type ReleaseStore,
  type WorksheetMessage,
  type WorksheetRow,
} from '../release.ts'

/** The messages as the statements take them: one JSON array of { kind, recipient, content }. */
function messagesJson(worksheetId: number, messages: WorksheetMessage[]): string {
  return JSON.stringify(
    messages.map((m) => ({
      kind: m.kind,
      recipient: worksheetRecipient(worksheetId, m.event),
      content: m.kind === 'webhook' ? m.webhook : m.mail,
    })),
  )
}

// Inserts the statement's messages ($msgs) for the worksheets of `source` (id, realtor_lead_id) at $at.
const queueFrom = (source: string, msgs: string, at: string) =>
  `INSERT INTO public.outbox (lead_id, kind, recipient, mail, next_attempt_at, created_at)
   SELECT s.realtor_lead_id, m->>'kind', m->>'recipient', m->'content', ${at}, ${at}
   FROM ${source} s, jsonb_array_elements(${msgs}::jsonb) m`

const differs = (l: string, i: string) =>
  `(${l}.release IS DISTINCT FROM ${i}.release OR ${l}.models <> ${i}.models OR ${l}.frontage IS DISTINCT FROM ${i}.frontage
    OR ${l}.price <> ${i}.price OR ${l}.status <> ${i}.status)`

const importStatement = `
WITH input AS (
  SELECT * FROM jsonb_to_recordset($2::jsonb) AS x(lot text, release text, models jsonb, frontage text, price bigint, status text)
), kept AS (
  SELECT l.lot FROM public.lots l JOIN input i ON i.lot = l.lot WHERE l.launch = $1 AND l.status = 'allocated' AND ${differs('l', 'i')}
), added AS (
  INSERT INTO public.lots (launch, lot, release, models, frontage, price, status, updated_at)
  SELECT $1, i.lot, i.release, i.models, i.frontage, i.price, i.status, $3 FROM input i
  ON CONFLICT (launch, lot) DO NOTHING RETURNING lot
), changed AS (
  UPDATE public.lots l SET release = i.release, models = i.models, frontage = i.frontage, price = i.price,
    status = i.status, updated_at = $3
  FROM input i WHERE l.launch = $1 AND l.lot = i.lot AND l.status <> 'allocated' AND ${differs('l', 'i')}
  RETURNING l.lot
)
SELECT (SELECT count(*) FROM input) AS total, (SELECT count(*) FROM added) AS created,
  (SELECT count(*) FROM changed) AS changed, (SELECT coalesce(json_agg(lot), '[]'::json) FROM kept) AS kept`

const allocateStatement = `
WITH ws AS (
  SELECT id, launch, realtor_lead_id FROM public.worksheets
  WHERE id = $1 AND outcome IN ('received', 'waitlisted') FOR UPDATE
), taken AS (
  UPDATE public.lots l SET status = 'allocated', worksheet_id = ws.id, updated_at = $4
  FROM ws WHERE l.launch = ws.launch AND l.lot = $2 AND l.status = 'available'
  RETURNING l.worksheet_id
), decided AS (
  UPDATE public.worksheets w SET outcome = 'allocated', allocated_lot = $2, allocated_model = $3, reason = NULL,
    decided_at = $4, decided_by = $5
  FROM taken WHERE w.id = taken.worksheet_id
  RETURNING w.id, w.realtor_lead_id
), queued AS (${queueFrom('decided', '$6', '$4')})
SELECT count(*) AS done FROM decided`

// Why an allocation changed nothing, read after it: the worksheet decided, the lot unknown, or whom the lot went to.
const whyNotStatement = `
SELECT w.outcome, l.status, (SELECT o.number FROM public.worksheets o WHERE o.id = l.worksheet_id) AS taken_by
FROM public.worksheets w LEFT JOIN public.lots l ON l.launch = w.launch AND l.lot = $2 WHERE w.id = $1`

const decideStatement = `
WITH decided AS (
  UPDATE public.worksheets SET outcome = $2, reason = $3, decided_at = $4, decided_by = $5
  WHERE id = $1 AND outcome IN ('received', 'waitlisted') RETURNING id, realtor_lead_id
), queued AS (${queueFrom('decided', '$6', '$4')})
SELECT count(*) AS done FROM decided`

const postgresField = (alias: string, name: string) => `(${alias}.fields->>'${name}')`
const clientsStatement = `SELECT coalesce(${postgresField('c', 'name')}, '') AS name,
  coalesce(${postgresField('c', 'email')}, '') AS email, coalesce(${postgresField('c', 'phone')}, '') AS phone
  FROM public.leads AS r JOIN public.leads AS c ON ${namedAgentCondition(postgresField, 'public.leads')}
  WHERE r.id = $1 ORDER BY c.created_at, c.id LIMIT 500`

/** The release's part of the Postgres store. */
export function createPostgresRelease(db: SqlQueryable): ReleaseStore {
  const worksheets = async (where: string, params: unknown[]) =>
    (
      (await db.query(`SELECT * FROM public.worksheets WHERE ${where} ORDER BY launch, number`, params))
        .rows as WorksheetRow[]
    ).map(worksheetOf)
  return {
    async importLots(launch, lots, at): Promise<ImportCounts> {
      const { rows } = await db.query(importStatement, [launch, JSON.stringify(lots), at])
      const row = rows[0] as { total: string; created: string; changed: string; kept: string[] }
      const [total, created, changed] = [row.total, row.created, row.changed].map(Number) as [number, number, number]
      return { created, changed, unchanged: total - created - changed - row.kept.length, keptAllocated: row.kept }
    },
    async listLots(launch) {
      const { rows } = await db.query('SELECT * FROM public.lots WHERE launch = $1', [launch])
      return (rows as LotRow[]).map(lotOf).sort((a, b) => compareLots(a.lot, b.lot))
    },
    async listLotModels(launch) {
      const { rows } = await db.query('SELECT lot, models, status FROM public.lots WHERE launch = $1', [launch])
      return (rows as LotModels[]).sort((a, b) => compareLots(a.lot, b.lot))
    },
    async updateLot(launch, lot, change, at) {
      const { rows } = await db.query(
        `UPDATE public.lots SET price = coalesce($3, price), status = coalesce($4, status), updated_at = $5
         WHERE launch = $1 AND lot = $2 AND status <> 'allocated' AND coalesce($4, status) <> 'allocated' RETURNING id`,
        [launch, lot, change.price ?? null, change.status ?? null, at],
      )
      return rows.length === 1
    },
    saveWorksheet: createPostgresWorksheetSaves(db),
    listWorksheets: async (launch, realtorLeadId) =>
      realtorLeadId === undefined
        ? worksheets('launch = $1', [launch])
        : (
            (await db.query('SELECT * FROM public.realtor_worksheets($1, $2)', [launch, realtorLeadId]))
              .rows as WorksheetRow[]
          ).map(worksheetOf),
    async allocate(allocation, by, at, messages): Promise<AllocationResult> {
      const params = [allocation.worksheetId, allocation.lot, allocation.model, at, by]
      const { rows } = await db.query(allocateStatement, [...params, messagesJson(allocation.worksheetId, messages)])
      if (Number((rows[0] as { done: string }).done) === 1) return { ok: true }
      const why = (await db.query(whyNotStatement, [allocation.worksheetId, allocation.lot])).rows[0] as
        { outcome: string; status: string | null; taken_by: string | null } | undefined
      if (!why || why.outcome === 'allocated' || why.outcome === 'declined')
        return { ok: false, reason: 'worksheet-decided' }
      if (why.status === null) return { ok: false, reason: 'lot-unknown' }
      return { ok: false, reason: 'lot-taken', takenBy: why.taken_by === null ? null : Number(why.taken_by) }
    },
    async decide(id, outcome, reason, by, at, messages) {
      const { rows } = await db.query(decideStatement, [id, outcome, reason, at, by, messagesJson(id, messages)])
      return Number((rows[0] as { done: string }).done) === 1
    },
    async firstRealtorLead(leadId) {
      const { rows } = await db.query(firstRealtorStatement(postgresField, 'public.leads', '$1'), [leadId])
      return rows.length > 0 ? Number((rows[0] as { id: string | number }).id) : leadId
    },
    async realtorOfAddress(launch, defaultLaunch, email) {
      const { rows } = await db.query(
        realtorOfAddressStatement(postgresField, 'public.leads', ['$1', '$2', '$3'], 'NOT r.suspected_spam'),
        [launch, defaultLaunch, email.trim().toLowerCase()],
      )
      const row = rows[0] as { id: string | number; submission_id: string; email: string } | undefined
      return row && { id: Number(row.id), submissionId: row.submission_id, email: row.email }
    },
    async clientsOf(realtorLeadId) {
      return (await db.query(clientsStatement, [realtorLeadId])).rows as RealtorClient[]
    },
    worksheetsOfClient: (email) => worksheets('lower(btrim(client_email)) = $1', [email.trim().toLowerCase()]),
    async eraseWorksheetsOfClient(email) {
      const { rows } = await db.query(
        'DELETE FROM public.worksheets WHERE lower(btrim(client_email)) = $1 RETURNING id',
        [email.trim().toLowerCase()],
      )
      return rows.length
    },
  }
}
