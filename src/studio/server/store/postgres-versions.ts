import type { SqlQueryable } from '../../../server/store/sql-queryable.ts'
import type { NewVersion, StudioStore } from '../store.ts'
import { all, isUniqueViolation, one, versionOf, type VersionRow } from './postgres-rows.ts'

/** How many times addVersion tries again when another server took the same number at the same moment. */
const versionAttempts = 20

/**
 * Two servers publishing one launch at once read the same max: the primary key (launch, number) refuses the second
 * insert, which then reads the new max and tries again, so numbers have neither gaps nor duplicates. `unlessLatest`:
 * nothing is inserted (undefined) when the latest version, read again on each try, already has this text.
 */
async function insertVersion(db: SqlQueryable, version: NewVersion, unlessLatest: boolean) {
  for (let attempt = 1; ; attempt++) {
    try {
      const row = await one<{ number: number }>(
        db,
        `INSERT INTO public.studio_versions (launch, number, text, by_email, at, message, from_disk, restored_from)
         SELECT $1, coalesce(max(v.number), 0) + 1, $2, $3, $4, $5, $6, $7 FROM public.studio_versions v WHERE v.launch = $1
         HAVING NOT $8 OR (SELECT l.text FROM public.studio_versions l WHERE l.launch = $1 ORDER BY l.number DESC LIMIT 1) IS DISTINCT FROM $2
         RETURNING number`,
        [
          version.launch,
          version.text,
          version.by,
          version.at,
          version.message ?? null,
          version.fromDisk,
          version.restoredFrom ?? null,
          unlessLatest,
        ],
      )
      return row ? Number(row.number) : undefined
    } catch (error) {
      if (!isUniqueViolation(error) || attempt === versionAttempts) throw error
    }
  }
}

/** The published versions part of the studio's PostgreSQL store: numbered per launch, 1, 2, 3… with no gap. */
export function postgresVersions(
  db: SqlQueryable,
): Pick<StudioStore, 'addVersion' | 'addDiskVersion' | 'listVersions' | 'getVersion' | 'latestVersion'> {
  return {
    addVersion: async (version) => (await insertVersion(db, version, false))!,
    addDiskVersion: (version) => insertVersion(db, version, true),
    async listVersions(launch) {
      return (
        await all<VersionRow>(db, 'SELECT * FROM public.studio_versions WHERE launch = $1 ORDER BY number DESC', [
          launch,
        ])
      ).map(versionOf)
    },
    async getVersion(launch, number) {
      const row = await one<VersionRow>(db, 'SELECT * FROM public.studio_versions WHERE launch = $1 AND number = $2', [
        launch,
        number,
      ])
      return row ? versionOf(row) : undefined
    },
    async latestVersion(launch) {
      const row = await one<VersionRow>(
        db,
        'SELECT * FROM public.studio_versions WHERE launch = $1 ORDER BY number DESC LIMIT 1',
        [launch],
      )
      return row ? versionOf(row) : undefined
    },
  }
}
