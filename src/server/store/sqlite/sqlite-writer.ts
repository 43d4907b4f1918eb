import { createRequire } from 'node:module'
import { Worker } from 'node:worker_threads'
import { leadColumnValues, type NewLead, type NewMessage, type QueuedMail } from '../store.ts'
import { leadIdMark, type NewAssignment } from '../follow-up.ts'
import type { NewWorksheet, WorksheetMessage, WorksheetRow } from '../release.ts'
import { worksheetRecipient } from '../release.ts'
import { worksheetMarks } from '../worksheet-marks.ts'
import { saveStatements, type LeadRow } from './sqlite-rows.ts'
import { worksheetStatements, worksheetValues } from './sqlite-worksheet-rows.ts'

/**
 * The SQLite store's registrations and worksheets written on a worker thread: the request thread hands each save over
 * and awaits the answer, so it keeps reading requests while the worker's transaction waits for its fsync. Group
 * commit: the saves handed over while the worker commits go together as its next transaction (one fsync), each save
 * in its own savepoint so one failing save fails alone, and each caller hears back only once that commit is on disk.
 * A worksheet takes its launch's next number there; its messages come composed over the marks of worksheet-marks.ts,
 * and the worker writes the worksheet's id and number over them.
 *
 * The worker is plain JavaScript run from source (eval): it needs no TypeScript loader, under tsx, Vitest or node.
 * The rows are built here (leadColumnValues, the messages' JSON); the worker only runs the SQL.
 */

/**
 * What a save of the worker comes back with: a new lead's id and first-registered time (what the database added to
 * what was sent), or the row stored before under the same submission id.
 */
export type WrittenLead =
  { created: true; id: number; firstRegisteredAt: string | null } | { created: false; row: LeadRow }

/** A connection on a worker thread that saves leads with their messages. */
export type SqliteWriter = {
  save(lead: NewLead, mail: QueuedMail | null, more?: NewMessage[], assignment?: NewAssignment): Promise<WrittenLead>
  /** Numbers and stores a worksheet with its messages (composed over the marks); its row as stored. */
  saveWorksheet(worksheet: NewWorksheet, messages: WorksheetMessage[]): Promise<WorksheetRow>
  /** Waits for the saves handed over, then ends the worker. */
  close(): Promise<void>
}

/**
 * A new lead's assignment as the worker runs it (sqlite-rows.ts: assignNewLead does the same on the store's
 * connection).
 */
type WorkerAssignment = {
  turns: string | null
  author: string
  mark: string
  candidates: Array<[assignee: string, recipient: string, content: string]>
}
type Item = {
  values: Array<string | number | null>
  submissionId: string
  at: string
  messages: Array<[kind: string | null, recipient: string, content: string]>
  assignment: WorkerAssignment | null
}
/** A worksheet as the worker takes it: worksheetValues, and its messages with the marks in recipient and content. */
type WorksheetItem = {
  worksheet: true
  values: Array<string | number>
  at: string
  messages: Array<[kind: string, recipient: string, content: string]>
}
type Outcome = WrittenLead | { worksheet: WorksheetRow } | { error: { message: string; code?: string } }
type Pending = {
  item: Item | WorksheetItem
  resolve(result: WrittenLead | { worksheet: WorksheetRow }): void
  reject(error: unknown): void
}

