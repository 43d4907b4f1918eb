// What each concern of the SQLite store is handed (sqlite-store.ts assembles them): the open connection, the default
// launch, whether it is read-only, a cache of prepared statements, what the file's schema has, and the connection's one
// group commit, which every concern's writes go through.
import type Database from 'better-sqlite3'
import type { StoredLead } from '../leads/leads.ts'
import { createSqliteGroupCommit, type SqliteGroupCommit } from './sqlite-group-commit.ts'
import { columnsOf } from './sqlite-schema.ts'
import { toLead, type LeadRow } from './sqlite-rows.ts'

/** The SQLite store's shared dependencies, as each concern's module takes them. */
export type SqliteContext = {
  db: Database.Database
  /** What a lead stored before launches were kept (launch null) is read as. */
  defaultLaunch: string
  readonly: boolean
  /** The statement of `sql`, prepared on first use and kept (statements differ only by a search's shape). */
  query: <T>(sql: string) => Database.Statement<unknown[], T>
  /** Throws unless the store may write: a read-only store (the export CLI) never does. */
  writable: () => void
  /** The leads table has a launch column: a read-only store may open a file an older server still runs on. */
  hasLaunch: boolean
  /** Schema version 8 (follow-up, phones in E.164); a read-only store may open a file from before it. */
  hasFollowUps: boolean
  /** A leads row as the contract's StoredLead. */
  toStored: (row: LeadRow) => StoredLead
  /** The connection's group commit: writes handed over together share one transaction and one fsync. */
  commits: SqliteGroupCommit
}

/** The context of a connection whose schema is made and upgraded (or, read-only, as it is). */
export function createSqliteContext(db: Database.Database, defaultLaunch: string, readonly: boolean): SqliteContext {
  const prepared = new Map<string, Database.Statement<unknown[], unknown>>()
  const leadColumns = columnsOf(db, 'leads')
  return {
    db,
    defaultLaunch,
    readonly,
    query: <T>(sql: string) => {
      let statement = prepared.get(sql)
      if (!statement) {
        statement = db.prepare<unknown[], unknown>(sql)
        prepared.set(sql, statement)
      }
      return statement as Database.Statement<unknown[], T>
    },
    writable: () => {
      if (readonly) throw new Error('This lead store was opened read-only.')
    },
    hasLaunch: leadColumns.includes('launch'),
    hasFollowUps: leadColumns.includes('phone_e164'),
    toStored: (row) => toLead(row, defaultLaunch),
    commits: createSqliteGroupCommit(db),
  }
}
