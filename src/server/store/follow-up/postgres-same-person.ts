// The same person's registrations on PostgreSQL (follow-up.ts: FollowUpStore): the other registrations of a lead's
// person (same e-mail or same E.164 phone), and the realtor a buyer named as their agent.
import type { FollowUpStore } from '../follow-up.ts'
import type { SqlQueryable } from '../sql-queryable.ts'
import { toIso } from '../postgres/postgres-rows.ts'

const emailKey = (alias: string) => `lower(btrim(${alias}.fields->>'email'))`
// A lead's person, as compared across registrations: its address (trimmed, lower case) and its E.164 phone. Each
// side is its own indexed lookup (leads_email_key, leads_phone_e164): an OR of the two would scan every lead.
const sameEmail = (self: string, other: string) => `${emailKey(other)} = ${emailKey(self)} AND ${emailKey(self)} <> ''`
// `other.phone_e164 <> ''` too: it lets the planner use the partial index leads_phone_e164.
const samePhone = (self: string, other: string) =>
  `${other}.phone_e164 = ${self}.phone_e164 AND ${self}.phone_e164 <> '' AND ${other}.phone_e164 <> ''`
const countOthers = (condition: string) =>
  `(SELECT count(*)::int FROM public.leads AS o WHERE ${condition} AND o.id <> l.id)`

type SamePerson = Pick<FollowUpStore, 'otherRegistrationsOf' | 'countOtherRegistrations' | 'agentRegistrationOf'>

/** The same person's registrations on a PostgreSQL lead database. */
export function createPostgresSamePerson(db: SqlQueryable, defaultLaunch: string): SamePerson {
  return {
    async otherRegistrationsOf(leadId) {
      const { rows } = await db.query(
        `SELECT o.id, o.launch, o.created_at FROM public.leads AS o WHERE o.id <> $1 AND o.id IN (
           SELECT o.id FROM public.leads AS l JOIN public.leads AS o ON ${sameEmail('l', 'o')} WHERE l.id = $1
           UNION SELECT o.id FROM public.leads AS l JOIN public.leads AS o ON ${samePhone('l', 'o')} WHERE l.id = $1)
         ORDER BY o.created_at DESC, o.id DESC`,
        [leadId],
      )
      return (rows as Array<{ id: string | number; launch: string | null; created_at: Date | string }>).map((row) => ({
        id: Number(row.id),
        launch: row.launch ?? defaultLaunch,
        createdAt: toIso(row.created_at),
      }))
    },
    async countOtherRegistrations(leadIds) {
      if (leadIds.length === 0) return []
      const { rows } = await db.query(
        // Same e-mail, plus same phone, less those that are both.
        `SELECT l.id AS lead_id,
           ${countOthers(sameEmail('l', 'o'))} + ${countOthers(samePhone('l', 'o'))} - ${countOthers(`${sameEmail('l', 'o')} AND ${samePhone('l', 'o')}`)} AS others
         FROM public.leads AS l WHERE l.id = ANY($1::bigint[])`,
        [leadIds.map(String)],
      )
      return (rows as Array<{ lead_id: string | number; others: number }>)
        .filter((row) => row.others > 0)
        .map((row) => ({ leadId: Number(row.lead_id), others: row.others }))
    },
    async agentRegistrationOf(leadId) {
      const { rows } = await db.query(
        `SELECT o.id, o.created_at, (o.fields->>'name') AS name, (o.fields->>'brokerage') AS brokerage
         FROM public.leads AS l JOIN public.leads AS o ON coalesce(o.launch, '') = coalesce(l.launch, '') AND o.id <> l.id
         WHERE l.id = $1 AND lower(coalesce((o.fields->>'isRealtor'), '')) = 'yes' AND (l.fields->>'agent') IS NOT NULL
           AND lower(trim((l.fields->>'agent'))) <> ''
           AND lower(trim((l.fields->>'agent'))) IN (lower(trim(coalesce((o.fields->>'name'), ''))), lower(trim(coalesce((o.fields->>'email'), ''))))
         ORDER BY o.created_at, o.id LIMIT 1`,
        [leadId],
      )
      const row = rows[0] as
        { id: string | number; created_at: Date | string; name: string | null; brokerage: string | null } | undefined
      return (
        row && {
          id: Number(row.id),
          createdAt: toIso(row.created_at),
          name: row.name ?? '',
          brokerage: row.brokerage ?? '',
        }
      )
    },
  }
}