const workerSource = `
const { parentPort, workerData } = require('node:worker_threads')
const Database = require(workerData.driver)
const db = new Database(workerData.file)
// The same settings as the store's own connection: WAL, every commit fsynced before it returns. While another
// connection (the delivery process) holds the write lock, this thread may wait in SQLite: no request waits on it.
db.pragma('busy_timeout = 5000')
db.pragma('synchronous = FULL')
db.pragma('foreign_keys = ON')
db.pragma('secure_delete = ON')
const insertLead = db.prepare(workerData.statements.insertLead)
const insertMail = db.prepare(workerData.statements.insertMail)
const insertMessage = db.prepare(workerData.statements.insertMessage)
const takeTurn = db.prepare(workerData.statements.takeTurn)
const assignLead = db.prepare(workerData.statements.assignLead)
const assignmentHistory = db.prepare(workerData.statements.assignmentHistory)
const nextNumber = db.prepare(workerData.worksheet.next)
const insertWorksheet = db.prepare(workerData.worksheet.insert)
const queueWorksheet = db.prepare(workerData.worksheet.queue)
const [idMark, numberMark] = workerData.worksheet.marks
// Set by the leads_first_registered_set trigger, after the insert's RETURNING: read back alone.
const firstRegistered = db.prepare('SELECT first_registered_at FROM leads WHERE id = ?').pluck()
const bySubmission = db.prepare('SELECT * FROM leads WHERE submission_id = ?')
const save = db.transaction((item) => {
  const inserted = insertLead.get(...item.values)
  if (!inserted) {
    const row = bySubmission.get(item.submissionId)
    if (!row) throw new Error('Lead ' + item.submissionId + ' conflicted but cannot be read back.')
    return { created: false, row }
  }
  for (const [kind, recipient, content] of item.messages) {
    if (kind === null) insertMail.run(inserted.id, recipient, content, item.at, item.at)
    else insertMessage.run(inserted.id, kind, recipient, content, item.at, item.at)
  }
  const a = item.assignment
  if (a && a.candidates.length > 0) {
    const turn = a.turns === null ? undefined : takeTurn.get(a.turns).turns
    const [assignee, recipient, content] = a.candidates[turn === undefined ? 0 : (turn - 1) % a.candidates.length]
    assignLead.run(inserted.id, assignee, item.at)
    assignmentHistory.run(inserted.id, item.at, a.author, assignee)
    if (content !== '') insertMessage.run(inserted.id, 'assignment', recipient, content.split(a.mark).join(String(inserted.id)), item.at, item.at)
  }
  return { created: true, id: inserted.id, firstRegisteredAt: firstRegistered.get(inserted.id) ?? null }
})
const saveWorksheet = db.transaction((item) => {
  const [launch, ...rest] = item.values
  const row = insertWorksheet.get(launch, nextNumber.get(launch).next, ...rest)
  const put = (text) => text.split(idMark).join(String(row.id)).split(numberMark).join(String(row.number))
  for (const [kind, recipient, content] of item.messages)
    queueWorksheet.run(row.realtor_lead_id, kind, put(recipient), put(content), item.at, item.at)
  return { worksheet: row }
})
const errorOf = (error) => ({ message: String(error && error.message), code: error && error.code })
const batch = db.transaction((items) =>
  items.map((item) => {
    try {
      return item.worksheet ? saveWorksheet(item) : save(item)
    } catch (error) {
      return { error: errorOf(error) }
    }
  }),
)
parentPort.on('message', (items) => {
  if (items === 'close') {
    db.close()
    parentPort.close()
    return
  }
  try {
    parentPort.postMessage(batch.immediate(items))
  } catch (error) {
    parentPort.postMessage({ error: errorOf(error) })
  }
})
`

function errorFrom(error: { message: string; code?: string }): Error {
  return Object.assign(new Error(error.message), error.code ? { code: error.code } : {})
}

/** A save as the worker runs it: the lead's column values and its messages' JSON, built on this thread. */
function itemOf(lead: NewLead, mail: QueuedMail | null, more: NewMessage[], assignment?: NewAssignment): Item {
  const messages: Item['messages'] = []
  if (mail) messages.push([null, mail.to, JSON.stringify(mail)])
  for (const message of more) {
    messages.push(
      message.kind === 'webhook'
        ? ['webhook', 'webhook', JSON.stringify(message.webhook)]
        : [message.kind, message.mail.to, JSON.stringify(message.mail)],
    )
  }
  const assigned: Item['assignment'] = assignment
    ? {
        turns: assignment.turns,
        author: assignment.author,
        mark: leadIdMark,
        candidates: assignment.candidates.map((c) => [
          c.assignee,
          c.mail?.to ?? '',
          c.mail ? JSON.stringify(c.mail) : '',
        ]),
      }
    : null
  return {
    values: leadColumnValues(lead),
    submissionId: lead.submissionId,
    at: lead.createdAt,
    messages,
    assignment: assigned,
  }
}

