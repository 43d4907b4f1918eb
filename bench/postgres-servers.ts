import path from 'node:path'
import pg from 'pg'
import { migrateDatabase } from '../src/cli/db/db-migrate.ts'
import { startTestPostgres } from '../tests/server/support/postgres.ts'

/**
 * The load on the Node server with DATABASE_URL: one server, then two on one PostgreSQL (as behind a load balancer,
 * each with its own DATA_DIR), each time on a database fresh from `npm run db:migrate`'s code. Figures under
 * `postgres1.` and `postgres2.`, beside the SQLite `load.` figures. With two servers the load is split between them
 * (half the connections each); their p99 is the larger of the two servers' p99s. The PostgreSQL is DATABASE_URL's
 * (a database made in it) or a throwaway cluster, as for the tests.
 */

type Result = {
  requests: { average: number; total: number }
  latency: { p99: number; p50: number }
  non2xx: number
  errors: number
  timeouts: number
}
type Server = { url: string; stop(signal: NodeJS.Signals): Promise<void> }

/** What the phase borrows from bench/backend.ts (passed in, so neither file imports the other). */
export type PostgresPhaseDeps = {
  startServer(env: Record<string, string>): Promise<Server>
  /**
   * Runs autocannon on `url` with `connections` for `seconds`, registering new leads; acknowledged ids go to `acked`.
   */
  load(url: string, connections: number, seconds: number, acked: string[]): Promise<Result>
  distDir: string
}

export async function postgresServersPhase(
  work: string,
  log: (line: string) => void,
  deps: PostgresPhaseDeps,
  seconds = 15,
): Promise<Record<string, number | string>> {
  const cluster = await startTestPostgres({ empty: true })
  const figures: Record<string, number | string> = {}
  try {
    for (const count of [1, 2]) {
      const label = `postgres${count}`
      await cluster.exec(`CREATE DATABASE bench_${count}`)
      const url = new URL(cluster.url!)
      url.pathname = `/bench_${count}`
      const databaseUrl = url.toString()
      const migrated = await migrateDatabase(databaseUrl, path.resolve('supabase/migrations'), {
        log: () => {},
        fail: log,
      })
      if (migrated !== 0) throw new Error('the migrations could not be applied')
      const servers = await Promise.all(
        Array.from({ length: count }, (_, i) =>
          deps.startServer({
            DATABASE_URL: databaseUrl,
            SUPPRESSION_SECRET: 'bench-suppression-secret-0123456789',
            DATA_DIR: path.join(work, `${label}-${i}`),
            DIST_DIR: deps.distDir,
          }),
        ),
      )
      try {
        log(`${label}: 50 connections for ${seconds} s on ${count} Node server(s) on one PostgreSQL …`)
        const acked: string[] = []
        const results = await Promise.all(servers.map((server) => deps.load(server.url, 50 / count, seconds, acked)))
        // Requests still in flight when autocannon stops are answered (unheard) a moment later.
        await new Promise((resolve) => setTimeout(resolve, 1000))
        const db = new pg.Client({ connectionString: databaseUrl })
        await db.connect()
        const stored = (await db.query<{ id: string }>('SELECT submission_id::text AS id FROM public.leads')).rows.map(
          (row) => row.id,
        )
        await db.end()
        const storedSet = new Set(stored)
        const unique = new Set(acked)
        Object.assign(figures, {
          [`${label}.requestsPerSecond`]: Math.round(results.reduce((sum, r) => sum + r.requests.average, 0)),
          [`${label}.latencyP50Ms`]: Math.max(...results.map((r) => r.latency.p50)),
          [`${label}.latencyP99Ms`]: Math.max(...results.map((r) => r.latency.p99)),
          [`${label}.acknowledged`]: unique.size,
          [`${label}.stored`]: stored.length,
          [`${label}.acknowledgedButMissing`]: [...unique].filter((id) => !storedSet.has(id)).length,
          [`${label}.storedTwice`]: stored.length - storedSet.size,
          [`${label}.non2xx`]: results.reduce((sum, r) => sum + r.non2xx, 0),
          [`${label}.errors`]: results.reduce((sum, r) => sum + r.errors + r.timeouts, 0),
        })
      } finally {
        await Promise.all(servers.map((server) => server.stop('SIGTERM')))
      }
    }
  } finally {
    await cluster.stop()
  }
  return figures
}
