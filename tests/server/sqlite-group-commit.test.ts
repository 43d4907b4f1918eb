import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import Database from 'better-sqlite3'
import { afterAll, describe, expect, it } from 'vitest'
import { openSqliteStore } from '../../src/server/store/sqlite/sqlite-store.ts'
import { defaultLaunch, mailFor, newLead } from './support/fixtures.ts'

// The SQLite store's group commit beside another process's writes (the delivery process claims and marks messages
// on the same file): while the other holds the write lock, saves wait without blocking the thread, and join one commit.

const root = mkdtempSync(path.join(tmpdir(), 'vip-group-commit-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

describe('SQLite group commit', () => {
  it('waits for another connection’s write lock without blocking the thread, then commits every save waiting', async () => {
    const file = path.join(root, 'leads.sqlite')
    const store = openSqliteStore(file, { defaultLaunch })
    const other = new Database(file)
    try {
      other.exec('BEGIN IMMEDIATE')
      const leads = Array.from({ length: 5 }, () => newLead({ submissionId: crypto.randomUUID() }))
      const saves = leads.map((lead) => store.saveLead(lead, mailFor(lead)))
      let settled = false
      void Promise.allSettled(saves).then(() => (settled = true))
      // The thread keeps turning while the lock is held (five timer turns), the saves still pending. A thread blocked
      // in
      // SQLite's busy wait would turn again only after its busy timeout (5 s), the saves failed by then. Counted in
      // turns,
      // not in turns per time: a loaded machine turns slowly but turns.
      const started = Date.now()
      for (let turn = 0; turn < 5; turn += 1) await new Promise((resolve) => setTimeout(resolve, 10))
      expect(Date.now() - started).toBeLessThan(4_000)
      expect(settled).toBe(false)
      other.exec('COMMIT')
      const results = await Promise.all(saves)
      expect(results.map((result) => result.created)).toEqual([true, true, true, true, true])
      // On disk, with their notifications, for any other reader.
      const read = new Database(file, { readonly: true })
      expect((read.prepare('SELECT count(*) AS n FROM leads').get() as { n: number }).n).toBe(5)
      expect((read.prepare('SELECT count(*) AS n FROM outbox').get() as { n: number }).n).toBe(5)
      read.close()
    } finally {
      if (other.inTransaction) other.exec('ROLLBACK')
      other.close()
      await store.close()
    }
  })
})
