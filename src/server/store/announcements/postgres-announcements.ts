// The PostgreSQL store's announcements (announcements.ts), as sqlite/sqlite-announcements.ts: who may receive
// marketing, and the announcements with their outbox messages (supabase/migrations/20260101000000_consent_kind.sql).
import type { Announcement, AnnouncementStore, LeadAnnouncement, NewAnnouncement } from '../announcements.ts'
import type { MessageStatus, OutgoingMail, StoredLead } from '../store.ts'
import {
  emailKey,
  launchCondition,
  leadColumns,
  toIso,
  toLead,
  toNumber,
  type LeadRow,
} from '../postgres/postgres-rows.ts'

/** The one thing needed of a Postgres client (postgres-store.ts: SqlQueryable). */
type SqlQueryable = { query(text: string, params?: unknown[]): Promise<{ rows: unknown[] }> }

type AnnouncementRow = {
  id: string | number | bigint
  key: string
  launch: string
  subject: string
  body: string
  author: string
  created_at: Date | string
  recipients: string | number
  sent: string | number
}

const toAnnouncement = (row: AnnouncementRow): Announcement => ({
  id: toNumber(row.id),
  key: row.key,
  launch: row.launch,
  subject: row.subject,
  text: row.body,
  author: row.author,
  createdAt: toIso(row.created_at),
  recipients: Number(row.recipients),
  sent: Number(row.sent),
})

const withCounts = `SELECT a.id, a.key::text AS key, a.launch, a.subject, a.body, a.author, a.created_at,
  (SELECT count(*) FROM public.outbox o WHERE o.announcement_id = a.id) AS recipients,
  (SELECT count(*) FROM public.outbox o WHERE o.announcement_id = a.id AND o.status = 'sent') AS sent FROM public.announcements a`

/**
 * Stores an announcement and queues its messages in one statement, held to the daily limit when `quietSince` is given
 * (AnnouncementStore.saveAnnouncement).
 */
async function saveAnnouncement(
  db: SqlQueryable,
  announcement: NewAnnouncement,
  messages: Array<{ leadId: number; mail: OutgoingMail }>,
  quietSince: string | undefined,
): Promise<Announcement | undefined> {
  // One statement: the launch's gate, the announcement and its messages are committed together, or nothing is. The
  // gate's ON CONFLICT … WHERE locks the launch's row and reads its newest version: with $8 (the daily limit), a
  // second sender of the same launch, waiting on that lock, finds the first one's time and stores nothing.
  const { rows } = await db.query(
    `WITH gate AS (
         INSERT INTO public.announcement_gates AS g (launch, last_at) VALUES ($2, $6)
         ON CONFLICT (launch) DO UPDATE SET last_at = greatest(g.last_at, excluded.last_at)
         WHERE $8::timestamptz IS NULL OR g.last_at <= $8::timestamptz
         RETURNING 1
       ), new_announcement AS (
         INSERT INTO public.announcements (key, launch, subject, body, author, created_at)
         SELECT $1, $2, $3, $4, $5, $6 FROM gate RETURNING id
       ), queued AS (
         INSERT INTO public.outbox (lead_id, kind, recipient, mail, next_attempt_at, created_at, announcement_id)
         SELECT m.lead_id, 'announcement', m.recipient, m.content, $6, $6, new_announcement.id
         FROM new_announcement, jsonb_to_recordset($7::jsonb) AS m (lead_id bigint, recipient text, content jsonb)
       )
       SELECT id FROM new_announcement`,
    [
      announcement.key,
      announcement.launch,
      announcement.subject,
      announcement.text,
      announcement.author,
      announcement.createdAt,
      JSON.stringify(messages.map((m) => ({ lead_id: m.leadId, recipient: m.mail.to, content: m.mail }))),
      quietSince ?? null,
    ],
  )
  if (rows.length === 0) return undefined
  const id = toNumber((rows[0] as { id: string | number }).id)
  const saved = await db.query(`${withCounts} WHERE a.id = $1`, [id])
  return toAnnouncement(saved.rows[0] as AnnouncementRow)
}

/** The announcements' part of the Postgres store (`defaultLaunch`: what a null launch is). */
export function createPostgresAnnouncements(
  db: SqlQueryable,
  defaultLaunch: string,
): AnnouncementStore<StoredLead, OutgoingMail> {
  return {
    async listMarketableLeads(launch, now) {
      const only = launchCondition(launch, defaultLaunch, 2)
      const { rows } = await db.query(
        `SELECT ${leadColumns} FROM public.leads WHERE ${only.sql} AND NOT suspected_spam AND withdrawn_at IS NULL
           AND (consent_kind = 'express' OR implied_until > $1)
           AND NOT EXISTS (SELECT 1 FROM public.leads w WHERE ${emailKey('w')} = ${emailKey('leads')} AND w.withdrawn_at IS NOT NULL)
         ORDER BY created_at DESC, id DESC`,
        [now.toISOString(), ...only.params],
      )
      return (rows as LeadRow[]).map((row) => toLead(row, defaultLaunch))
    },
    saveAnnouncement: (announcement, messages, quietSince) => saveAnnouncement(db, announcement, messages, quietSince),
    async queueTestAnnouncement(mail, now) {
      await db.query(
        `INSERT INTO public.outbox (lead_id, kind, recipient, mail, next_attempt_at, created_at) VALUES (NULL, 'announcement', $1, $2::jsonb, $3, $3)`,
        [mail.to, JSON.stringify(mail), now.toISOString()],
      )
    },
    async listAnnouncements(launches) {
      const { rows } =
        launches === undefined
          ? await db.query(`${withCounts} ORDER BY a.created_at DESC, a.id DESC`)
          : await db.query(`${withCounts} WHERE a.launch = ANY($1::text[]) ORDER BY a.created_at DESC, a.id DESC`, [
              launches,
            ])
      return (rows as AnnouncementRow[]).map(toAnnouncement)
    },
    async listLeadAnnouncements(leadId) {
      const { rows } = await db.query(
        `SELECT a.id, a.subject, a.created_at, a.author, o.status FROM public.outbox o JOIN public.announcements a ON a.id = o.announcement_id
         WHERE o.lead_id = $1 ORDER BY a.created_at DESC, a.id DESC`,
        [leadId],
      )
      return (
        rows as Array<{
          id: string | number
          subject: string
          created_at: Date | string
          author: string
          status: MessageStatus
        }>
      ).map((row): LeadAnnouncement => ({
        id: toNumber(row.id),
        subject: row.subject,
        createdAt: toIso(row.created_at),
        author: row.author,
        status: row.status,
      }))
    },
  }
}
