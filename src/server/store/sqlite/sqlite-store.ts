import { chmodSync, existsSync } from 'node:fs'
import Database from 'better-sqlite3'
import { ensurePrivateFile, privateFileMode } from '../private-files.ts'
import type { LaunchOptions } from '../leads/leads.ts'
import type { ReleaseStore } from '../release.ts'
import type { LeadStore } from '../store.ts'
import { schemaV1, upgrades } from './sqlite-schema.ts'
import { leadsListIndex, outboxBacklogIndex } from './sqlite-rows.ts'
import { createSqliteContext } from './sqlite-context.ts'
import { openSqliteWriter } from './sqlite-writer.ts'
import { createSqliteSaveLead } from '../leads/sqlite-save-lead.ts'
import { createSqliteLeads } from '../leads/sqlite-leads.ts'
import { createSqliteLeadSearch } from '../leads/sqlite-lead-search.ts'
import { createSqliteOutbox } from '../outbox/sqlite-outbox.ts'
import { createSqliteOutboxCounts } from '../outbox/sqlite-outbox-counts.ts'
import { createSqliteErasure } from '../erasure/sqlite-erasure.ts'
import { createSqliteSuppression } from '../erasure/sqlite-suppression.ts'
import { createSqliteSignInCounts } from '../sign-in-counts/sqlite-sign-in-counts.ts'
import { createSqliteFollowUps } from '../follow-up/sqlite-follow-up.ts'
import { createSqliteSamePerson } from '../follow-up/sqlite-same-person.ts'
import { createSqlitePulse } from '../pulse/sqlite-pulse.ts'
import { createSqliteVisits } from '../pulse/sqlite-visits.ts'
import { createSqliteAnnouncements } from '../announcements/sqlite-announcements.ts'
import { createSqliteDailyRuns } from '../daily-runs/sqlite-daily-runs.ts'
import { createSqliteAccountMail } from '../account-mail/sqlite-account-mail.ts'
import { createSqliteDocuments } from '../documents/sqlite-documents.ts'
import { applyReleaseSchema } from './sqlite-release-schema.ts'
import { createSqliteRelease, emptyRelease, hasReleaseTables } from './sqlite-release.ts'

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
  /**
   * The release (inventory, worksheets) on this store's connection, its writes in the same group commit as the
   * registrations' (or on the same writer thread); closed with the store.
   */
  release: ReleaseStore
}

/** Opens the file with the store's settings and, unless read-only, makes or upgrades its schema. */
function openSqliteDatabase(file: string, readonly: boolean): Database.Database {
  // Created owner-only before SQLite opens it: SQLite gives its -wal and -shm files the database file's mode.
  if (!readonly) ensurePrivateFile(file)
  const db = new Database(file, { readonly, fileMustExist: readonly })
  db.pragma('busy_timeout = 5000')
  if (readonly) return db
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
  db.exec(outboxBacklogIndex)
  applyReleaseSchema(db)
  return db
}

/**
 * Opens (and creates) the lead database at `file`, assembled from one module per concern (store.ts). The caller must
 * hold the DATA_DIR lock (data-dir-lock.ts): SQLite itself is safe with two writers, but two outbox workers would
 * double-send.
 */
export function openSqliteStore(file: string, options: SqliteStoreOptions): SqliteLeadStore {
  const readonly = options.readonly ?? false
  const db = openSqliteDatabase(file, readonly)
  const ctx = createSqliteContext(db, options.defaultLaunch, readonly)
  const writer = options.writerThread && !readonly ? openSqliteWriter(file) : undefined
  // A read-only store may open a file from before the release's tables.
  const release = readonly && !hasReleaseTables(db) ? emptyRelease() : createSqliteRelease(db, ctx.commits, writer)
  return {
    ...createSqliteSaveLead(ctx, writer),
    ...createSqliteLeads(ctx),
    ...createSqliteLeadSearch(ctx),
    ...createSqliteOutbox(ctx),
    ...createSqliteOutboxCounts(ctx),
    ...createSqliteErasure(ctx),
    ...createSqliteSuppression(ctx),
    ...createSqliteSignInCounts(db),
    ...createSqliteFollowUps(ctx),
    ...createSqliteSamePerson(ctx),
    ...createSqlitePulse(ctx),
    ...createSqliteVisits(ctx),
    ...createSqliteAnnouncements(db, options.defaultLaunch, readonly),
    ...createSqliteDailyRuns(db),
    ...createSqliteAccountMail(db, readonly),
    ...createSqliteDocuments(db, readonly),
    release,
    async close() {
      await writer?.close()
      if (db.open) db.close()
    },
  }
}
