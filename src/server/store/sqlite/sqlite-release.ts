// The SQLite store's release (release.ts), on the lead store's connection (sqlite-store.ts: its `release`), or on a
// connection of its own for the CLIs (openSqliteRelease). Every write goes through the connection's group commit
// (sqlite-group-commit.ts): the writes handed over together share one transaction and one fsync, each in its own
// savepoint, and SQLite has one writer at a time, so an allocation's check and change cannot interleave with
// another's, from this process or any other on the file.
import Database from 'better-sqlite3'
import {
  compareLots,
  firstRealtorStatement,
  realtorOfAddressStatement,
  lotOf,
  namedAgentCondition,
  sameLot,
  worksheetOf,
  worksheetRecipient,
  type LotRow,
  type WorksheetRow,
  type AllocationResult,
  type ImportCounts,
  type LotInput,
  type LotModels,
  type RealtorClient,
  type ReleaseStore,
  type StoredWorksheet,
  type WorksheetMessage,
} from '../release.ts'
import { storedWorksheetOf } from '../worksheet-marks.ts'
import { createSqliteGroupCommit, type SqliteGroupCommit } from './sqlite-group-commit.ts'
import type { SqliteWriter } from './sqlite-writer.ts'
import { worksheetStatements, worksheetValues } from './sqlite-worksheet-rows.ts'
import { applyReleaseSchema } from './sqlite-release-schema.ts'

/** A synchronous SQLite call as the contract's promise: its value, or its error as a rejection. */
function settle<T>(call: () => T): Promise<T> {
  try {
    return Promise.resolve(call())
  } catch (error) {
    return Promise.reject(error instanceof Error ? error : new Error(String(error)))
  }
}

type Queue = (worksheet: StoredWorksheet, messages: WorksheetMessage[], at: string) => void

/**
 * A ReleaseStore on a connection of its own to the SQLite file `file` (the lead store's: it must have been opened, and
 * so created, first), for the CLIs; the server's is its lead store's `release`, on the lead store's connection.
 * `readonly` (leads:access, while a server may run): no schema change, and no worksheet to read in a file without them.
 */
export function openSqliteRelease(
  file: string,
  options: { readonly?: boolean } = {},
): ReleaseStore & { close(): void } {
  if (options.readonly) {
    const probe = new Database(file, { readonly: true, fileMustExist: true })
    const has = hasReleaseTables(probe)
    probe.close()
    if (!has) return emptyRelease()
  }
  const db = new Database(file, { fileMustExist: true, readonly: options.readonly ?? false })
  db.pragma('busy_timeout = 5000')
  if (!options.readonly) {
    db.pragma('synchronous = FULL')
    db.pragma('foreign_keys = ON')
    db.pragma('secure_delete = ON')
    applyReleaseSchema(db)
  }
  return { ...createSqliteRelease(db, createSqliteGroupCommit(db)), close: () => db.close() }
}

/** Whether the file has the release's tables (a read-only connection may open a file from before them). */
export function hasReleaseTables(db: Database.Database): boolean {
  return db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'worksheets'").get() !== undefined
}

/**
 * The ReleaseStore on an open connection whose release tables exist (applyReleaseSchema), writing through `commits`,
 * the connection's group commit; its worksheets on `writer`, the lead store's writer thread, when there is one.
 */
