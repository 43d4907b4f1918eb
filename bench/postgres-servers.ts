import { readFileSync } from 'node:fs'
import path from 'node:path'
import pg from 'pg'
import { migrateDatabase } from '../src/cli/db/db-migrate.ts'
import { startTestPostgres } from '../tests/server/support/postgres.ts'
import { ownCpuMs, treeCpuMs, untilIdle } from './process-cpu.ts'

/**
 * The load on the Node server with DATABASE_URL: one server, then two on one PostgreSQL (as behind a load balancer,
 * each with its own DATA_DIR), each time on a database fresh from `npm run db:migrate`'s code. Figures under
 * `postgres1.` and `postgres2.`, beside the SQLite `load.` figures. With two servers the load is split between them
 * (half the connections each); their p99 is the larger of the two servers' p99s. The PostgreSQL is DATABASE_URL's
 * (a database made in it) or a throwaway cluster, as for the tests. Each run also reports the CPU each side used per
 * registration: each Node server (with its delivery process), PostgreSQL (its postmaster and every backend), and the
 * load generator (this process), and how many of the machine's cores they kept busy together.
 */

type Result = {
  requests: { average: number; total: number }
  latency: { p99: number; p50: number }
  non2xx: number
  errors: number
  timeouts: number
}
type Server = { url: string; proc?: { pid?: number | undefined }; stop(signal: NodeJS.Signals): Promise<void> }

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
  // fsync on, as SQLite's commits are: the rates are compared.
  const cluster = await startTestPostgres({ empty: true, durable: true })
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
        // Each server's delivery process starts up for seconds after its server listens: not the registrations' CPU.
        await untilIdle(servers.map((server) => server.proc?.pid))
        log(`${label}: 50 connections for ${seconds} s on ${count} Node server(s) on one PostgreSQL …`)
        const acked: string[] = []
        const postmaster = await postmasterPid(databaseUrl)
        const cpu = () => [...servers.map((server) => treeCpuMs(server.proc?.pid)), treeCpuMs(postmaster), ownCpuMs()]
        const before = { cpu: cpu(), at: Date.now() }
        const results = await Promise.all(servers.map((server) => deps.load(server.url, 50 / count, seconds, acked)))
        const used = cpu().map((after, i) => after - before.cpu[i]!)
        const wallMs = Date.now() - before.at
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
          ...cpuFigures(
            label,
            used,
            results.reduce((sum, r) => sum + r.requests.total, 0),
            wallMs,
          ),
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

/** The postmaster's process id, from its data directory's postmaster.pid (undefined when it cannot be read). */
async function postmasterPid(databaseUrl: string): Promise<number | undefined> {
  const db = new pg.Client({ connectionString: databaseUrl })
  try {
    await db.connect()
    const { rows } = await db.query<{ dir: string }>("SELECT current_setting('data_directory') AS dir")
    return Number(readFileSync(path.join(rows[0]!.dir, 'postmaster.pid'), 'utf8').split('\n')[0]) || undefined
  } catch {
    return undefined
  } finally {
    await db.end().catch(() => {})
  }
}

/**
 * CPU ms per registration of each side, [server 1, … server n, PostgreSQL, load], and the cores they kept busy together
 * over the load's wall time.
 */
function cpuFigures(label: string, used: number[], requests: number, wallMs: number): Record<string, number> {
  const per = (ms: number) => Number((ms / Math.max(1, requests)).toFixed(3))
  const servers = used.slice(0, -2)
  const [postgres, load] = used.slice(-2) as [number, number]
  return {
    ...Object.fromEntries(servers.map((ms, i) => [`${label}.cpuMsPerRequest.server${i + 1}`, per(ms)])),
    [`${label}.cpuMsPerRequest.postgres`]: per(postgres),
    [`${label}.cpuMsPerRequest.load`]: per(load),
    [`${label}.coresBusy`]: Number((used.reduce((a, b) => a + b, 0) / wallMs).toFixed(2)),
  }
}
