import { chmodSync, existsSync } from 'node:fs'
import Database from 'better-sqlite3'
import { ensurePrivateFile, privateFileMode } from '../private-files.ts'
import { createSqliteSignInCounts } from './sqlite-sign-in-counts.ts'
import {
  countsByLaunch,
  leadColumnValues,
  notificationStateOf,
  withdrawalOf,
  type AddressKey,
  type ErasureResult,
  type LeadSearch,
  type LaunchOptions,
  type LeadSearchPage,
  type LeadSelector,
  type LeadStore,
  type MessageCounts,
  type MessageStatus,
  type NewLead,
  type NewMessage,
  type OutboxCounts,
  type QueuedMail,
  type SaveLeadResult,
} from '../store.ts'
import { columnsOf, schemaV1, upgrades } from './sqlite-schema.ts'
import { createSqliteFollowUps, followUpCondition } from './sqlite-follow-up.ts'
import { createSqlitePulse } from './sqlite-pulse.ts'
import { createSqliteAnnouncements } from './sqlite-announcements.ts'
import { createSqliteDocuments } from './sqlite-documents.ts'
import { openSqliteWriter } from './sqlite-writer.ts'
import { createSqliteDailyRuns } from './sqlite-daily-runs.ts'
import type { NewAssignment } from '../follow-up.ts'
import {
  assignNewLead,
  emailKey,
  leadsListIndex,
  saveStatements,
  searchCondition,
  toJob,
  toLead,
  toMessageState,
  whereOf,
  type JobRow,
  type LeadRow,
  type ListedRow,
  type MessageRow,
} from './sqlite-rows.ts'

/** Options for opening the SQLite store. */
export type SqliteStoreOptions = LaunchOptions & {
  /** Open read-only (the export CLI, while a server may be running): no schema changes, no writes. */
  readonly?: boolean
  /** Save registrations on a worker thread (sqlite-writer.ts): the server's request thread never waits for an fsync. */
  writerThread?: boolean
}

/** A LeadStore in one SQLite file (WAL, synchronous=FULL: a committed lead survives a killed process or power cut). */
export type SqliteLeadStore = LeadStore & {
  /** Frees every claim: call at start-up, when this process owns DATA_DIR and no other worker can hold one. */
  releaseAllClaims(): Promise<void>
}

/**
 * Opens (and creates) the lead database at `file`. The caller must hold the DATA_DIR lock (data-dir-lock.ts):
 * SQLite itself is safe with two writers, but two outbox workers would double-send.
 */
