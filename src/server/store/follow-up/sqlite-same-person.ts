// The same person's registrations in SQLite (follow-up.ts: FollowUpStore): the other registrations of a lead's person
// (same e-mail or same E.164 phone), and the realtor a buyer named as their agent.
import type { SqliteContext } from '../sqlite/sqlite-context.ts'
import { promised } from '../sqlite/sqlite-promised.ts'
import { emailKey } from '../sqlite/sqlite-rows.ts'
import type { FollowUpStore } from '../follow-up.ts'

// A lead's person, as compared across registrations: its address (trimmed, lower case) and its E.164 phone. Each
// side is its own indexed lookup (leads_email_key, leads_phone_e164): an OR of the two would scan every lead.
const sameEmail = (self: string, other: string) =>
  `${emailKey(`${other}.fields`)} = ${emailKey(`${self}.fields`)} AND ${emailKey(`${self}.fields`)} <> ''`
// `other.phone_e164 <> ''` too: it lets the planner use the partial index leads_phone_e164.
const samePhone = (self: string, other: string) =>
  `${other}.phone_e164 = ${self}.phone_e164 AND ${self}.phone_e164 <> '' AND ${other}.phone_e164 <> ''`
const countOthers = (condition: string) => `(SELECT count(*) FROM leads AS o WHERE ${condition} AND o.id <> l.id)`

type SamePerson = Pick<FollowUpStore, 'otherRegistrationsOf' | 'countOtherRegistrations' | 'agentRegistrationOf'>

/** The same person's registrations on an open SQLite lead database (version 8). */
export function createSqliteSamePerson(ctx: SqliteContext): SamePerson {
  return promised<SamePerson>({
    otherRegistrationsOf(leadId) {
      return ctx
        .query<{ id: number; launch: string | null; created_at: string }>(
          `SELECT o.id, o.launch, o.created_at FROM leads AS o WHERE o.id <> ? AND o.id IN (
           SELECT o.id FROM leads AS l JOIN leads AS o ON ${sameEmail('l', 'o')} WHERE l.id = ?
           UNION SELECT o.id FROM leads AS l JOIN leads AS o ON ${samePhone('l', 'o')} WHERE l.id = ?)
         ORDER BY o.created_at DESC, o.id DESC`,
        )
        .all(leadId, leadId, leadId)
        .map((row) => ({ id: row.id, launch: row.launch ?? ctx.defaultLaunch, createdAt: row.created_at }))
    },
    countOtherRegistrations(leadIds) {
      if (leadIds.length === 0) return []
      return ctx
        .query<{ lead_id: number; others: number }>(
          // Same e-mail, plus same phone, less those that are both.
          `SELECT l.id AS lead_id,
           ${countOthers(sameEmail('l', 'o'))} + ${countOthers(samePhone('l', 'o'))} - ${countOthers(`${sameEmail('l', 'o')} AND ${samePhone('l', 'o')}`)} AS others
         FROM leads AS l WHERE l.id IN (SELECT value FROM json_each(?))`,
        )
        .all(JSON.stringify(leadIds))
        .filter((row) => row.others > 0)
        .map((row) => ({ leadId: row.lead_id, others: row.others }))
    },
    agentRegistrationOf(leadId) {
      const row = ctx
        .query<{ id: number; created_at: string; name: string | number | null; brokerage: string | number | null }>(
          `SELECT o.id, o.created_at, json_extract(o.fields, '$.name') AS name, json_extract(o.fields, '$.brokerage') AS brokerage
         FROM leads AS l JOIN leads AS o ON coalesce(o.launch, '') = coalesce(l.launch, '') AND o.id <> l.id
         WHERE l.id = ? AND lower(coalesce(json_extract(o.fields, '$.isRealtor'), '')) = 'yes' AND json_extract(l.fields, '$.agent') IS NOT NULL
           AND lower(trim(json_extract(l.fields, '$.agent'))) <> ''
           AND lower(trim(json_extract(l.fields, '$.agent'))) IN (lower(trim(coalesce(json_extract(o.fields, '$.name'), ''))), lower(trim(coalesce(json_extract(o.fields, '$.email'), ''))))
         ORDER BY o.created_at, o.id LIMIT 1`,
        )
        .get(leadId)
      return (
        row && {
          id: row.id,
          createdAt: row.created_at,
          name: String(row.name ?? ''),
          brokerage: String(row.brokerage ?? ''),
        }
      )
    },
  })
}
