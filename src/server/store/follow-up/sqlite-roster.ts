// The roster's turn in SQLite (follow-up.ts: NewAssignment), taken inside saveLead's transaction
// (leads/sqlite-save-lead.ts; the writer thread runs the same steps: sqlite/sqlite-writer.ts). The PostgreSQL
// store's counterpart is postgres-roster.ts.
import { assignmentMailJson, candidateOf, type NewAssignment } from '../follow-up.ts'

/** A statement as assignNewLead runs it (better-sqlite3's). */
type Runnable = { run(...params: unknown[]): unknown }

/**
 * Assigns a lead just inserted, in the caller's transaction (saveStatements' assignment statements, prepared): takes
 * the
 * roster's next turn, records the assignee and its history line, and queues the chosen one's mail.
 */
export function assignNewLead(
  s: {
    takeTurn: { get(...params: unknown[]): unknown }
    assignLead: Runnable
    assignmentHistory: Runnable
    insertMessage: Runnable
  },
  assignment: NewAssignment,
  leadId: number,
  at: string,
): void {
  const turn = assignment.turns === null ? undefined : (s.takeTurn.get(assignment.turns) as { turns: number }).turns
  const chosen = assignment.candidates[candidateOf(turn, assignment.candidates.length)]
  if (!chosen) return
  s.assignLead.run(leadId, chosen.assignee, at)
  s.assignmentHistory.run(leadId, at, assignment.author, chosen.assignee)
  if (chosen.mail)
    s.insertMessage.run(leadId, 'assignment', chosen.mail.to, assignmentMailJson(chosen.mail, leadId), at, at)
}
