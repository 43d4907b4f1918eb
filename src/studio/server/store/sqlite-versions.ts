import type Database from 'better-sqlite3'
import type { NewVersion, StudioStore } from '../store.ts'
import { settled, versionOf, type VersionRow } from './sqlite-rows.ts'

type VersionsPart = Pick<StudioStore, 'addVersion' | 'addDiskVersion' | 'listVersions' | 'getVersion' | 'latestVersion'>

/** The published versions part of the studio's SQLite store: numbered per launch, 1, 2, 3… with no gap. */
export function sqliteVersions(db: Database.Database): VersionsPart {
  const insert = db.prepare<unknown[], { number: number }>(
    `INSERT INTO studio_versions (launch, number, text, by_email, at, message, from_disk, restored_from)
     VALUES (?, (SELECT coalesce(max(number), 0) + 1 FROM studio_versions WHERE launch = ?), ?, ?, ?, ?, ?, ?)
     RETURNING number`,
  )
  const add = (version: NewVersion): number =>
    insert.get(
      version.launch,
      version.launch,
      version.text,
      version.by,
      version.at,
      version.message ?? null,
      version.fromDisk ? 1 : 0,
      version.restoredFrom ?? null,
    )!.number
  const latest = db.prepare<[string], VersionRow>(
    'SELECT * FROM studio_versions WHERE launch = ? ORDER BY number DESC LIMIT 1',
  )
  return {
    addVersion: (version) => settled(() => add(version)),
    addDiskVersion: (version) =>
      settled(() =>
        db
          .transaction(() => (latest.get(version.launch)?.text === version.text ? undefined : add(version)))
          .immediate(),
      ),
    listVersions: (launch) =>
      settled(() =>
        db
          .prepare<[string], VersionRow>('SELECT * FROM studio_versions WHERE launch = ? ORDER BY number DESC')
          .all(launch)
          .map(versionOf),
      ),
    getVersion: (launch, number) =>
      settled(() => {
        const row = db
          .prepare<[string, number], VersionRow>('SELECT * FROM studio_versions WHERE launch = ? AND number = ?')
          .get(launch, number)
        return row ? versionOf(row) : undefined
      }),
    latestVersion: (launch) =>
      settled(() => {
        const row = latest.get(launch)
        return row ? versionOf(row) : undefined
      }),
  }
}
