// Erasing leads in SQLite (erasure.ts: ErasureStore): the count an erasure would remove, and the erasure in one
// transaction, withdrawn addresses left on the suppression list, the freed bytes overwritten (secure_delete) and the
// WAL emptied.
import type Database from 'better-sqlite3'
import type { SqliteContext } from '../sqlite/sqlite-context.ts'
import { promised } from '../sqlite/sqlite-promised.ts'
import { whereOf } from '../sqlite/sqlite-rows.ts'
import type { ErasureResult, ErasureStore, LeadSelector } from '../erasure.ts'
import type { AddressKey } from '../suppression.ts'

/** The transaction that removes the leads of `ids` and their messages and puts `keys` on the suppression list. */
function eraseTransaction(db: Database.Database) {
  return db.transaction((ids: number[], keys: string[], now: string): ErasureResult => {
    const list = JSON.stringify(ids)
    let suppressed = 0
    const suppress = db.prepare(
      'INSERT INTO suppressions (address_key, created_at) VALUES (?, ?) ON CONFLICT DO NOTHING',
    )
    for (const key of keys) suppressed += suppress.run(key, now).changes
    const mail = db
      .prepare<[string], { message_id: string | null }>(
        `DELETE FROM outbox WHERE lead_id IN (SELECT value FROM json_each(?)) RETURNING json_extract(mail, '$.messageId') AS message_id`,
      )
      .all(list)
    const leads = db.prepare('DELETE FROM leads WHERE id IN (SELECT value FROM json_each(?))').run(list).changes
    return {
      leads,
      messages: mail.length,
      suppressed,
      messageIds: mail.flatMap((m) => (m.message_id ? [m.message_id] : [])),
    }
  })
}

/** Folds the WAL into the database and empties it, so erased rows are not left in old WAL frames. */
async function truncateWal(db: Database.Database): Promise<void> {
  // A reader (the running server) can hold the checkpoint back for a moment; try for up to 5 s.
  for (let attempt = 0; attempt < 50; attempt++) {
    const [result] = db.pragma('wal_checkpoint(TRUNCATE)') as Array<{ busy: number }>
    if (result?.busy === 0) return
    await new Promise((r) => setTimeout(r, 100))
  }
  throw new Error('The database is busy: its journal could not be emptied after the erasure. Run the erasure again.')
}

/** ErasureStore on an open SQLite lead database. */
export function createSqliteErasure(ctx: SqliteContext): ErasureStore {
  const { db } = ctx
  const erase = eraseTransaction(db)
  return {
    ...promised<Pick<ErasureStore, 'countErasable'>>({
      countErasable(selector) {
        const [where, param] = whereOf(selector)
        return db
          .prepare<[string, string], { leads: number; messages: number }>(
            `SELECT count(*) AS leads, (SELECT count(*) FROM outbox WHERE lead_id IN (SELECT id FROM leads WHERE ${where})) AS messages
         FROM leads WHERE ${where}`,
          )
          .get(param, param)!
      },
    }),
    async eraseLeads(selector: LeadSelector, keyOf: (email: string) => Promise<AddressKey>) {
      ctx.writable()
      const [where, param] = whereOf(selector)
      const found = db
        .prepare<[string], { id: number; email: unknown; withdrawn_at: string | null }>(
          `SELECT id, json_extract(fields, '$.email') AS email, withdrawn_at FROM leads WHERE ${where}`,
        )
        .all(param)
      if (found.length === 0) return { leads: 0, messages: 0, suppressed: 0, messageIds: [] }
      const keys: string[] = []
      for (const lead of found)
        if (lead.withdrawn_at !== null && typeof lead.email === 'string') keys.push(await keyOf(lead.email))
      const result = erase.immediate(
        found.map((l) => l.id),
        keys,
        new Date().toISOString(),
      )
      await truncateWal(db)
      return result
    },
  }
}
