import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import Database from 'better-sqlite3'

/*
 * The two floors `npm run bench:backend` reports beside the registrations, measured in the same run on the same
 * machine (its load moves every figure between runs): how fast this disk takes a plain INSERT with its own fsync'd
 * commit (SQLite as the server opens it: WAL, synchronous=FULL), and how fast the same HTTP stack answers a handler
 * that only reads the JSON body (bench/empty-server.ts, served by the bench the way it serves the server).
 */

/** Commits per second of a loop of single-row INSERTs, each its own fsync'd transaction, for `seconds`. */
export function insertFsyncRate(seconds = 5): number {
  const dir = mkdtempSync(path.join(tmpdir(), 'vip-bench-insert-'))
  const db = new Database(path.join(dir, 'floor.sqlite'))
  try {
    db.pragma('journal_mode = WAL')
    db.pragma('synchronous = FULL')
    db.exec('CREATE TABLE rows (id INTEGER PRIMARY KEY, submission_id TEXT UNIQUE, body TEXT NOT NULL)')
    const insert = db.prepare('INSERT INTO rows (submission_id, body) VALUES (?, ?)')
    // About the size of a stored lead with its two messages.
    const body = 'x'.repeat(3000)
    const end = Date.now() + seconds * 1000
    let done = 0
    const start = Date.now()
    while (Date.now() < end) {
      insert.run(crypto.randomUUID(), body)
      done += 1
    }
    return Math.round(done / ((Date.now() - start) / 1000))
  } finally {
    db.close()
    rmSync(dir, { recursive: true, force: true })
  }
}
