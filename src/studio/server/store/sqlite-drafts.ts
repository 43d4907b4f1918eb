import type Database from 'better-sqlite3'
import type { StoredDraft, StudioStore } from '../store.ts'
import { settled } from './sqlite-rows.ts'

type DraftRow = { launch: string; text: string; by_email: string; updated_at: string }

const draftOf = (row: DraftRow): StoredDraft => ({
  launch: row.launch,
  text: row.text,
  by: row.by_email,
  updatedAt: row.updated_at,
})

/** The drafts part of the studio's SQLite store: one draft a launch. */
export function sqliteDrafts(
  db: Database.Database,
): Pick<StudioStore, 'getDraft' | 'listDrafts' | 'saveDraft' | 'deleteDraft'> {
  return {
    getDraft: (launch) =>
      settled(() => {
        const row = db.prepare<[string], DraftRow>('SELECT * FROM studio_drafts WHERE launch = ?').get(launch)
        return row ? draftOf(row) : undefined
      }),
    listDrafts: () =>
      settled(() => db.prepare<[], DraftRow>('SELECT * FROM studio_drafts ORDER BY launch').all().map(draftOf)),
    saveDraft: (launch, text, by, now) =>
      settled(() => {
        db.prepare(
          `INSERT INTO studio_drafts (launch, text, by_email, updated_at) VALUES (?, ?, ?, ?)
           ON CONFLICT (launch) DO UPDATE SET text = excluded.text, by_email = excluded.by_email, updated_at = excluded.updated_at`,
        ).run(launch, text, by, now.toISOString())
      }),
    deleteDraft: (launch) =>
      settled(() => {
        db.prepare('DELETE FROM studio_drafts WHERE launch = ?').run(launch)
      }),
  }
}
