import type Database from 'better-sqlite3'
import { presenceKeptMs, type TeamStore } from './team-store.ts'

/** The team's tables in SQLite (the same shape as supabase/migrations/20260121000000_studio_team.sql). */
export const sqliteTeamSchema = `
CREATE TABLE IF NOT EXISTS studio_draft_versions (
  launch   TEXT    PRIMARY KEY,
  version  INTEGER NOT NULL,
  by_email TEXT    NOT NULL,
  saved_at TEXT    NOT NULL
);
CREATE TABLE IF NOT EXISTS studio_presence (
  launch  TEXT NOT NULL,
  editor  TEXT NOT NULL,
  who     TEXT NOT NULL,
  since   TEXT NOT NULL,
  seen_at TEXT NOT NULL,
  PRIMARY KEY (launch, editor)
);
`

/** The TeamStore on the studio's SQLite database (its schema applied by sqlite-schema.ts's upgrades). */
export function sqliteTeam(db: Database.Database): TeamStore {
  // The version moves on only if it is still the one the save was made from (or none was given); the draft is
  // written in the same transaction, so a refused save changes nothing.
  type Save = { launch: string; by: string; at: string; base: number | null }
  const nextVersion = db.prepare<[Save], { version: number }>(
    `INSERT INTO studio_draft_versions (launch, version, by_email, saved_at) VALUES (@launch, 1, @by, @at)
     ON CONFLICT (launch) DO UPDATE SET version = studio_draft_versions.version + 1, by_email = excluded.by_email,
       saved_at = excluded.saved_at
     WHERE @base IS NULL OR studio_draft_versions.version = @base
     RETURNING version`,
  )
  const writeDraft = db.prepare<[string, string, string, string]>(
    `INSERT INTO studio_drafts (launch, text, by_email, updated_at) VALUES (?, ?, ?, ?)
     ON CONFLICT (launch) DO UPDATE SET text = excluded.text, by_email = excluded.by_email, updated_at = excluded.updated_at`,
  )
  const save = db.transaction((launch: string, text: string, by: string, at: string, base: number | null) => {
    const row = nextVersion.get({ launch, by, at, base })
    if (!row) return undefined
    writeDraft.run(launch, text, by, at)
    return row.version
  })
  const head = db.prepare<[string], { version: number; by_email: string; saved_at: string }>(
    'SELECT version, by_email, saved_at FROM studio_draft_versions WHERE launch = ?',
  )
  const dropOld = db.prepare<[string]>('DELETE FROM studio_presence WHERE seen_at < ?')
  const mark = db.prepare<[{ launch: string; editor: string; who: string; at: string }]>(
    `INSERT INTO studio_presence (launch, editor, who, since, seen_at) VALUES (@launch, @editor, @who, @at, @at)
     ON CONFLICT (launch, editor) DO UPDATE SET seen_at = excluded.seen_at WHERE studio_presence.who = excluded.who`,
  )
  const present = db.prepare<[string, string], { editor: string; who: string; since: string }>(
    'SELECT editor, who, since FROM studio_presence WHERE launch = ? AND seen_at > ? ORDER BY since, editor',
  )
  const forget = db.prepare<[string, string, string]>(
    'DELETE FROM studio_presence WHERE launch = ? AND editor = ? AND who = ?',
  )
  // better-sqlite3 is synchronous: each method answers a settled promise, as the contract asks.
  return {
    draftHead: (launch) => {
      const row = head.get(launch)
      return Promise.resolve(row && { version: row.version, by: row.by_email, savedAt: row.saved_at })
    },
    saveDraftFrom: (launch, text, by, now, baseVersion) =>
      Promise.resolve(save.immediate(launch, text, by, now.toISOString(), baseVersion ?? null)),
    markPresent: (launch, editor, who, now) => {
      dropOld.run(new Date(now.getTime() - presenceKeptMs).toISOString())
      mark.run({ launch, editor, who, at: now.toISOString() })
      return Promise.resolve()
    },
    listPresent: (launch, after) => Promise.resolve(present.all(launch, after.toISOString())),
    forgetPresent: (launch, editor, who) => {
      forget.run(launch, editor, who)
      return Promise.resolve()
    },
  }
}
