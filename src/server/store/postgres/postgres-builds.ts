import type { BuildShelf, SharedBuild } from '../build-shelf.ts'
import type { SqlQueryable } from './postgres-store.ts'

/**
 * The published builds several Node servers share (supabase/migrations/20260105000000_published_builds.sql): each
 * put is one statement (the build and all its files, or nothing), numbered per launch; two servers putting one
 * launch at once collide on the primary key, and the one refused takes the next number.
 */
export function createPostgresBuildShelf(db: SqlQueryable): BuildShelf {
  return {
    async put(launch, configText, manifest, files) {
      for (let attempt = 1; ; attempt++) {
        try {
          const { rows } = await db.query(
            `WITH next AS (SELECT coalesce(max(number), 0) + 1 AS number FROM public.published_builds WHERE launch = $1),
                  build AS (
                    INSERT INTO public.published_builds (launch, number, config_text, manifest)
                    SELECT $1, number, $2, $3::jsonb FROM next RETURNING number),
                  stored AS (
                    INSERT INTO public.published_build_files (launch, number, path, bytes)
                    SELECT $1, build.number, file.path, file.bytes FROM build, unnest($4::text[], $5::bytea[]) AS file (path, bytes)
                    RETURNING 1)
             SELECT number, (SELECT count(*) FROM stored)::int AS files FROM build`,
            [
              launch,
              configText,
              JSON.stringify(manifest),
              files.map((file) => file.path),
              files.map((file) => Buffer.from(file.bytes)),
            ],
          )
          return (rows[0] as { number: number }).number
        } catch (error) {
          // Another server took the same number a moment before: take the next one.
          if ((error as { code?: string }).code === '23505' && attempt < 5) continue
          throw error
        }
      }
    },
    async latest() {
      const { rows } = await db.query(
        'SELECT launch, max(number) AS number FROM public.published_builds GROUP BY launch',
      )
      return new Map((rows as Array<{ launch: string; number: number }>).map((row) => [row.launch, Number(row.number)]))
    },
    async get(launch, number) {
      const { rows } = await db.query(
        'SELECT config_text, manifest FROM public.published_builds WHERE launch = $1 AND number = $2',
        [launch, number],
      )
      const row = rows[0] as { config_text: string; manifest: SharedBuild['manifest'] } | undefined
      if (!row) return undefined
      const files = await db.query(
        'SELECT path, bytes FROM public.published_build_files WHERE launch = $1 AND number = $2 ORDER BY path',
        [launch, number],
      )
      return {
        launch,
        number,
        configText: row.config_text,
        manifest: row.manifest,
        files: (files.rows as Array<{ path: string; bytes: Buffer }>).map((file) => ({
          path: file.path,
          bytes: new Uint8Array(file.bytes),
        })),
      }
    },
  }
}
