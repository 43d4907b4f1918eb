import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import Database from 'better-sqlite3'
import { afterAll, describe, expect, it } from 'vitest'
import { openSqliteStore } from '../../src/server/store/sqlite/sqlite-store.ts'
import { defaultLaunch, mailFor, newLead } from './support/fixtures.ts'

// The store's worker-thread writer (sqlite-writer.ts) on real SQLite files: saves committed together, each answered
// after the commit, a retry stored once, another connection's write lock waited for off the thread, and nothing
// acknowledged lost when the process is killed with saves in flight.

const root = mkdtempSync(path.join(tmpdir(), 'vip-writer-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

const count = (file: string, sql: string) => {
  const db = new Database(file, { readonly: true })
  try {
    return (db.prepare(sql).get() as { n: number }).n
  } finally {
    db.close()
  }
}

describe('SQLite writer thread', () => {
  it('stores concurrent saves with their messages, each on disk when answered; a retry is stored once', async () => {
    const file = path.join(root, 'concurrent.sqlite')
    const store = openSqliteStore(file, { defaultLaunch, writerThread: true })
    try {
      const leads = Array.from({ length: 200 }, () => newLead({ submissionId: crypto.randomUUID(), phase: 'vip' }))
      const saved = await Promise.all(
        leads.map(async (lead) => {
          const result = await store.saveLead(lead, mailFor(lead), [
            { kind: 'reply', mail: { ...mailFor(lead), to: 'jane@example.com' } },
          ])
          // Answered: committed, visible to another connection at once.
          expect(count(file, `SELECT count(*) AS n FROM leads WHERE submission_id = '${lead.submissionId}'`)).toBe(1)
          return result
        }),
      )
      expect(saved.every((result) => result.created)).toBe(true)
      expect(saved.map((result) => result.lead.submissionId)).toEqual(leads.map((lead) => lead.submissionId))
      expect(saved[0]!.lead.fields).toEqual(leads[0]!.fields)
      expect(saved[0]!.lead.phase).toBe('vip')
      expect(count(file, 'SELECT count(*) AS n FROM outbox')).toBe(400)
      const again = await store.saveLead(leads[7]!, mailFor(leads[7]!))
      expect(again.created).toBe(false)
      expect(again.lead.id).toBe(saved[7]!.lead.id)
      expect(count(file, 'SELECT count(*) AS n FROM leads')).toBe(200)
      // The store's own reads see what the writer wrote.
      expect((await store.findLead(leads[3]!.submissionId))?.id).toBe(saved[3]!.lead.id)
    } finally {
      await store.close()
    }
  })

  it('waits for another connection’s write lock without blocking the request thread, then commits the saves', async () => {
    const file = path.join(root, 'locked.sqlite')
    const store = openSqliteStore(file, { defaultLaunch, writerThread: true })
    const other = new Database(file)
    try {
      other.exec('BEGIN IMMEDIATE')
      const saves = Array.from({ length: 5 }, () => newLead({ submissionId: crypto.randomUUID() })).map((lead) =>
        store.saveLead(lead, mailFor(lead)),
      )
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
      expect((await Promise.all(saves)).map((result) => result.created)).toEqual([true, true, true, true, true])
      expect(count(file, 'SELECT count(*) AS n FROM outbox')).toBe(5)
    } finally {
      if (other.inTransaction) other.exec('ROLLBACK')
      other.close()
      await store.close()
    }
  })

  it('fails a save that breaks a rule alone: the others of its commit are stored', async () => {
    const file = path.join(root, 'one-fails.sqlite')
    const store = openSqliteStore(file, { defaultLaunch, writerThread: true })
    try {
      const good = Array.from({ length: 3 }, () => newLead({ submissionId: crypto.randomUUID() }))
      // A second notification for the same lead breaks the outbox's one-message-per-kind rule.
      const bad = newLead({ submissionId: crypto.randomUUID() })
      const results = await Promise.allSettled([
        ...good.map((lead) => store.saveLead(lead, mailFor(lead))),
        store.saveLead(bad, mailFor(bad), [
          { kind: 'reply', mail: mailFor(bad) },
          { kind: 'reply', mail: mailFor(bad) },
        ]),
      ])
      expect(results.map((result) => result.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled', 'rejected'])
      expect(count(file, 'SELECT count(*) AS n FROM leads')).toBe(3)
      expect(count(file, `SELECT count(*) AS n FROM leads WHERE submission_id = '${bad.submissionId}'`)).toBe(0)
    } finally {
      await store.close()
    }
  })

  it('loses no acknowledged save when its process is killed (SIGKILL) with saves in flight', async () => {
    const file = path.join(root, 'killed.sqlite')
    // Made (and upgraded) here first, as the server's own connection does before it starts the writer.
    await openSqliteStore(file, { defaultLaunch }).close()
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', path.join(import.meta.dirname, 'support/writer-child.ts'), file],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    )
    const acked: string[] = []
    let errors = ''
    child.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString()))
    let partial = ''
    const enough = new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        const lines = (partial + chunk.toString()).split('\n')
        partial = lines.pop()!
        for (const line of lines) if (line.startsWith('acked ')) acked.push(line.slice(6))
        if (acked.length >= 1500) resolve()
      })
      child.once('exit', () => reject(new Error(`the writer's process ended by itself:\n${errors}`)))
    })
    const exited = new Promise((resolve) => child.once('exit', resolve))
    await enough
    child.kill('SIGKILL')
    await exited
    const db = new Database(file, { readonly: true })
    try {
      const stored = new Set(
        (db.prepare('SELECT submission_id AS id FROM leads').all() as Array<{ id: string }>).map((row) => row.id),
      )
      const missing = acked.filter((id) => !stored.has(id))
      expect(missing).toEqual([])
      // Saves in flight at the kill may be stored unanswered; every stored lead has its two messages (one transaction).
      expect(stored.size).toBeGreaterThanOrEqual(acked.length)
      expect((db.prepare('SELECT count(*) AS n FROM outbox').get() as { n: number }).n).toBe(stored.size * 2)
      console.log(`writer killed after ${acked.length} acknowledged saves; ${stored.size} stored`)
    } finally {
      db.close()
    }
  }, 60_000)
})
