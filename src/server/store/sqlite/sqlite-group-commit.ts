// Group commit on one SQLite connection: the writes handed over in one turn of the event loop (a registration, a
// worksheet, an allocation …) share one transaction and one fsync. Each write runs in its own savepoint (a nested
// better-sqlite3 transaction), so one failing write fails alone; and each caller hears back only once the shared
// commit is on disk. The store's concerns all write through the one group commit of their connection
// (sqlite-context.ts), so they never wait for one another's write lock in this process.
import type Database from 'better-sqlite3'

/** The group commit of a connection: `run` answers with the job's result once the commit holding it is on disk. */
export type SqliteGroupCommit = {
  /** Runs `job` (synchronous SQL on the connection) in the next shared transaction, inside a savepoint of its own. */
  run<T>(job: () => T): Promise<T>
}

type Pending = { job: () => unknown; resolve(result: unknown): void; reject(error: unknown): void }
type Outcome = { result: unknown } | { error: unknown }

/** How long a batch is tried again while another connection holds the write lock. */
const busyForMs = 5000

/** The group commit of `db`. */
export function createSqliteGroupCommit(db: Database.Database): SqliteGroupCommit {
  let queue: Pending[] = []
  let busySince: number | undefined
  const runBatch = db.transaction((items: Pending[]) =>
    items.map((item): Outcome => {
      try {
        return { result: db.transaction(item.job)() }
      } catch (error) {
        return { error }
      }
    }),
  )
  /** The batch's outcomes, or undefined when it was put back to be tried again. */
  function commit(items: Pending[]): Outcome[] | undefined {
    try {
      db.pragma('busy_timeout = 0')
      return runBatch.immediate(items)
    } catch (error) {
      // While another connection (the writer thread, the delivery process) holds the write lock, SQLite's own wait
      // would block this thread; the batch is tried again a millisecond later instead, and the writes that arrive
      // meanwhile join it.
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
    if (items.length === 0) return
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
    run<T>(job: () => T): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        queue.push({ job, resolve, reject })
        if (queue.length === 1) setImmediate(flush)
      })
    },
  }
}
