// Group commit for the PostgreSQL store's saves (postgres-save-lead.ts): the registrations that arrive while one batch
// is being committed go together as the next batch, one statement (so one transaction, one commit and one round trip)
// for all of them, the roster's turns included. Each caller hears back only once the batch's commit is done. A batch
// that fails is saved again one registration at a time, so one bad registration fails alone.
import { queryNamed, type SqlQueryable } from '../sql-queryable.ts'
import type { NewAssignment } from '../follow-up.ts'
import { leadIdMark } from '../follow-up.ts'
import type { NewMessage, QueuedMail } from '../messages.ts'
import {
  leadColumns,
  leadRecordColumns,
  leadValueSql,
  toIso,
  toLead,
  toNumber,
  type LeadRow,
} from '../postgres/postgres-rows.ts'
import {
  leadColumnNames,
  leadColumnValues,
  storedLeadOf,
  type LeadAdded,
  type NewLead,
  type SaveLeadResult,
} from './leads.ts'

/** One registration to save. */
export type PostgresSave = {
  lead: NewLead
  mail: QueuedMail | null
  more: NewMessage[]
  assignment: NewAssignment | undefined
}
type Pending = PostgresSave & { resolve: (result: SaveLeadResult) => void; reject: (error: unknown) => void }

/** What a save's new_lead returns: what the statements after it use, and what the database adds to the lead. */
export const newLeadReturning = 'id, submission_id, created_at, first_registered_at'

/** The columns of a new lead that a save answers with. */
export type AddedRow = Pick<LeadRow, 'id' | 'submission_id' | 'first_registered_at'>

/** What the database added to a lead, from its save's answer. */
export function addedOf(row: AddedRow): LeadAdded {
  return {
    id: toNumber(row.id),
    submissionId: row.submission_id,
    firstRegisteredAt: row.first_registered_at === null ? null : toIso(row.first_registered_at),
  }
}

/**
 * The batch's statement: $1 the leads (i, then leadColumnNames), $2 their messages (i, kind, recipient, content), $3
 * the candidates of their assignments (i, c, assignee, recipient, content), $4 the assignments (i, roster, author, n),
 * $5 the lead-id mark. A roster's turns go up by the number of its new leads at once (a statement may change a row
 * once), and each lead takes its own turn among them in arrival order; a repeated submission takes none.
 */
const batchSql = `WITH x AS (SELECT * FROM jsonb_to_recordset($1::jsonb) AS x (i int, ${leadRecordColumns})),
  new_lead AS (
    INSERT INTO public.leads (${leadColumnNames.join(', ')})
    SELECT ${leadColumnNames.map((name) => leadValueSql(name, name)).join(', ')}
    FROM x ORDER BY i
    ON CONFLICT (submission_id) DO NOTHING
    RETURNING ${newLeadReturning}
  ), keyed AS (
    SELECT x.i, new_lead.id, new_lead.created_at FROM new_lead JOIN x ON x.submission_id::uuid = new_lead.submission_id
  ), new_mail AS (
    INSERT INTO public.outbox (lead_id, kind, recipient, mail, next_attempt_at, created_at)
    SELECT k.id, m.kind, m.recipient, m.content, k.created_at, k.created_at
    FROM jsonb_to_recordset($2::jsonb) AS m (i int, kind text, recipient text, content jsonb) JOIN keyed k ON k.i = m.i
  ), asg AS (
    SELECT a.i, a.roster, a.author, a.n, k.id AS lead_id, k.created_at
    FROM jsonb_to_recordset($4::jsonb) AS a (i int, roster text, author text, n int) JOIN keyed k ON k.i = a.i
  ), turn AS (
    INSERT INTO public.roster_turns (roster, turns)
    SELECT roster, count(*) FROM asg WHERE roster IS NOT NULL GROUP BY roster
    ON CONFLICT (roster) DO UPDATE SET turns = roster_turns.turns + excluded.turns RETURNING roster, turns
  ), ranked AS (
    SELECT asg.*, turn.turns - count(*) OVER (PARTITION BY asg.roster) + row_number() OVER (PARTITION BY asg.roster ORDER BY asg.i) AS my_turn
    FROM asg LEFT JOIN turn ON turn.roster = asg.roster
  ), chosen AS (
    SELECT r.lead_id, r.created_at, r.author, c.assignee, c.recipient, c.content
    FROM ranked r JOIN jsonb_to_recordset($3::jsonb) AS c (i int, c int, assignee text, recipient text, content jsonb)
      ON c.i = r.i AND c.c = coalesce((r.my_turn - 1) % nullif(r.n, 0), 0)
  ), assigned AS (
    INSERT INTO public.lead_follow_ups (lead_id, status, assignee, updated_at) SELECT lead_id, NULL, assignee, created_at FROM chosen
  ), noted AS (
    INSERT INTO public.lead_history (lead_id, created_at, author, kind, value) SELECT lead_id, created_at, author, 'assignee', assignee FROM chosen
  ), told AS (
    INSERT INTO public.outbox (lead_id, kind, recipient, mail, next_attempt_at, created_at)
    SELECT lead_id, 'assignment', recipient, replace(content::text, $5, lead_id::text)::jsonb, created_at, created_at FROM chosen WHERE content IS NOT NULL
  )
  SELECT x.i, new_lead.id, new_lead.submission_id, new_lead.first_registered_at
  FROM new_lead JOIN x ON x.submission_id::uuid = new_lead.submission_id`

