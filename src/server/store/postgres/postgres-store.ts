import {
  countsByLaunch,
  leadColumnValues,
  notificationStateOf,
  withdrawalOf,
  type AddressKey,
  type ErasureResult,
  type LaunchOptions,
  type LeadStore,
  type LeadSearchPage,
  type StoredLead,
  type MessageCounts,
  type MessageStatus,
  type NewLead,
  type NewMessage,
  type OutboxCounts,
  type QueuedMail,
} from '../store.ts'
import type { SqlQueryable } from '../sql-queryable.ts'
import { leadIdMark, type NewAssignment } from '../follow-up.ts'
import { createPostgresSignInCounts } from './postgres-sign-in-counts.ts'
import { createPostgresFollowUps, followUpCondition } from './postgres-follow-up.ts'
import { createPostgresPulse } from './postgres-pulse.ts'
import { createPostgresAnnouncements } from './postgres-announcements.ts'
import { createPostgresDocuments } from './postgres-documents.ts'
import {
  type LeadRow,
  type JobRow,
  type MessageRow,
  type ListedRow,
  leadColumns,
  messageColumns,
  emailKey,
  searchCondition,
  launchCondition,
  launchesCondition,
  toNumber,
  toIso,
  toLead,
  toJob,
  toMessageState,
  whereOf,
} from './postgres-rows.ts'

/** What the store needs from a Postgres client (sql-queryable.ts); named here too for the entries and tests that import it from here. */
export type { SqlQueryable } from '../sql-queryable.ts'

/** Options for the Postgres store. */
export type PostgresStoreOptions = LaunchOptions & {
  /** Called by close(), e.g. `() => pool.end()`. */
  close?: () => Promise<void>
}

