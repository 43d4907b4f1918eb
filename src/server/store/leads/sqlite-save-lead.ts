// Saving a registration in SQLite (leads.ts: SaveLeadStore): the lead, its messages and its roster turn in one
// transaction, committed with the writes that arrive at the same time (sqlite/sqlite-group-commit.ts), or on the writer
// thread (sqlite/sqlite-writer.ts) when the store was opened with one.
import type { NewAssignment } from '../follow-up.ts'
import type { NewMessage, QueuedMail } from '../messages.ts'
import type { SqliteContext } from '../sqlite/sqlite-context.ts'
import type { SqliteWriter } from '../sqlite/sqlite-writer.ts'
import { saveStatements, type LeadRow } from '../sqlite/sqlite-rows.ts'
import { assignNewLead } from '../follow-up/sqlite-roster.ts'
import { leadColumnValues, storedLeadOf, type NewLead, type SaveLeadResult, type SaveLeadStore } from './leads.ts'

/** One save as the transaction takes it. */
export type SqliteSave = (
  lead: NewLead,
  mail: QueuedMail | null,
  more?: NewMessage[],
  assignment?: NewAssignment,
) => SaveLeadResult

/**
 * A new lead's answer: the row holds what was sent, so only what the database added (its id, and the first-registered
 * time its trigger sets) is read back, not the whole row to parse again.
 */
function newLeadResult(
  ctx: SqliteContext,
  lead: NewLead,
  id: number,
  firstRegisteredAt: string | null,
): SaveLeadResult {
  return {
    created: true,
    lead: storedLeadOf(lead, { id, submissionId: lead.submissionId, firstRegisteredAt }, ctx.defaultLaunch),
  }
}

/** The transaction that saves one lead with its messages and assignment (run alone, or nested in a group's). */
export function createSqliteSave(ctx: SqliteContext): SqliteSave {
  const { db } = ctx
  const s = {
    insertLead: db.prepare<unknown[], { id: number }>(saveStatements.insertLead),
    insertMail: db.prepare(saveStatements.insertMail),
    insertMessage: db.prepare(saveStatements.insertMessage),
    takeTurn: db.prepare(saveStatements.takeTurn),
    assignLead: db.prepare(saveStatements.assignLead),
    assignmentHistory: db.prepare(saveStatements.assignmentHistory),
  }
  // Set by the leads_first_registered_set trigger, after the insert's RETURNING: read back alone.
  const firstRegistered = db
    .prepare<[number], string | null>('SELECT first_registered_at FROM leads WHERE id = ?')
    .pluck()
  const bySubmission = ctx.query<LeadRow>('SELECT * FROM leads WHERE submission_id = ?')
  const save = (
    lead: NewLead,
    mail: QueuedMail | null,
    more: NewMessage[] = [],
    assignment?: NewAssignment,
  ): SaveLeadResult => {
    const inserted = s.insertLead.get(...leadColumnValues(lead))
    if (!inserted) {
      const existing = bySubmission.get(lead.submissionId)
      if (!existing) throw new Error(`Lead ${lead.submissionId} conflicted but cannot be read back.`)
      return { created: false, lead: ctx.toStored(existing) }
    }
    if (mail) s.insertMail.run(inserted.id, mail.to, JSON.stringify(mail), lead.createdAt, lead.createdAt)
    for (const message of more) {
      const [recipient, content] =
        message.kind === 'webhook' ? ['webhook', message.webhook] : [message.mail.to, message.mail]
      s.insertMessage.run(inserted.id, message.kind, recipient, JSON.stringify(content), lead.createdAt, lead.createdAt)
    }
    if (assignment) assignNewLead(s, assignment, inserted.id, lead.createdAt)
    return newLeadResult(ctx, lead, inserted.id, firstRegistered.get(inserted.id) ?? null)
  }
  return db.transaction(save)
}

/**
 * SaveLeadStore on an open SQLite lead database: on the writer thread when there is one, else in group commits on
 * this connection. The commit (with its fsync) has happened when the promise resolves.
 */
export function createSqliteSaveLead(ctx: SqliteContext, writer: SqliteWriter | undefined): SaveLeadStore {
  if (ctx.readonly) return { saveLead: () => Promise.reject(new Error('This lead store was opened read-only.')) }
  if (writer)
    return {
      saveLead: (lead, mail, more, assignment) =>
        writer
          .save(lead, mail, more, assignment)
          .then((written) =>
            written.created
              ? newLeadResult(ctx, lead, written.id, written.firstRegisteredAt)
              : { created: false, lead: ctx.toStored(written.row) },
          ),
    }
  const save = createSqliteSave(ctx)
  return { saveLead: (lead, mail, more, assignment) => ctx.commits.run(() => save(lead, mail, more, assignment)) }
}
