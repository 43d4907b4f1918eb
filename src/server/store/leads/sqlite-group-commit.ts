// Group commit for the SQLite store's saves on its own connection (sqlite-save-lead.ts): the saves that arrive in one
// turn of the event loop share one transaction and one fsync. Each save runs in its own savepoint (a nested
// better-sqlite3 transaction), so one failing save fails alone; and each caller hears back only once the shared commit
// is on disk.
import type Database from 'better-sqlite3'
import type { NewAssignment } from '../follow-up.ts'
import type { NewMessage, QueuedMail } from '../messages.ts'
import type { NewLead, SaveLeadResult } from './leads.ts'

/** One save as the transaction takes it. */
export type SqliteSave = (
  lead: NewLead,
  mail: QueuedMail | null,
  more?: NewMessage[],
  assignment?: NewAssignment,
) => SaveLeadResult

/** One save waiting for the group's commit. */
export type SaveRequest = {
  lead: NewLead
  mail: QueuedMail | null
  more: NewMessage[] | undefined
  assignment?: NewAssignment | undefined
}
type PendingSave = SaveRequest & { resolve(result: SaveLeadResult): void; reject(error: unknown): void }
type Outcome = { result: SaveLeadResult } | { error: unknown }

/** How long a batch is tried again while another process holds the write lock. */
const busyForMs = 5000

/** The group commit of `save` on `db`: `save` answers once the commit holding the request is on disk. */
export function createSqliteGroupCommit(
  db: Database.Database,
  save: SqliteSave,
): { save(request: SaveRequest): Promise<SaveLeadResult> } {
  let queue: PendingSave[] = []
  let busySince: number | undefined
  const saveBatch = db.transaction((items: PendingSave[]) =>
    items.map((item): Outcome => {
      try {
        return { result: save(item.lead, item.mail, item.more, item.assignment) }
      } catch (error) {
        return { error }
      }
    }),
  )
  /** The batch's outcomes, or undefined when it was put back to be tried again. */
  function commit(items: PendingSave[]): Outcome[] | undefined {
    try {
      db.pragma('busy_timeout = 0')
      return saveBatch.immediate(items)
    } catch (error) {
      // While another process (the delivery process) holds the write lock, SQLite's own wait would block this thread;
      // the batch is tried again a millisecond later instead, and the saves that arrive meanwhile join it.
      const busy = (error as { code?: string }).code?.startsWith('SQLITE_BUSY')
      if (busy && Date.now() - (busySince ??= Date.now()) < busyForMs) {
        queue = [...items, ...queue]
        setTimeout(flush, 1)
        return undefined
      }
      busySince = undefined
      for (const item of items) item.reject(error)
      return undefined
    } finally {
      db.pragma('busy_timeout = 5000')
    }
  }
  function flush(): void {
    const items = queue
    queue = []
    const outcomes = commit(items)
    if (!outcomes) return
    busySince = undefined
    items.forEach((item, i) => {
      const outcome = outcomes[i]!
      if ('error' in outcome) item.reject(outcome.error)
      else item.resolve(outcome.result)
    })
  }
  return {
    save(request) {
      return new Promise((resolve, reject) => {
        queue.push({ ...request, resolve, reject })
        if (queue.length === 1) setImmediate(flush)
      })
    },
  }
}