/** A LeadStore on PostgreSQL with the tables of supabase/migrations (apply them first). */
export function createPostgresStore(db: SqlQueryable, options: PostgresStoreOptions): LeadStore {
  const { defaultLaunch } = options
  const toStored = (row: LeadRow) => toLead(row, defaultLaunch)
  return {
    ...createPostgresSignInCounts(db),
    ...createPostgresFollowUps(db, defaultLaunch),
    ...createPostgresPulse(db, defaultLaunch),
    ...createPostgresAnnouncements(db, defaultLaunch),
    ...createPostgresDocuments(db),
    async saveLead(lead: NewLead, mail: QueuedMail | null, more: NewMessage[] = [], assignment?: NewAssignment) {
      // One statement: the lead and its messages (if any) are committed together, or nothing is.
      const messages = [
        ...(mail ? [{ kind: 'notification', recipient: mail.to, content: mail }] : []),
        ...more.map((m) =>
          m.kind === 'webhook'
            ? { kind: m.kind, recipient: 'webhook', content: m.webhook }
            : { kind: m.kind, recipient: m.mail.to, content: m.mail },
        ),
      ]
      // Most leads of a launch without a roster have no assignment: their statement leaves its part out.
      const assigning = assignment !== undefined && assignment.candidates.length > 0
      const { rows } = await db.query(
        `WITH new_lead AS (
           INSERT INTO public.leads (submission_id, created_at, fields, consent_text, page_url, referrer, utm, user_agent, click_ids, landing_page, suspected_spam, consent_sha256, consent_reported, launch, phase, consent_kind, implied_until)
           VALUES ($1, $2, $3::jsonb, $4, $5, $6, $7::jsonb, $8, $9::jsonb, $10, $11::int = 1, $12, $13, $14, $15, $16, $17)
           ON CONFLICT (submission_id) DO NOTHING
           RETURNING ${leadColumns}
         ), new_mail AS (
           INSERT INTO public.outbox (lead_id, kind, recipient, mail, next_attempt_at, created_at)
           SELECT new_lead.id, m.kind, m.recipient, m.content, $2, $2
           FROM new_lead, jsonb_to_recordset($18::jsonb) AS m (kind text, recipient text, content jsonb)
         )${assigning ? `, ${assignmentSql}` : ''}
         SELECT ${leadColumns} FROM new_lead`,
        [...leadColumnValues(lead), JSON.stringify(messages), ...(assigning ? assignmentParams(assignment) : [])],
      )
      const created = rows[0] as LeadRow | undefined
      if (created) return { created: true, lead: toStored(created) }
      // The conflicting insert waited for the other transaction to commit, so the stored lead is visible now.
      const existing = await db.query(`SELECT ${leadColumns} FROM public.leads WHERE submission_id = $1`, [
        lead.submissionId,
      ])
      const row = existing.rows[0] as LeadRow | undefined
      if (!row) throw new Error(`Lead ${lead.submissionId} conflicted but cannot be read back.`)
      return { created: false, lead: toStored(row) }
    },

    async claimDueMail(now, limit, leaseMs) {
      // SKIP LOCKED and the lease let several function instances (and the scheduled retry) share the outbox.
      const { rows } = await db.query(
        `UPDATE public.outbox SET locked_until = $2
         WHERE id IN (SELECT id FROM public.outbox
                      WHERE status = 'pending' AND next_attempt_at <= $1 AND (locked_until IS NULL OR locked_until <= $1)
                      ORDER BY next_attempt_at, id LIMIT $3
                      FOR UPDATE SKIP LOCKED)
         RETURNING id, lead_id, attempts, kind, mail,
           EXISTS (SELECT 1 FROM public.leads l JOIN public.leads w ON ${emailKey('w')} = ${emailKey('l')}
                   WHERE l.id = outbox.lead_id AND w.withdrawn_at IS NOT NULL) AS withdrawn`,
        [now.toISOString(), new Date(now.getTime() + leaseMs).toISOString(), limit],
      )
      return (rows as JobRow[]).map(toJob).sort((a, b) => a.id - b.id)
    },

    async markMailSent(ids, now) {
      if (ids.length === 0) return
      await db.query(
        `UPDATE public.outbox SET status = 'sent', sent_at = $2, attempts = attempts + 1, locked_until = NULL, last_error = NULL
         WHERE id = ANY($1::bigint[])`,
        [ids, now.toISOString()],
      )
    },

    async markMailFailed(id, error, nextAttemptAt) {
      await db.query(
        `UPDATE public.outbox SET attempts = attempts + 1, last_error = $2, next_attempt_at = $3, locked_until = NULL WHERE id = $1`,
        [id, error, nextAttemptAt.toISOString()],
      )
    },

    async markMessageFailed(id, error, now) {
      await db.query(
        `UPDATE public.outbox SET status = 'failed', attempts = attempts + 1, last_error = $2, failed_at = $3, locked_until = NULL
         WHERE id = $1 AND status = 'pending'`,
        [id, error, now.toISOString()],
      )
    },

    async markMessageCancelled(id, now) {
      await db.query(
        `UPDATE public.outbox SET status = 'cancelled', failed_at = $2, locked_until = NULL WHERE id = $1 AND status = 'pending'`,
        [id, now.toISOString()],
      )
    },

    async retryFailedMessages(now) {
      const { rows } = await db.query(
        `WITH retried AS (
           UPDATE public.outbox SET status = 'pending', attempts = 0, next_attempt_at = $1, failed_at = NULL, locked_until = NULL
           WHERE status = 'failed' RETURNING 1
         ) SELECT count(*)::int AS n FROM retried`,
        [now.toISOString()],
      )
      return (rows[0] as { n: number }).n
    },

    async listMessages(query) {
      const { rows } = await db.query(
        `SELECT ${messageColumns} FROM public.outbox
         WHERE id > $1 AND ($2::bigint IS NULL OR lead_id = $2) AND ($3::text IS NULL OR status = $3)
         ORDER BY id LIMIT $4`,
        [query.afterId ?? 0, query.leadId ?? null, query.status ?? null, query.limit],
      )
      return (rows as MessageRow[]).map(toMessageState)
    },

    async countMessages() {
      const { rows } = await db.query(`SELECT status, count(*)::int AS n FROM public.outbox GROUP BY status`)
      const out: MessageCounts = { pending: 0, sent: 0, failed: 0, cancelled: 0 }
      for (const row of rows as { status: string; n: number }[])
        if (row.status in out) out[row.status as MessageStatus] = row.n
      return out
    },

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

    async isAddressWithdrawn(email) {
      const { rows } = await db.query(
        `SELECT 1 FROM public.leads l WHERE withdrawn_at IS NOT NULL AND ${emailKey('l')} = $1 LIMIT 1`,
        [email.trim().toLowerCase()],
      )
      return rows.length > 0
    },

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

    async searchLeads(search) {
      const typed = searchCondition(search)
      // A phone typed in another format than the lead's is found by its E.164 reading (the leads page passes it).
      const text = search.phone
        ? {
            sql: `(${typed.sql} OR leads.phone_e164 = $${typed.params.length + 1})`,
            params: [...typed.params, search.phone],
          }
        : typed
      const launch = launchCondition(search.launch, defaultLaunch, text.params.length + 1)
      const launches = launchesCondition(search.launches, defaultLaunch, text.params.length + launch.params.length + 1)
      const follow = followUpCondition(search, text.params.length + launch.params.length + launches.params.length + 1)
      const match = {
        sql: `${text.sql} AND ${launch.sql} AND ${launches.sql} AND ${follow.sql}`,
        params: [...text.params, ...launch.params, ...launches.params, ...follow.params],
      }
      const n = match.params.length
      const from = search.from
      const newer = from !== undefined && 'newer' in from
      const position = from === undefined ? undefined : 'newer' in from ? from.newer : from.older
      const keysetOn = (alias: string) =>
        position
          ? ` AND (${alias}.created_at, ${alias}.id) ${newer ? '>' : '<'} ($${n + 1}::timestamptz, $${n + 2})`
          : ''
      const order = newer ? 'ASC' : 'DESC'
      const pageParams = [...match.params, ...(position ? [position.createdAt, position.id] : []), search.limit]
      const limit = `$${n + (position ? 3 : 1)}`
      // The lead's first outbox row is its notification; (lead_id, id) is indexed, so this stays one index probe a
      // lead whatever the planner's statistics say (min(id) made it walk the primary key on a fresh table).
      const listedColumns = `${leadColumns
        .split(', ')
        .map((c) => `leads.${c}`)
        .join(', ')}, leads.withdrawn_at, o.status AS mail_status, o.attempts AS mail_attempts,
           fu.status AS fu_status, fu.assignee AS fu_assignee`
      const details = `LEFT JOIN LATERAL (
           SELECT status, attempts FROM public.outbox WHERE outbox.lead_id = leads.id ORDER BY outbox.id LIMIT 1
         ) AS o ON true LEFT JOIN public.lead_follow_ups AS fu ON fu.lead_id = leads.id`
      if (search.text?.trim()) {
        // A text search reads every lead's fields: the matches are found once, and the page, the count and whether
        // there is more on either side are all taken from them (otherwise each is its own pass over the leads).
        const { rows } = await db.query(
          `WITH m AS MATERIALIZED (SELECT id, created_at FROM public.leads WHERE ${match.sql}),
           p AS (SELECT id, created_at FROM m WHERE true${keysetOn('m')} ORDER BY created_at ${order}, id ${order} LIMIT ${limit}),
           meta AS (SELECT (SELECT count(*)::int FROM m) AS total,
             EXISTS (SELECT 1 FROM m WHERE (m.created_at, m.id) > (SELECT created_at, id FROM p ORDER BY created_at DESC, id DESC LIMIT 1)) AS newer,
             EXISTS (SELECT 1 FROM m WHERE (m.created_at, m.id) < (SELECT created_at, id FROM p ORDER BY created_at, id LIMIT 1)) AS older)
           SELECT meta.total, meta.newer AS has_newer, meta.older AS has_older, ${listedColumns}
           FROM meta LEFT JOIN (p JOIN public.leads ON leads.id = p.id ${details}) ON true
           ORDER BY p.created_at ${order}, p.id ${order}`,
          pageParams,
        )
        const found = rows as Array<ListedRow & { total: number; has_newer: boolean; has_older: boolean }>
        const { total, has_newer: hasNewer, has_older: hasOlder } = found[0]!
        return listedPage(
          found.filter((row) => row.id !== null),
          toStored,
          newer,
          position !== undefined,
          { total, hasNewer, hasOlder },
        )
      }
      const { rows } = await db.query(
        `SELECT ${listedColumns}
         FROM public.leads ${details}
         WHERE ${match.sql}${keysetOn('leads')}
         ORDER BY leads.created_at ${order}, leads.id ${order} LIMIT ${limit}`,
        pageParams,
      )
      const listed = rows as ListedRow[]
      // The count and whether there is more on either side, in one round trip.
      const first = newer ? listed.at(-1) : listed[0]
      const last = newer ? listed[0] : listed.at(-1)
      const beyond = (side: '<' | '>', at: number) =>
        `EXISTS (SELECT 1 FROM public.leads WHERE ${match.sql} AND (created_at, id) ${side} ($${at}::timestamptz, $${at + 1}))`
      const { rows: meta } = await db.query(
        first && last
          ? `SELECT (SELECT count(*)::int FROM public.leads WHERE ${match.sql}) AS total, ${beyond('>', n + 1)} AS newer, ${beyond('<', n + 3)} AS older`
          : `SELECT (SELECT count(*)::int FROM public.leads WHERE ${match.sql}) AS total, false AS newer, false AS older`,
        first && last
          ? [...match.params, toIso(first.created_at), toNumber(first.id), toIso(last.created_at), toNumber(last.id)]
          : match.params,
      )
      const { total, newer: hasNewer, older: hasOlder } = meta[0] as { total: number; newer: boolean; older: boolean }
      return listedPage(listed, toStored, newer, position !== undefined, { total, hasNewer, hasOlder })
    },

    async countMail() {
      const { rows } = await db.query(`SELECT status, count(*)::int AS n FROM public.outbox GROUP BY status`)
      const out: OutboxCounts = { pending: 0, sent: 0 }
      for (const row of rows as { status: string; n: number }[]) {
        if (row.status === 'pending' || row.status === 'sent') out[row.status] = row.n
      }
      return out
    },

    async countErasable(selector) {
      const [where, param] = whereOf(selector)
      const { rows } = await db.query(
        `SELECT count(*)::int AS leads, (SELECT count(*)::int FROM public.outbox WHERE lead_id IN (SELECT id FROM public.leads WHERE ${where})) AS messages
         FROM public.leads WHERE ${where}`,
        [param],
      )
      return rows[0] as { leads: number; messages: number }
    },

    async eraseLeads(selector, keyOf): Promise<ErasureResult> {
      const [where, param] = whereOf(selector)
      const found = (
        await db.query(
          `SELECT id, fields->>'email' AS email, withdrawn_at IS NOT NULL AS withdrawn FROM public.leads WHERE ${where}`,
          [param],
        )
      ).rows as Array<{ id: string | number; email: string | null; withdrawn: boolean }>
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
    },

    async suppressAddress(key: AddressKey) {
      await db.query('INSERT INTO public.suppressions (address_key) VALUES ($1) ON CONFLICT DO NOTHING', [key])
    },

    async isSuppressed(key: AddressKey) {
      const { rows } = await db.query('SELECT 1 FROM public.suppressions WHERE address_key = $1', [key])
      return rows.length > 0
    },

    async queueDailyMail(job, day, mail, now) {
      // One statement: the day's claim (daily_runs, as the retention's) and the summary are committed together.
      const { rows } = await db.query(
        `WITH claimed AS (
           INSERT INTO public.daily_runs (job, day, started_at) VALUES ($1, $2::date, $4) ON CONFLICT DO NOTHING RETURNING 1
         ), queued AS (
           INSERT INTO public.outbox (lead_id, kind, recipient, mail, next_attempt_at, created_at)
           SELECT NULL, 'summary', $3::jsonb->>'to', $3::jsonb, $4, $4 FROM claimed
         )
         SELECT count(*)::int AS claimed FROM claimed`,
        [job, day, JSON.stringify(mail), now.toISOString()],
      )
      return (rows[0] as { claimed: number }).claimed === 1
    },

    async hasDailyRun(job, day) {
      const { rows } = await db.query('SELECT 1 FROM public.daily_runs WHERE job = $1 AND day = $2::date', [job, day])
      return rows.length > 0
    },

    async close() {
      await options.close?.()
    },
  }
}

