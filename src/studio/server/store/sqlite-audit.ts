import type Database from 'better-sqlite3'
import type { StudioStore } from '../store.ts'
import { settled } from './sqlite-rows.ts'

type AuditRow = { at: string; who: string; action: string; launch: string | null; detail: string | null }

/** The audit log part of the studio's SQLite store: who did what, when, newest first. */
export function sqliteAudit(db: Database.Database): Pick<StudioStore, 'addAudit' | 'listAudit'> {
  return {
    addAudit: (entry) =>
      settled(() => {
        db.prepare('INSERT INTO studio_audit (at, who, action, launch, detail) VALUES (?, ?, ?, ?, ?)').run(
          entry.at,
          entry.who,
          entry.action,
          entry.launch ?? null,
          entry.detail ?? null,
        )
      }),
    listAudit: (limit) =>
      settled(() =>
        db
          .prepare<[number], AuditRow>(
            'SELECT at, who, action, launch, detail FROM studio_audit ORDER BY id DESC LIMIT ?',
          )
          .all(limit)
          .map((row) => ({
            at: row.at,
            who: row.who,
            action: row.action,
            launch: row.launch ?? undefined,
            detail: row.detail ?? undefined,
          })),
      ),
  }
}
