// The SQLite store's announcements (announcements.ts): who may receive marketing, and the announcements with their
// outbox messages. Schema version 12 (sqlite-schema.ts).
import { promised } from '../sqlite/sqlite-promised.ts'
import type Database from 'better-sqlite3'
import type { Announcement, AnnouncementStore, LeadAnnouncement } from '../announcements.ts'
import type { MessageStatus, OutgoingMail, StoredLead } from '../store.ts'
import { emailKey, toLead, type LeadRow } from '../sqlite/sqlite-rows.ts'

type AnnouncementRow = {
  id: number
  key: string
  launch: string
  subject: string
  body: string
  author: string
  created_at: string
  recipients: number
  sent: number
}

const toAnnouncement = (row: AnnouncementRow): Announcement => ({
  id: row.id,
  key: row.key,
  launch: row.launch,
  subject: row.subject,
  text: row.body,
  author: row.author,
  createdAt: row.created_at,
  recipients: row.recipients,
  sent: row.sent,
})

const withCounts = `SELECT a.*, (SELECT count(*) FROM outbox o WHERE o.announcement_id = a.id) AS recipients,
  (SELECT count(*) FROM outbox o WHERE o.announcement_id = a.id AND o.status = 'sent') AS sent FROM announcements a`

/** The save of an announcement and its messages, one transaction, held to the daily limit when given one. */
function saveTransaction(db: Database.Database) {
  const query = (sql: string) => db.prepare(sql)
  return db.transaction(
    (
      announcement: Parameters<AnnouncementStore<StoredLead, OutgoingMail>['saveAnnouncement']>[0],
      messages: Array<{ leadId: number; mail: OutgoingMail }>,
      quietSince: string | undefined,
    ): number | undefined => {
      // The daily limit, in the transaction (immediate: one writer at a time), so two senders never both pass.
      if (
        quietSince !== undefined &&
        query('SELECT 1 FROM announcements WHERE launch = ? AND created_at > ?').get(announcement.launch, quietSince)
      )
        return undefined
      const { id } = query(
        'INSERT INTO announcements (key, launch, subject, body, author, created_at) VALUES (?, ?, ?, ?, ?, ?) RETURNING id',
      ).get(
        announcement.key,
        announcement.launch,
        announcement.subject,
        announcement.text,
        announcement.author,
        announcement.createdAt,
      ) as { id: number }
      const insert = query(
        `INSERT INTO outbox (lead_id, kind, recipient, mail, next_attempt_at, created_at, announcement_id) VALUES (?, 'announcement', ?, ?, ?, ?, ?)`,
      )
      for (const { leadId, mail } of messages)
        insert.run(leadId, mail.to, JSON.stringify(mail), announcement.createdAt, announcement.createdAt, id)
      return id
    },
  )
}

/** The announcements' part of the SQLite store, on its connection (`defaultLaunch`: what a null launch is). */
export function createSqliteAnnouncements(
  db: Database.Database,
  defaultLaunch: string,
  readonly: boolean,
): AnnouncementStore<StoredLead, OutgoingMail> {
  const query = (sql: string) => db.prepare(sql)
  const save = saveTransaction(db)
  return promised<AnnouncementStore<StoredLead, OutgoingMail>>({
    listMarketableLeads(launch, now) {
      const rows = query(
        `SELECT * FROM leads WHERE (leads.launch = ? OR (leads.launch IS NULL AND ? = ?)) AND suspected_spam = 0 AND withdrawn_at IS NULL
           AND (consent_kind = 'express' OR implied_until > ?)
           AND NOT EXISTS (SELECT 1 FROM leads w WHERE ${emailKey('w.fields')} = ${emailKey('leads.fields')} AND w.withdrawn_at IS NOT NULL)
         ORDER BY created_at DESC, id DESC`,
      ).all(launch, launch, defaultLaunch, now.toISOString()) as LeadRow[]
      return rows.map((row) => toLead(row, defaultLaunch))
    },
    saveAnnouncement(announcement, messages, quietSince) {
      if (readonly) throw new Error('This lead store was opened read-only.')
      const id = save.immediate(announcement, messages, quietSince)
      if (id === undefined) return undefined
      return toAnnouncement(query(`${withCounts} WHERE a.id = ?`).get(id) as AnnouncementRow)
    },
    queueTestAnnouncement(mail, now) {
      if (readonly) throw new Error('This lead store was opened read-only.')
      const at = now.toISOString()
      query(
        "INSERT INTO outbox (lead_id, kind, recipient, mail, next_attempt_at, created_at) VALUES (NULL, 'announcement', ?, ?, ?, ?)",
      ).run(mail.to, JSON.stringify(mail), at, at)
    },
    listAnnouncements(launches) {
      const rows =
        launches === undefined
          ? (query(`${withCounts} ORDER BY a.created_at DESC, a.id DESC`).all() as AnnouncementRow[])
          : (query(
              `${withCounts} WHERE a.launch IN (SELECT value FROM json_each(?)) ORDER BY a.created_at DESC, a.id DESC`,
            ).all(JSON.stringify(launches)) as AnnouncementRow[])
      return rows.map(toAnnouncement)
    },
    listLeadAnnouncements(leadId) {
      const rows = query(
        `SELECT a.id, a.subject, a.created_at, a.author, o.status FROM outbox o JOIN announcements a ON a.id = o.announcement_id
         WHERE o.lead_id = ? ORDER BY a.created_at DESC, a.id DESC`,
      ).all(leadId) as Array<{ id: number; subject: string; created_at: string; author: string; status: MessageStatus }>
      return rows.map((row): LeadAnnouncement => ({
        id: row.id,
        subject: row.subject,
        createdAt: row.created_at,
        author: row.author,
        status: row.status,
      }))
    },
  })
}