/**
 * The part of saveLead's statement that assigns a new lead (follow-up.ts: NewAssignment), parameters $19 to $22: takes the
 * roster's next turn (the row lock of ON CONFLICT DO UPDATE orders concurrent registrations), records the chosen
 * candidate as the assignee with its history line, and queues their mail with the lead's id in it. Nothing without an
 * assignment ($19 an empty list) or for a repeated submission (no new_lead row).
 */
const assignmentSql = `turn AS (
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
function assignmentParams(assignment: NewAssignment | undefined): unknown[] {
  const candidates = (assignment?.candidates ?? []).map((c, i) => ({
    i,
    assignee: c.assignee,
    recipient: c.mail?.to ?? null,
    content: c.mail ?? null,
  }))
  return [JSON.stringify(candidates), assignment?.turns ?? null, assignment?.author ?? '', leadIdMark]
}

/**
 * A search's page of rows as the leads page lists it, newest first (`fetchedOldestFirst` for a page read towards
 * newer leads); a page past the end of the matches still says there are newer ones when there are any.
 */
function listedPage(
  rows: ListedRow[],
  toStored: (row: LeadRow) => StoredLead,
  fetchedOldestFirst: boolean,
  fromPosition: boolean,
  meta: Omit<LeadSearchPage, 'leads'>,
): LeadSearchPage {
  if (fetchedOldestFirst) rows.reverse()
  return {
    leads: rows.map((row) => ({
      ...toStored(row),
      notification: notificationStateOf(row.mail_status, row.mail_attempts),
      ...withdrawalOf(row.withdrawn_at === null ? null : toIso(row.withdrawn_at)),
      followUp: { status: row.fu_status, assignee: row.fu_assignee ?? '' },
    })),
    total: meta.total,
    hasNewer: rows.length === 0 ? meta.total > 0 && fromPosition : meta.hasNewer,
    hasOlder: meta.hasOlder,
  }
}
