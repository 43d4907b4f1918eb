import { readFileSync, rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import Database from 'better-sqlite3'
import { ensurePrivateFile, privateFileMode } from './private-files.ts'

/** Another server already owns this data directory. */
export class DataDirBusyError extends Error {
  constructor(
    readonly dataDir: string,
    readonly otherPid: number | undefined,
  ) {
    super(
      `Another server is already using DATA_DIR ${dataDir}${otherPid ? ` (process ${otherPid})` : ''}. ` +
        'Stop it first, or give this server its own DATA_DIR.',
    )
    this.name = 'DataDirBusyError'
  }
}

/** A held lock on a data directory. */
export type DataDirLock = { release(): void }

/**
 * Makes this process the only server on `dataDir`, or throws DataDirBusyError. The lock is an exclusive SQLite
 * lock on DATA_DIR/server.lock, i.e. an operating-system file lock: it is released when the process ends in any
 * way, including SIGKILL or a power cut, so there is never a stale lock file to delete by hand.
 */
export function lockDataDir(dataDir: string): DataDirLock {
  const lockFile = path.join(dataDir, 'server.lock')
  const pidFile = path.join(dataDir, 'server.pid')
  ensurePrivateFile(lockFile)
  const db = new Database(lockFile, { timeout: 0 })
  try {
    db.pragma('locking_mode = EXCLUSIVE')
    // Held until this connection closes: never committed.
    db.exec('BEGIN EXCLUSIVE')
  } catch (error) {
    db.close()
    if ((error as { code?: string }).code?.startsWith('SQLITE_BUSY')) {
      let pid: number | undefined
      try {
        pid = Number(readFileSync(pidFile, 'utf8').trim()) || undefined
      } catch {
        pid = undefined
      }
      throw new DataDirBusyError(dataDir, pid)
    }
    throw error
  }
  writeFileSync(pidFile, `${process.pid}\n`, { mode: privateFileMode })
  return {
    release() {
      if (!db.open) return
      rmSync(pidFile, { force: true })
      db.close()
    },
  }
}

/**
 * Makes this process the only delivery process of `dataDir` (the one the server on it starts, beside its own lock),
 * waiting up to `timeoutMs` for one still running to end: a server killed outright leaves its delivery process to
 * finish the batch in hand and exit, and its successor's must not send beside it. An operating-system lock on
 * DATA_DIR/delivery.lock, like the server's: released however the process ends.
 */
export async function lockDelivery(dataDir: string, timeoutMs = 60_000): Promise<DataDirLock> {
  const lockFile = path.join(dataDir, 'delivery.lock')
  ensurePrivateFile(lockFile)
  const end = Date.now() + timeoutMs
  for (;;) {
    const db = new Database(lockFile, { timeout: 0 })
    try {
      db.pragma('locking_mode = EXCLUSIVE')
      db.exec('BEGIN EXCLUSIVE')
      return { release: () => db.open && db.close() }
    } catch (error) {
      db.close()
      if (!(error as { code?: string }).code?.startsWith('SQLITE_BUSY') || Date.now() > end) throw error
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
  }
}
