// The roster's turn on PostgreSQL (follow-up.ts: NewAssignment): the part of saveLead's one statement
// (leads/postgres-save-lead.ts) that assigns a new lead. The SQLite store's counterpart is sqlite-roster.ts.
import { leadIdMark, type NewAssignment } from '../follow-up.ts'

/**
 * The part of saveLead's statement that assigns a new lead, parameters $19 to $22: takes the roster's next turn (the
 * row lock of ON CONFLICT DO UPDATE orders concurrent registrations), records the chosen candidate as the assignee
 * with its history line, and queues their mail with the lead's id in it. Nothing without an assignment ($19 an empty
 * list) or for a repeated submission (no new_lead row).
 */
export const assignmentSql = `turn AS (
           INSERT INTO public.roster_turns (roster, turns) SELECT $20::text, 1 FROM new_lead WHERE $20::text IS NOT NULL
           ON CONFLICT (roster) DO UPDATE SET turns = roster_turns.turns + 1 RETURNING turns
         ), chosen AS (
           SELECT new_lead.id AS lead_id, c.assignee, c.recipient, c.content
           FROM new_lead, jsonb_to_recordset($19::jsonb) AS c (i int, assignee text, recipient text, content jsonb)
           WHERE c.i = coalesce(((SELECT turns FROM turn) - 1) % nullif(jsonb_array_length($19::jsonb), 0), 0)
         ), assigned AS (
           INSERT INTO public.lead_follow_ups (lead_id, status, assignee, updated_at) SELECT lead_id, NULL, assignee, $2 FROM chosen
         ), noted AS (
           INSERT INTO public.lead_history (lead_id, created_at, author, kind, value) SELECT lead_id, $2, $21, 'assignee', assignee FROM chosen
         ), told AS (
           INSERT INTO public.outbox (lead_id, kind, recipient, mail, next_attempt_at, created_at)
           SELECT lead_id, 'assignment', recipient, replace(content::text, $22, lead_id::text)::jsonb, $2, $2 FROM chosen WHERE content IS NOT NULL
         )`

/** The parameters $19 to $22 of assignmentSql. */
export function assignmentParams(assignment: NewAssignment | undefined): unknown[] {
  const candidates = (assignment?.candidates ?? []).map((c, i) => ({
    i,
    assignee: c.assignee,
    recipient: c.mail?.to ?? null,
    content: c.mail ?? null,
  }))
  return [JSON.stringify(candidates), assignment?.turns ?? null, assignment?.author ?? '', leadIdMark]
}