export function createSqliteRelease(
  db: Database.Database,
  commits: SqliteGroupCommit,
  writer?: SqliteWriter,
): ReleaseStore {
  const queue = queueMessages(db)
  const importLots = importLotsIn(db)
  const save = saveWorksheetIn(db, queue)
  const allocate = allocateIn(db, queue)
  const decide = decideIn(db, queue)
  const lotsOf = db.prepare<[string], LotRow>('SELECT * FROM lots WHERE launch = ?')
  const worksheetsOf = db.prepare<[string], WorksheetRow>('SELECT * FROM worksheets WHERE launch = ? ORDER BY number')
  const ofClient = db.prepare<[string], WorksheetRow>(
    'SELECT * FROM worksheets WHERE lower(trim(client_email)) = ? ORDER BY launch, number',
  )
  const eraseClient = db.prepare<[string]>('DELETE FROM worksheets WHERE lower(trim(client_email)) = ?')
  const changeLot = db.prepare(
    `UPDATE lots SET price = coalesce(?, price), status = coalesce(?, status), updated_at = ?
     WHERE launch = ? AND lot = ? AND status <> 'allocated' AND coalesce(?, status) <> 'allocated'`,
  )
  const clientsOf = db.prepare<[number], RealtorClient>(clientsStatement)
  const firstRealtor = db.prepare<[number], { id: number }>(firstRealtorStatement(sqliteField, 'leads', '?'))
  const realtorOf = db.prepare<[string, string, string], { id: number; submission_id: string; email: string }>(
    realtorOfAddressStatement(sqliteField, 'leads', ['?', '?', '?'], 'r.suspected_spam = 0'),
  )
  const key = (email: string) => email.trim().toLowerCase()
  return {
    importLots: (launch, lots, at) => commits.run(() => importLots(launch, lots, at)),
    listLots: (launch) =>
      settle(() =>
        lotsOf
          .all(launch)
          .map(lotOf)
          .sort((a, b) => compareLots(a.lot, b.lot)),
      ),
    listLotModels: (launch) => settle(() => lotModelsOf(lotsOf.all(launch))),
    updateLot: (launch, lot, change, at) =>
      commits.run(
        () =>
          changeLot.run(change.price ?? null, change.status ?? null, at, launch, lot, change.status ?? null).changes ===
          1,
      ),
    saveWorksheet: (worksheet, compose) =>
      writer
        ? // Composed over the marks (worksheet-marks.ts): the writer thread numbers it and writes them over.
          Promise.resolve()
            .then(() => writer.saveWorksheet(worksheet, compose(storedWorksheetOf(worksheet))))
            .then(worksheetOf)
        : commits.run(() => save(worksheet, compose)),
    listWorksheets: (launch, realtorLeadId) =>
      settle(() => {
        const rows = worksheetsOf.all(launch).map(worksheetOf)
        return realtorLeadId === undefined ? rows : rows.filter((w) => w.realtorLeadId === realtorLeadId)
      }),
    allocate: (allocation, by, at, messages) => commits.run(() => allocate(allocation, by, at, messages)),
    decide: (id, outcome, reason, by, at, messages) => commits.run(() => decide(id, outcome, reason, by, at, messages)),
    clientsOf: (realtorLeadId) => settle(() => clientsOf.all(realtorLeadId)),
    firstRealtorLead: (leadId) => settle(() => firstRealtor.get(leadId)?.id ?? leadId),
    realtorOfAddress: (launch, defaultLaunch, email) =>
      settle(() => {
        const row = realtorOf.get(launch, defaultLaunch, key(email))
        return row && { id: row.id, submissionId: row.submission_id, email: row.email }
      }),
    worksheetsOfClient: (email) => settle(() => ofClient.all(key(email)).map(worksheetOf)),
    eraseWorksheetsOfClient: (email) => commits.run(() => eraseClient.run(key(email)).changes),
  }
}

const sqliteField = (alias: string, name: string) => `json_extract(${alias}.fields, '$.${name}')`
const clientsStatement = `SELECT coalesce(${sqliteField('c', 'name')}, '') AS name, coalesce(${sqliteField('c', 'email')}, '') AS email,
  coalesce(${sqliteField('c', 'phone')}, '') AS phone
  FROM leads AS r JOIN leads AS c ON ${namedAgentCondition(sqliteField, 'leads')}
  WHERE r.id = ? ORDER BY c.created_at, c.id LIMIT 500`

/** The lots as the page's counts and the worksheet form read them: id, models and status, by lot id. */
function lotModelsOf(rows: LotRow[]): LotModels[] {
  return rows
    .map(lotOf)
    .map(({ lot, models, status }) => ({ lot, models, status }))
    .sort((a, b) => compareLots(a.lot, b.lot))
}

/** What a file without the release's tables reads as: nothing; a write there is refused. */
export function emptyRelease(): ReleaseStore & { close(): void } {
  const none = () => Promise.resolve([])
  const refused = () => Promise.reject(new Error('This store was opened read-only.'))
  return {
    importLots: refused,
    listLots: none,
    listLotModels: none,
    updateLot: refused,
    saveWorksheet: refused,
    listWorksheets: none,
    clientsOf: none,
    firstRealtorLead: (leadId) => Promise.resolve(leadId),
    realtorOfAddress: () => Promise.resolve(undefined),
    allocate: refused,
    decide: refused,
    worksheetsOfClient: none,
    eraseWorksheetsOfClient: refused,
    close: () => {},
  }
}