export function openSqliteStore(file: string, options: SqliteStoreOptions): SqliteLeadStore {
  // Created owner-only before SQLite opens it: SQLite gives its -wal and -shm files the database file's mode.
  if (!options.readonly) ensurePrivateFile(file)
  const db = new Database(file, { readonly: options.readonly ?? false, fileMustExist: options.readonly ?? false })
  db.pragma('busy_timeout = 5000')
  if (!options.readonly) {
    db.pragma('journal_mode = WAL')
    for (const side of [`${file}-wal`, `${file}-shm`]) if (existsSync(side)) chmodSync(side, privateFileMode)
    // FULL: every commit is fsynced to the WAL before it returns, so an acknowledged lead is on disk.
    db.pragma('synchronous = FULL')
    db.pragma('foreign_keys = ON')
    // Deleted rows are overwritten with zeros, not just unlinked: an erased person's data leaves the file's bytes.
    db.pragma('secure_delete = ON')
    const version = db.pragma('user_version', { simple: true }) as number
    if (version < 1) {
      db.exec(schemaV1)
      db.pragma('user_version = 1')
    }
    upgrades.forEach((upgrade, i) => {
      const target = i + 2
      if (version >= target) return
      db.transaction(() => {
        upgrade(db)
        db.pragma(`user_version = ${target}`)
      }).immediate()
    })
    db.exec(leadsListIndex)
  }

  const statements = options.readonly
    ? undefined
    : {
        insertLead: db.prepare<unknown[], { id: number }>(saveStatements.insertLead),
        insertMail: db.prepare(saveStatements.insertMail),
        insertMessage: db.prepare(saveStatements.insertMessage),
        takeTurn: db.prepare(saveStatements.takeTurn),
        assignLead: db.prepare(saveStatements.assignLead),
        assignmentHistory: db.prepare(saveStatements.assignmentHistory),
        claim: db.prepare<unknown[], JobRow>(
          `UPDATE outbox SET locked_until = ?
           WHERE id IN (SELECT id FROM outbox
                        WHERE status = 'pending' AND next_attempt_at <= ? AND (locked_until IS NULL OR locked_until <= ?)
                        ORDER BY next_attempt_at, id LIMIT ?)
           RETURNING id, lead_id, attempts, kind, mail,
             EXISTS (SELECT 1 FROM leads l JOIN leads w ON ${emailKey('w.fields')} = ${emailKey('l.fields')}
                     WHERE l.id = outbox.lead_id AND w.withdrawn_at IS NOT NULL) AS withdrawn`,
        ),
        gaveUp: db.prepare(
          `UPDATE outbox SET status = 'failed', attempts = attempts + 1, last_error = ?, failed_at = ?, locked_until = NULL
           WHERE id = ? AND status = 'pending'`,
        ),
        cancelled: db.prepare(
          `UPDATE outbox SET status = 'cancelled', failed_at = ?, locked_until = NULL WHERE id = ? AND status = 'pending'`,
        ),
        retryFailed: db.prepare(
          `UPDATE outbox SET status = 'pending', attempts = 0, next_attempt_at = ?, failed_at = NULL, locked_until = NULL
           WHERE status = 'failed'`,
        ),
        withdraw: db.prepare<[{ now: string; submissionId: string }], { id: number; withdrawn_at: string }>(
          `UPDATE leads SET withdrawn_at = coalesce(withdrawn_at, @now) WHERE submission_id = @submissionId RETURNING id, withdrawn_at`,
        ),
        sent: db.prepare(
          `UPDATE outbox SET status = 'sent', sent_at = ?, attempts = attempts + 1, locked_until = NULL, last_error = NULL
           WHERE id = ?`,
        ),
        failed: db.prepare(
          `UPDATE outbox SET attempts = attempts + 1, last_error = ?, next_attempt_at = ?, locked_until = NULL WHERE id = ?`,
        ),
        release: db.prepare(
          `UPDATE outbox SET locked_until = NULL WHERE status = 'pending' AND locked_until IS NOT NULL`,
        ),
      }
  const byId = db.prepare<[number], LeadRow>('SELECT * FROM leads WHERE id = ?')
  const bySubmission = db.prepare<[string], LeadRow>('SELECT * FROM leads WHERE submission_id = ?')
  const defaultLaunch = options.defaultLaunch
  // A read-only store may open a file an older server still runs on, which has no launch column: all its leads are
  // the default launch's.
  const hasLaunch = columnsOf(db, 'leads').includes('launch')
  // Schema version 8 (follow-up, phones in E.164); a read-only store may open a file from before it.
  const hasFollowUps = columnsOf(db, 'leads').includes('phone_e164')
  /** The WHERE clause and parameters that keep one launch's leads (null launches are the default launch's). */
  function launchCondition(launch: string | undefined): { sql: string; params: unknown[] } {
    if (launch === undefined) return { sql: '1 = 1', params: [] }
    if (!hasLaunch) return { sql: launch === defaultLaunch ? '1 = 1' : '0 = 1', params: [] }
    return launch === defaultLaunch
      ? { sql: '(leads.launch = ? OR leads.launch IS NULL)', params: [launch] }
      : { sql: 'leads.launch = ?', params: [launch] }
  }
  /** The WHERE clause that keeps the leads of a list of launches (undefined: every launch). */
  function launchesCondition(launches: readonly string[] | undefined): { sql: string; params: unknown[] } {
    if (launches === undefined) return { sql: '1 = 1', params: [] }
    const withDefault = launches.includes(defaultLaunch)
    if (!hasLaunch) return { sql: withDefault ? '1 = 1' : '0 = 1', params: [] }
    const listed = 'leads.launch IN (SELECT value FROM json_each(?))'
    return { sql: withDefault ? `(${listed} OR leads.launch IS NULL)` : listed, params: [JSON.stringify(launches)] }
  }
  const toStored = (row: LeadRow) => toLead(row, defaultLaunch)
  const counts = db.prepare<[], { status: string; n: number }>(
    'SELECT status, count(*) AS n FROM outbox GROUP BY status',
  )
  // Prepared on first use: a read-only store may open a file that predates withdrawn_at.
  let withdrawnAddress: Database.Statement<[string], { one: number }> | undefined
  let suppressed: Database.Statement<[string], { one: number }> | undefined
  const messageColumns =
    'id, lead_id, kind, status, attempts, last_error, created_at, next_attempt_at, sent_at, failed_at'

  const countErasable = (selector: LeadSelector) => {
    const [where, param] = whereOf(selector)
    return db
      .prepare<[string, string], { leads: number; messages: number }>(
        `SELECT count(*) AS leads, (SELECT count(*) FROM outbox WHERE lead_id IN (SELECT id FROM leads WHERE ${where})) AS messages
         FROM leads WHERE ${where}`,
      )
      .get(param, param)!
  }

  const erase = db.transaction((ids: number[], keys: string[], now: string) => {
    const list = JSON.stringify(ids)
    let suppressed = 0
    const suppress = db.prepare(
      'INSERT INTO suppressions (address_key, created_at) VALUES (?, ?) ON CONFLICT DO NOTHING',
    )
    for (const key of keys) suppressed += suppress.run(key, now).changes
    const mail = db
      .prepare<[string], { message_id: string | null }>(
        `DELETE FROM outbox WHERE lead_id IN (SELECT value FROM json_each(?)) RETURNING json_extract(mail, '$.messageId') AS message_id`,
      )
      .all(list)
    const leads = db.prepare('DELETE FROM leads WHERE id IN (SELECT value FROM json_each(?))').run(list).changes
    return {
      leads,
      messages: mail.length,
      suppressed,
      messageIds: mail.flatMap((m) => (m.message_id ? [m.message_id] : [])),
    }
  })

  /** Folds the WAL into the database and empties it, so erased rows are not left in old WAL frames. */
  async function truncateWal(): Promise<void> {
    // A reader (the running server) can hold the checkpoint back for a moment; try for up to 5 s.
    for (let attempt = 0; attempt < 50; attempt++) {
      const [result] = db.pragma('wal_checkpoint(TRUNCATE)') as Array<{ busy: number }>
      if (result?.busy === 0) return
      await new Promise((r) => setTimeout(r, 100))
    }
    throw new Error('The database is busy: its journal could not be emptied after the erasure. Run the erasure again.')
  }

  // Search statements differ only by search text and direction: prepare each shape once.
  const prepared = new Map<string, Database.Statement<unknown[], unknown>>()
  function query<T>(sql: string): Database.Statement<unknown[], T> {
    let statement = prepared.get(sql)
    if (!statement) {
      statement = db.prepare<unknown[], unknown>(sql)
      prepared.set(sql, statement)
    }
    return statement as Database.Statement<unknown[], T>
  }

  function searchLeads(search: LeadSearch): LeadSearchPage {
    const typed = searchCondition(search)
    // A phone typed in another format than the lead's is found by its E.164 reading (the leads page passes it).
    const text =
      hasFollowUps && search.phone
        ? { sql: `(${typed.sql} OR leads.phone_e164 = ?)`, params: [...typed.params, search.phone] }
        : typed
    const launch = launchCondition(search.launch)
    const launches = launchesCondition(search.launches)
    const follow = hasFollowUps ? followUpCondition(search) : { sql: '1 = 1', params: [] }
    const match = {
      sql: `${text.sql} AND ${launch.sql} AND ${launches.sql} AND ${follow.sql}`,
      params: [...text.params, ...launch.params, ...launches.params, ...follow.params],
    }
    const from = search.from
    const newer = from !== undefined && 'newer' in from
    const position = from === undefined ? undefined : 'newer' in from ? from.newer : from.older
    const keyset = position ? ` AND (leads.created_at, leads.id) ${newer ? '>' : '<'} (?, ?)` : ''
    const order = newer ? 'ASC' : 'DESC'
    const rows = query<ListedRow>(
      `SELECT leads.*, o.status AS mail_status, o.attempts AS mail_attempts${hasFollowUps ? ', fu.status AS fu_status, fu.assignee AS fu_assignee' : ''}
       FROM leads LEFT JOIN outbox AS o ON o.id = (SELECT min(id) FROM outbox WHERE outbox.lead_id = leads.id)${hasFollowUps ? ' LEFT JOIN lead_follow_ups AS fu ON fu.lead_id = leads.id' : ''}
       WHERE ${match.sql}${keyset}
       ORDER BY leads.created_at ${order}, leads.id ${order} LIMIT ?`,
    ).all(...match.params, ...(position ? [position.createdAt, position.id] : []), search.limit)
    if (newer) rows.reverse()
    const total =
      query<{ n: number }>(`SELECT count(*) AS n FROM leads WHERE ${match.sql}`).get(...match.params)?.n ?? 0
    const beyond = (row: ListedRow | undefined, side: '<' | '>') =>
      row !== undefined &&
      query<{ found: number }>(
        `SELECT EXISTS (SELECT 1 FROM leads WHERE ${match.sql} AND (created_at, id) ${side} (?, ?)) AS found`,
      ).get(...match.params, row.created_at, row.id)?.found === 1
    return {
      leads: rows.map((row) => ({
        ...toStored(row),
        notification: notificationStateOf(row.mail_status, row.mail_attempts),
        ...withdrawalOf(row.withdrawn_at),
        followUp: { status: row.fu_status ?? null, assignee: row.fu_assignee ?? '' },
      })),
      total,
      hasNewer: rows.length === 0 ? total > 0 && position !== undefined : beyond(rows[0], '>'),
      hasOlder: beyond(rows.at(-1), '<'),
    }
  }

  function writable() {
    if (!statements) throw new Error('This lead store was opened read-only.')
    return statements
  }

  const save = db.transaction(
    (lead: NewLead, mail: QueuedMail | null, more: NewMessage[] = [], assignment?: NewAssignment): SaveLeadResult => {
      const s = writable()
      const inserted = s.insertLead.get(...leadColumnValues(lead))
      if (!inserted) {
        const existing = bySubmission.get(lead.submissionId)
        if (!existing) throw new Error(`Lead ${lead.submissionId} conflicted but cannot be read back.`)
        return { created: false, lead: toStored(existing) }
      }
      if (mail) s.insertMail.run(inserted.id, mail.to, JSON.stringify(mail), lead.createdAt, lead.createdAt)
      for (const message of more) {
        const [recipient, content] =
          message.kind === 'webhook' ? ['webhook', message.webhook] : [message.mail.to, message.mail]
        s.insertMessage.run(
          inserted.id,
          message.kind,
          recipient,
          JSON.stringify(content),
          lead.createdAt,
          lead.createdAt,
        )
      }
      if (assignment) assignNewLead(s, assignment, inserted.id, lead.createdAt)
      const stored = byId.get(inserted.id)
      if (!stored) throw new Error(`Lead ${inserted.id} cannot be read back.`)
      return { created: true, lead: toStored(stored) }
    },
  )

  // Group commit: the saves that arrive in one turn of the event loop share one transaction and one fsync. Each
  // save runs in its own savepoint (a nested better-sqlite3 transaction), so one failing save fails alone; and
  // each caller hears back only once the shared commit is on disk.
  type PendingSave = {
    lead: NewLead
    mail: QueuedMail | null
    more: NewMessage[] | undefined
    assignment?: NewAssignment | undefined
    resolve(result: SaveLeadResult): void
    reject(error: unknown): void
  }
  let queue: PendingSave[] = []
  const saveBatch = db.transaction((items: PendingSave[]) =>
    items.map((item): { result: SaveLeadResult } | { error: unknown } => {
      try {
        return { result: save(item.lead, item.mail, item.more, item.assignment) }
      } catch (error) {
        return { error }
      }
    }),
  )
  // While another process (the delivery process) holds the write lock, SQLite's own wait would block this thread;
  // the batch is tried again a millisecond later instead, and the saves that arrive meanwhile join it.
  let busySince: number | undefined
  function flush(): void {
    const items = queue
    queue = []
    let outcomes
    try {
      db.pragma('busy_timeout = 0')
      outcomes = saveBatch.immediate(items)
    } catch (error) {
      if (
        (error as { code?: string }).code?.startsWith('SQLITE_BUSY') &&
        Date.now() - (busySince ??= Date.now()) < 5000
      ) {
        queue = [...items, ...queue]
        setTimeout(flush, 1)
        return
      }
      busySince = undefined
      for (const item of items) item.reject(error)
      return
    } finally {
      db.pragma('busy_timeout = 5000')
    }
    busySince = undefined
    items.forEach((item, i) => {
      const outcome = outcomes[i]!
      if ('error' in outcome) item.reject(outcome.error)
      else item.resolve(outcome.result)
    })
  }

  const writer = options.writerThread && !options.readonly ? openSqliteWriter(file) : undefined

  const markSent = db.transaction((ids: number[], now: string) => {
    for (const id of ids) writable().sent.run(now, id)
  })

  return {
    ...createSqliteSignInCounts(db),
    ...createSqliteFollowUps(db, defaultLaunch),
    ...createSqlitePulse(db, defaultLaunch),
    ...createSqliteAnnouncements(db, defaultLaunch, options.readonly ?? false),
    ...createSqliteDailyRuns(db),
    ...createSqliteDocuments(db, options.readonly ?? false),
    // better-sqlite3 is synchronous; the commit (with its fsync) has happened when these promises resolve.
    // IMMEDIATE takes the write lock up front, so a read-then-insert cannot interleave with another writer.
    saveLead(lead, mail, more, assignment) {
      if (!statements) return Promise.reject(new Error('This lead store was opened read-only.'))
      if (writer)
        return writer.save(lead, mail, more, assignment).then(({ created, row }) => ({ created, lead: toStored(row) }))
      return new Promise((resolve, reject) => {
        queue.push({ lead, mail, more, assignment, resolve, reject })
        if (queue.length === 1) setImmediate(flush)
      })
    },
    async claimDueMail(now, limit, leaseMs) {
      const at = now.toISOString()
      const rows = writable().claim.all(new Date(now.getTime() + leaseMs).toISOString(), at, at, limit)
      return rows.sort((a, b) => a.id - b.id).map(toJob)
    },
    async markMailSent(ids, now) {
      if (ids.length > 0) markSent.immediate(ids, now.toISOString())
    },
    async markMailFailed(id, error, nextAttemptAt) {
      writable().failed.run(error, nextAttemptAt.toISOString(), id)
    },
    async markMessageFailed(id, error, now) {
      writable().gaveUp.run(error, now.toISOString(), id)
    },
    async markMessageCancelled(id, now) {
      writable().cancelled.run(now.toISOString(), id)
    },
    async retryFailedMessages(now) {
      return writable().retryFailed.run(now.toISOString()).changes
    },
    async listMessages(query) {
      const where: string[] = ['id > ?']
      const params: unknown[] = [query.afterId ?? 0]
      if (query.leadId !== undefined) {
        where.push('lead_id = ?')
        params.push(query.leadId)
      }
      if (query.status !== undefined) {
        where.push('status = ?')
        params.push(query.status)
      }
      const rows = db
        .prepare<unknown[], MessageRow>(
          `SELECT ${messageColumns} FROM outbox WHERE ${where.join(' AND ')} ORDER BY id LIMIT ?`,
        )
        .all(...params, query.limit)
      return rows.map(toMessageState)
    },
    async countMessages(): Promise<MessageCounts> {
      const out: MessageCounts = { pending: 0, sent: 0, failed: 0, cancelled: 0 }
      for (const row of counts.all()) if (row.status in out) out[row.status as MessageStatus] = row.n
      return out
    },
    async withdrawLead(submissionId, now) {
      const at = now.toISOString()
      const row = writable().withdraw.get({ now: at, submissionId: submissionId.toLowerCase() })
      return row ? { leadId: row.id, withdrawnAt: row.withdrawn_at, already: row.withdrawn_at !== at } : undefined
    },
    async isAddressWithdrawn(email) {
      withdrawnAddress ??= db.prepare<[string], { one: number }>(
        `SELECT 1 AS one FROM leads WHERE withdrawn_at IS NOT NULL AND ${emailKey('fields')} = ? LIMIT 1`,
      )
      return withdrawnAddress.get(email.trim().toLowerCase()) !== undefined
    },
    async findLead(submissionId) {
      const row = bySubmission.get(submissionId.toLowerCase())
      return row ? toStored(row) : undefined
    },
    async leadsById(ids) {
      return ids.length === 0
        ? []
        : query<LeadRow>('SELECT * FROM leads WHERE id IN (SELECT value FROM json_each(?))')
            .all(JSON.stringify(ids))
            .map(toStored)
    },
    async listLeads(afterId, limit, launch) {
      const only = launchCondition(launch)
      return query<LeadRow>(`SELECT * FROM leads WHERE id > ? AND ${only.sql} ORDER BY id LIMIT ?`)
        .all(afterId, ...only.params, limit)
        .map(toStored)
    },
    async countLeadsByLaunch() {
      const rows = query<{ launch: string | null; leads: number }>(
        hasLaunch
          ? 'SELECT launch, count(*) AS leads FROM leads GROUP BY launch'
          : 'SELECT NULL AS launch, count(*) AS leads FROM leads',
      ).all()
      return countsByLaunch(
        rows.filter((row) => row.leads > 0),
        defaultLaunch,
      )
    },
    async searchLeads(search) {
      return searchLeads(search)
    },
    async countMail(): Promise<OutboxCounts> {
      const out: OutboxCounts = { pending: 0, sent: 0 }
      for (const row of counts.all()) {
        if (row.status === 'pending' || row.status === 'sent') out[row.status] = row.n
      }
      return out
    },
    async countErasable(selector) {
      return countErasable(selector)
    },
    async eraseLeads(selector, keyOf): Promise<ErasureResult> {
      writable()
      const [where, param] = whereOf(selector)
      const found = db
        .prepare<[string], { id: number; email: unknown; withdrawn_at: string | null }>(
          `SELECT id, json_extract(fields, '$.email') AS email, withdrawn_at FROM leads WHERE ${where}`,
        )
        .all(param)
      if (found.length === 0) return { leads: 0, messages: 0, suppressed: 0, messageIds: [] }
      const keys: string[] = []
      for (const lead of found)
        if (lead.withdrawn_at !== null && typeof lead.email === 'string') keys.push(await keyOf(lead.email))
      const result = erase.immediate(
        found.map((l) => l.id),
        keys,
        new Date().toISOString(),
      )
      await truncateWal()
      return result
    },
    async suppressAddress(key: AddressKey) {
      writable()
      db.prepare('INSERT INTO suppressions (address_key, created_at) VALUES (?, ?) ON CONFLICT DO NOTHING').run(
        key,
        new Date().toISOString(),
      )
    },
    async isSuppressed(key: AddressKey) {
      suppressed ??= db.prepare<[string], { one: number }>('SELECT 1 AS one FROM suppressions WHERE address_key = ?')
      return suppressed.get(key) !== undefined
    },
    async releaseAllClaims() {
      writable().release.run()
    },
    async close() {
      await writer?.close()
      if (db.open) db.close()
    },
  }
}
