// Reading leads and recording a withdrawal on PostgreSQL (leads.ts: LeadsStore).
import { queryNamed, type SqlQueryable } from '../sql-queryable.ts'
import { createGroupRead } from '../postgres/postgres-group-read.ts'
import {
  emailKey,
  launchCondition,
  leadColumns,
  toIso,
  toLead,
  toNumber,
  type LeadRow,
} from '../postgres/postgres-rows.ts'
import { countsByLaunch, type LeadsStore } from './leads.ts'

/**
 * Which of the addresses (trimmed, lower case) a withdrawn lead has: each probed in the partial index
 * leads_withdrawn_email, however many leads withdrew (a join with the list may hash every withdrawn lead instead).
 */
const withdrawnSql = `SELECT DISTINCT ${emailKey('l')} AS address FROM public.leads l
  WHERE l.withdrawn_at IS NOT NULL AND ${emailKey('l')} = ANY($1::text[])`

/** LeadsStore on a PostgreSQL lead database. */
export function createPostgresLeads(db: SqlQueryable, defaultLaunch: string): LeadsStore {
  const toStored = (row: LeadRow) => toLead(row, defaultLaunch)
  // Asked for every registration: the addresses asked together are one statement (postgres-group-read.ts).
  const isWithdrawn = createGroupRead(async (addresses) => {
    const { rows } = await queryNamed(db, 'leads_withdrawn_addresses', withdrawnSql, [addresses])
    return (rows as Array<{ address: string }>).map((row) => row.address)
  })
  return {
    async withdrawLead(submissionId, now) {
      const at = now.toISOString()
      const { rows } = await db.query(
        `UPDATE public.leads SET withdrawn_at = coalesce(withdrawn_at, $1) WHERE submission_id::text = $2
         RETURNING id, withdrawn_at, withdrawn_at = $1::timestamptz AS fresh`,
        [at, submissionId.toLowerCase()],
      )
      const row = rows[0] as { id: string | number; withdrawn_at: Date | string; fresh: boolean } | undefined
      return row ? { leadId: toNumber(row.id), withdrawnAt: toIso(row.withdrawn_at), already: !row.fresh } : undefined
    },
    isAddressWithdrawn: (email) => isWithdrawn(email.trim().toLowerCase()),
    async findLead(submissionId) {
      const { rows } = await db.query(`SELECT ${leadColumns} FROM public.leads WHERE submission_id::text = $1`, [
        submissionId.toLowerCase(),
      ])
      const row = rows[0] as LeadRow | undefined
      return row ? toStored(row) : undefined
    },
    async leadsById(ids) {
      if (ids.length === 0) return []
      const { rows } = await db.query(`SELECT ${leadColumns} FROM public.leads WHERE id = ANY($1::bigint[])`, [ids])
      return (rows as LeadRow[]).map(toStored)
    },
    async listLeads(afterId, limit, launch) {
      const only = launchCondition(launch, defaultLaunch, 3)
      const { rows } = await db.query(
        `SELECT ${leadColumns} FROM public.leads WHERE id > $1 AND ${only.sql} ORDER BY id LIMIT $2`,
        [afterId, limit, ...only.params],
      )
      return (rows as LeadRow[]).map(toStored)
    },
    async countLeadsByLaunch() {
      const { rows } = await db.query(`SELECT launch, count(*)::int AS leads FROM public.leads GROUP BY launch`)
      return countsByLaunch(rows as Array<{ launch: string | null; leads: number }>, defaultLaunch)
    },
  }
}