/** The import's transaction: new lots added, the others updated unless allocated. */
function importLotsIn(db: Database.Database) {
  const existing = db.prepare<[string], LotRow>('SELECT * FROM lots WHERE launch = ?')
  const insert = db.prepare(
    'INSERT INTO lots (launch, lot, release, models, frontage, price, status, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
  )
  const update = db.prepare(
    `UPDATE lots SET release = ?, models = ?, frontage = ?, price = ?, status = ?, updated_at = ?
     WHERE launch = ? AND lot = ? AND status <> 'allocated'`,
  )
  return (launch: string, lots: readonly LotInput[], at: string): ImportCounts => {
    const counts: ImportCounts = { created: 0, changed: 0, unchanged: 0, keptAllocated: [] }
    const before = new Map(existing.all(launch).map((row) => [row.lot, lotOf(row)]))
    for (const lot of lots) {
      const old = before.get(lot.lot)
      const models = JSON.stringify(lot.models)
      if (!old) {
        insert.run(launch, lot.lot, lot.release, models, lot.frontage, lot.price, lot.status, at)
        counts.created++
      } else if (sameLot(old, lot)) counts.unchanged++
      else if (old.status === 'allocated') counts.keptAllocated.push(lot.lot)
      else {
        update.run(lot.release, models, lot.frontage, lot.price, lot.status, at, launch, lot.lot)
        counts.changed++
      }
    }
    return counts
  }
}

/** The worksheet's transaction (a savepoint of the group's): the launch's next number, the row, its messages. */
function saveWorksheetIn(db: Database.Database, queue: Queue) {
  const next = db.prepare<[string], { next: number }>(worksheetStatements.next)
  const insert = db.prepare<unknown[], WorksheetRow>(worksheetStatements.insert)
  return (...[worksheet, compose]: Parameters<ReleaseStore['saveWorksheet']>): StoredWorksheet => {
    const [launch, ...rest] = worksheetValues(worksheet)
    const row = insert.get(launch, next.get(launch)!.next, ...rest)!
    const stored = worksheetOf(row)
    queue(stored, compose(stored), worksheet.receivedAt)
    return stored
  }
}

/**
 * The allocation's transaction (a savepoint of the group's, which holds the write lock from its start): the worksheet
 * still open, the lot still available, both changed together.
 */
function allocateIn(db: Database.Database, queue: Queue) {
  const worksheetById = db.prepare<[number], WorksheetRow>('SELECT * FROM worksheets WHERE id = ?')
  const lotById = db.prepare<[string, string], LotRow>('SELECT * FROM lots WHERE launch = ? AND lot = ?')
  const numberOf = db.prepare<[number], { number: number }>('SELECT number FROM worksheets WHERE id = ?')
  const takeLot = db.prepare(`UPDATE lots SET status = 'allocated', worksheet_id = ?, updated_at = ? WHERE id = ?`)
  const decideWorksheet = db.prepare(
    `UPDATE worksheets SET outcome = 'allocated', allocated_lot = ?, allocated_model = ?, reason = NULL, decided_at = ?,
       decided_by = ? WHERE id = ?`,
  )
  return (...[allocation, by, at, messages]: Parameters<ReleaseStore['allocate']>): AllocationResult => {
    const worksheet = worksheetById.get(allocation.worksheetId)
    if (!worksheet || worksheet.outcome === 'allocated' || worksheet.outcome === 'declined')
      return { ok: false, reason: 'worksheet-decided' }
    const lot = lotById.get(worksheet.launch, allocation.lot)
    if (!lot) return { ok: false, reason: 'lot-unknown' }
    if (lot.status !== 'available') {
      const takenBy = lot.worksheet_id === null ? null : (numberOf.get(Number(lot.worksheet_id))?.number ?? null)
      return { ok: false, reason: 'lot-taken', takenBy }
    }
    takeLot.run(worksheet.id, at, lot.id)
    decideWorksheet.run(allocation.lot, allocation.model, at, by, worksheet.id)
    queue(worksheetOf(worksheet), messages, at)
    return { ok: true }
  }
}

/** The waitlist's or decline's transaction: only a worksheet not allocated nor declined. */
function decideIn(db: Database.Database, queue: Queue) {
  const update = db.prepare<unknown[], WorksheetRow>(
    `UPDATE worksheets SET outcome = ?, reason = ?, decided_at = ?, decided_by = ?
     WHERE id = ? AND outcome IN ('received', 'waitlisted') RETURNING *`,
  )
  return (...[id, outcome, reason, by, at, messages]: Parameters<ReleaseStore['decide']>): boolean => {
    const row = update.get(outcome, reason, at, by, id)
    if (!row) return false
    queue(worksheetOf(row), messages, at)
    return true
  }
}

/** Queues a worksheet's messages on its realtor's lead (the caller's transaction). */
function queueMessages(db: Database.Database): Queue {
  const insert = db.prepare(worksheetStatements.queue)
  return (worksheet, messages, at) => {
    for (const message of messages) {
      const content = JSON.stringify(message.kind === 'webhook' ? message.webhook : message.mail)
      insert.run(
        worksheet.realtorLeadId,
        message.kind,
        worksheetRecipient(worksheet.id, message.event),
        content,
        at,
        at,
      )
    }
  }
}
