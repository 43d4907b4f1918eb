// Saving a registration on PostgreSQL (leads.ts: SaveLeadStore): the lead, its messages and its roster turn in one
// statement, so one transaction and one round trip; concurrent ones in one statement together
// (postgres-group-commit.ts).
import { queryNamed, type SqlQueryable } from '../sql-queryable.ts'
import type { NewAssignment } from '../follow-up.ts'
import type { NewMessage, QueuedMail } from '../messages.ts'
import { assignmentParams, assignmentSql } from '../follow-up/postgres-roster.ts'
import { leadColumns, leadValueSql, toLead, type LeadRow } from '../postgres/postgres-rows.ts'
import {
  leadColumnNames,
  leadColumnValues,
  storedLeadOf,
  type NewLead,
  type SaveLeadResult,
  type SaveLeadStore,
} from './leads.ts'
import { addedOf, createPostgresGroupCommit, newLeadReturning, type AddedRow } from './postgres-group-commit.ts'

/** A lead's messages as the statement's JSON list of rows (kind, recipient, content). */
function messageRows(mail: QueuedMail | null, more: NewMessage[]) {
  return [
    ...(mail ? [{ kind: 'notification', recipient: mail.to, content: mail }] : []),
    ...more.map((m) =>
      m.kind === 'webhook'
        ? { kind: m.kind, recipient: 'webhook', content: m.webhook }
        : { kind: m.kind, recipient: m.mail.to, content: m.mail },
    ),
  ]
}

/** The statement that saves a lead, its messages ($18) and, when `assigning`, its assignment ($19 to $22). */
function saveSql(assigning: boolean): string {
  return `WITH new_lead AS (
           INSERT INTO public.leads (${leadColumnNames.join(', ')})
           VALUES (${leadColumnNames.map((name, k) => leadValueSql(name, `$${k + 1}`)).join(', ')})
           ON CONFLICT (submission_id) DO NOTHING
           RETURNING ${newLeadReturning}
         ), new_mail AS (
           INSERT INTO public.outbox (lead_id, kind, recipient, mail, next_attempt_at, created_at)
           SELECT new_lead.id, m.kind, m.recipient, m.content, $2, $2
           FROM new_lead, jsonb_to_recordset($18::jsonb) AS m (kind text, recipient text, content jsonb)
         )${assigning ? `, ${assignmentSql}` : ''}
         SELECT id, submission_id, first_registered_at FROM new_lead`
}

// Named (sql-queryable.ts): PostgreSQL parses and plans each once a connection, not once a registration.
const saveStatement = { name: 'save_lead', text: saveSql(false) }
const saveAssigningStatement = { name: 'save_lead_assigning', text: saveSql(true) }

/** Saves a registration in one statement: the lead and its messages (if any) are committed together, or nothing is. */
export async function savePostgresLead(
  db: SqlQueryable,
  defaultLaunch: string,
  lead: NewLead,
  mail: QueuedMail | null,
  more: NewMessage[] = [],
  assignment?: NewAssignment,
): Promise<SaveLeadResult> {
  // Most leads of a launch without a roster have no assignment: their statement leaves its part out.
  const assigning = assignment !== undefined && assignment.candidates.length > 0
  const statement = assigning ? saveAssigningStatement : saveStatement
  const { rows } = await queryNamed(db, statement.name, statement.text, [
    ...leadColumnValues(lead),
    JSON.stringify(messageRows(mail, more)),
    ...(assigning ? assignmentParams(assignment) : []),
  ])
  const created = rows[0] as AddedRow | undefined
  // The new row holds what was sent: only what the database added comes back (no parsing of the whole row).
  if (created) return { created: true, lead: storedLeadOf(lead, addedOf(created), defaultLaunch) }
  // The conflicting insert waited for the other transaction to commit, so the stored lead is visible now.
  const existing = await db.query(`SELECT ${leadColumns} FROM public.leads WHERE submission_id = $1`, [
    lead.submissionId,
  ])
  const row = existing.rows[0] as LeadRow | undefined
  if (!row) throw new Error(`Lead ${lead.submissionId} conflicted but cannot be read back.`)
  return { created: false, lead: toLead(row, defaultLaunch) }
}

/**
 * SaveLeadStore on a PostgreSQL lead database: concurrent registrations are saved together, one statement and one
 * commit for all of them (postgres-group-commit.ts).
 */
export function createPostgresSaveLead(db: SqlQueryable, defaultLaunch: string): SaveLeadStore {
  const group = createPostgresGroupCommit(db, defaultLaunch, (save) =>
    savePostgresLead(db, defaultLaunch, save.lead, save.mail, save.more, save.assignment),
  )
  return { saveLead: (lead, mail, more = [], assignment) => group.save({ lead, mail, more, assignment }) }
}