/** The batch's parameters ($1 to $5 of batchSql). */
function batchParams(saves: readonly PostgresSave[]): unknown[] {
  const leads: Array<Record<string, unknown>> = []
  const messages: Array<Record<string, unknown>> = []
  const candidates: Array<Record<string, unknown>> = []
  const assignments: Array<Record<string, unknown>> = []
  saves.forEach(({ lead, mail, more, assignment }, i) => {
    const values = leadColumnValues(lead)
    const record: Record<string, unknown> = { i }
    leadColumnNames.forEach((name, k) => (record[name] = values[k]))
    leads.push(record)
    if (mail) messages.push({ i, kind: 'notification', recipient: mail.to, content: mail })
    for (const m of more)
      messages.push(
        m.kind === 'webhook'
          ? { i, kind: m.kind, recipient: 'webhook', content: m.webhook }
          : { i, kind: m.kind, recipient: m.mail.to, content: m.mail },
      )
    // Most leads of a launch without a roster have no assignment, and a list without candidates assigns nothing.
    if (!assignment || assignment.candidates.length === 0) return
    assignments.push({ i, roster: assignment.turns, author: assignment.author, n: assignment.candidates.length })
    assignment.candidates.forEach((c, k) =>
      candidates.push({ i, c: k, assignee: c.assignee, recipient: c.mail?.to ?? null, content: c.mail ?? null }),
    )
  })
  return [leads, messages, candidates, assignments].map((list) => JSON.stringify(list)).concat(leadIdMark)
}

/** Saves a batch in one statement; the leads it did not create (their submission id was stored already) read back. */
async function saveBatch(db: SqlQueryable, defaultLaunch: string, saves: readonly PostgresSave[]) {
  // Named (sql-queryable.ts): PostgreSQL parses and plans it once a connection, not once a batch.
  const { rows } = await queryNamed(db, 'save_leads', batchSql, batchParams(saves))
  const created = new Map((rows as Array<AddedRow & { i: number }>).map((row) => [row.i, row]))
  const repeated = saves.filter((_, i) => !created.has(i)).map((save) => save.lead.submissionId)
  // A conflicting insert waited for the other transaction to commit, so the stored lead is visible now.
  const stored =
    repeated.length === 0
      ? []
      : ((await db.query(`SELECT ${leadColumns} FROM public.leads WHERE submission_id = ANY($1::uuid[])`, [repeated]))
          .rows as LeadRow[])
  const bySubmission = new Map(stored.map((row) => [row.submission_id.toLowerCase(), row]))
  return saves.map((save, i): SaveLeadResult => {
    const row = created.get(i)
    // The new row holds what was sent: only what the database added comes back (no parsing of the whole row).
    if (row) return { created: true, lead: storedLeadOf(save.lead, addedOf(row), defaultLaunch) }
    const existing = bySubmission.get(save.lead.submissionId.toLowerCase())
    if (!existing) throw new Error(`Lead ${save.lead.submissionId} conflicted but cannot be read back.`)
    return { created: false, lead: toLead(existing, defaultLaunch) }
  })
}

/** The most registrations one statement saves. */
const maxBatch = 200

/**
 * How many batches may be committing at once: more than one keeps several PostgreSQL backends busy (and the pool's
 * connections), while the registrations that arrive meanwhile still wait to go together.
 */
const maxCommitting = 8

/**
 * The group commit of a PostgreSQL lead database: `save` answers once the batch holding the registration is committed.
 * `saveOne` saves a registration alone (the one-statement save): a batch of one, and each of a failed batch's.
 */
export function createPostgresGroupCommit(
  db: SqlQueryable,
  defaultLaunch: string,
  saveOne: (save: PostgresSave) => Promise<SaveLeadResult>,
): { save(save: PostgresSave): Promise<SaveLeadResult> } {
  let queue: Pending[] = []
  let committing = 0
  function next(): void {
    if (committing >= maxCommitting || queue.length === 0) return
    // A submission id twice in one batch would be created twice over: the second waits for the next batch, where it
    // finds the first stored.
    const seen = new Set<string>()
    const batch: Pending[] = []
    const later: Pending[] = []
    for (const pending of queue) {
      const key = pending.lead.submissionId.toLowerCase()
      if (seen.has(key) || batch.length >= maxBatch) later.push(pending)
      else {
        seen.add(key)
        batch.push(pending)
      }
    }
    queue = later
    committing++
    void commit(batch).finally(() => {
      committing--
      next()
    })
  }
  async function commit(batch: Pending[]): Promise<void> {
    if (batch.length > 1) {
      try {
        const results = await saveBatch(db, defaultLaunch, batch)
        batch.forEach((pending, i) => pending.resolve(results[i]!))
        return
      } catch {
        // Whatever failed, nothing of the batch was committed (one statement): each is saved alone below.
      }
    }
    await Promise.all(batch.map((pending) => saveOne(pending).then(pending.resolve, pending.reject)))
  }
  return {
    save(save) {
      return new Promise((resolve, reject) => {
        queue.push({ ...save, resolve, reject })
        // The registrations of this task go together, or with those arriving while one batch commits (a microtask,
        // not setImmediate: the Deno function runs this too).
        if (queue.length === 1) queueMicrotask(next)
      })
    },
  }
}