/** A worksheet as the worker takes it. */
function worksheetItemOf(worksheet: NewWorksheet, messages: WorksheetMessage[]): WorksheetItem {
  return {
    worksheet: true,
    values: worksheetValues(worksheet),
    at: worksheet.receivedAt,
    messages: messages.map((m) => [
      m.kind,
      worksheetRecipient(worksheetMarks.id, m.event),
      JSON.stringify(m.kind === 'webhook' ? m.webhook : m.mail),
    ]),
  }
}

/** Starts the writer on `file`, a database the store has opened (and so made and upgraded) already. */
export function openSqliteWriter(file: string): SqliteWriter {
  const worker = new Worker(workerSource, {
    eval: true,
    workerData: {
      file,
      statements: saveStatements,
      worksheet: { ...worksheetStatements, marks: [String(worksheetMarks.id), String(worksheetMarks.number)] },
      driver: createRequire(import.meta.url).resolve('better-sqlite3'),
    },
  })
  let queue: Pending[] = []
  let inFlight: Pending[] | undefined
  let failure: Error | undefined
  let closed: Promise<void> | undefined
  const idle: Array<() => void> = []

  function send(): void {
    if (inFlight || queue.length === 0) {
      if (!inFlight) for (const done of idle.splice(0)) done()
      return
    }
    inFlight = queue
    queue = []
    worker.ref()
    worker.postMessage(inFlight.map((pending) => pending.item))
  }
  function settle(outcomes: Outcome[] | { error: { message: string; code?: string } }): void {
    const items = inFlight ?? []
    inFlight = undefined
    items.forEach((pending, i) => {
      if (!Array.isArray(outcomes)) return pending.reject(errorFrom(outcomes.error))
      const outcome = outcomes[i]!
      if ('error' in outcome) pending.reject(errorFrom(outcome.error))
      else pending.resolve(outcome)
    })
    // Nothing waiting: the worker does not keep the process alive.
    if (queue.length === 0) worker.unref()
    send()
  }
  worker.on('message', settle)
  worker.on('error', (error) => {
    failure = error
    for (const pending of [...(inFlight ?? []), ...queue]) pending.reject(error)
    inFlight = undefined
    queue = []
  })
  worker.unref()

  function hand<T>(item: Item | WorksheetItem): Promise<T> {
    if (failure) return Promise.reject(failure)
    if (closed) return Promise.reject(new Error('This lead store is closed.'))
    return new Promise<T>((resolve, reject) => {
      queue.push({ item, resolve: resolve as Pending['resolve'], reject })
      // The saves of this turn of the event loop go together, or with those still arriving while one commits.
      if (queue.length === 1) setImmediate(send)
    })
  }

  return {
    save: (lead, mail, more = [], assignment) => hand<WrittenLead>(itemOf(lead, mail, more, assignment)),
    saveWorksheet: (worksheet, messages) =>
      hand<{ worksheet: WorksheetRow }>(worksheetItemOf(worksheet, messages)).then((written) => written.worksheet),
    close() {
      closed ??= (async () => {
        if (inFlight || queue.length > 0) await new Promise<void>((resolve) => idle.push(resolve))
        if (failure) return
        const exited = new Promise((resolve) => worker.once('exit', resolve))
        // Held until it has closed its connection: an unreferenced worker would let the process end first, mid-close.
        worker.ref()
        worker.postMessage('close')
        await exited
      })()
      return closed
    },
  }
}
