import { existsSync } from 'node:fs'
import path from 'node:path'
import pg from 'pg'
import { createRateLimiter, type RateLimiter } from './registration/rate-limit.ts'
import type { SharedVisitors } from './site/visit-counter.ts'
import { DataDirBusyError, lockDataDir } from './store/data-dir-lock.ts'
import { missingMigrations } from './store/postgres/postgres-migrations.ts'
import {
  createDailyRuns,
  createPostgresRateLimiter,
  createPostgresVisitors,
  sharedSecret,
} from './store/postgres/postgres-shared.ts'
import { createPostgresStore, type SqlQueryable } from './store/postgres/postgres-store.ts'
import { withNamedStatements } from './store/postgres/postgres-named.ts'
import { ensurePrivateDir, readOrCreateSecret, tightenPrivateTree } from './store/private-files.ts'
import { createPostgresRelease } from './store/postgres/postgres-release.ts'
import type { ReleaseStore } from './store/release.ts'
import { openSqliteStore } from './store/sqlite/sqlite-store.ts'
import type { LeadStore } from './store/store.ts'

/**
 * Where the Node server (node.ts) keeps what it stores: SQLite in DATA_DIR (the default, one server alone, DATA_DIR
 * locked to it) or, with DATABASE_URL, PostgreSQL, which several servers may share: then the rate limit's counts,
 * the unsubscribe links' key, the visit counter's day and the once-a-day jobs are shared through it too, and DATA_DIR
 * (the .eml files,
 * alerts) is not locked, so each server may have its own or share one.
 */

/** A start-up failure with a message meant for the person starting the server. */
export class StartupError extends Error {
  override name = 'StartupError'
}

export type NodeStoreOptions = {
  /** DATA_DIR, resolved. */
  dataDir: string
  databaseUrl: string | undefined
  defaultLaunch: string
  /** supabase/migrations: the ones the database must have recorded. */
  migrationsDir: string
  rateLimitPerMinute: number
  /** SUPPRESSION_SECRET: required with databaseUrl (env.ts checks it), unused on SQLite. */
  suppressionSecret: string | undefined
}

/** A job run once a day in all (every server tries; one runs it), and at start. */
export type DailyJob = { stop(): void }

export type NodeStore = {
  store: LeadStore
  /**
   * The inventory and worksheets beside the leads (the worksheet page, the page's "left" counts, the allocation board):
   * on SQLite on the lead store's connection, writing through its writer; on PostgreSQL in the same pool.
   */
  release: ReleaseStore
  /**
   * The PostgreSQL pool every part on the database shares (the studio and the leads page's sessions may take it);
   * absent on SQLite.
   */
  database: SqlQueryable | undefined
  /** Where the leads are, in plain words, for the start-up lines (no password). */
  where: string
  /**
   * Counts registrations a minute per address: in memory on SQLite, in the database on PostgreSQL (all servers
   * together).
   */
  rateLimiter: RateLimiter
  /**
   * The unsubscribe links' and the suppression list's keys: DATA_DIR's files; on PostgreSQL one unsubscribe key for all
   * servers in the database, and SUPPRESSION_SECRET (kept outside it).
   */
  secrets: { unsubscribe(): string; suppression(): string }
  /** The visit counter's shared day (PostgreSQL only). */
  visitors: SharedVisitors | undefined
  /**
   * On PostgreSQL: claims a one-off job (a phase start's static publish) for this server; false when another has it.
   */
  claim: ((job: string, day: string) => Promise<boolean>) | undefined
  /**
   * Runs `job` now and then daily: on PostgreSQL once a day among all servers. A failure at start throws StartupError.
   */
  daily(name: string, job: () => Promise<void>, what: string): Promise<DailyJob>
  /** Closes the store and frees DATA_DIR. */
  close(): Promise<void>
}

/** Opens the store the settings choose; throws StartupError with what to do when it cannot. */
export async function openNodeStore(options: NodeStoreOptions): Promise<NodeStore> {
  const { dataDir } = options
  try {
    ensurePrivateDir(dataDir)
  } catch (error) {
    throw new StartupError(`DATA_DIR ${dataDir} cannot be created: ${(error as Error).message}`)
  }
  // On SQLite the database is DATA_DIR's: one server alone. On PostgreSQL the servers share the database instead.
  let lock: { release(): void } = { release() {} }
  if (!options.databaseUrl) {
    try {
      lock = lockDataDir(dataDir)
    } catch (error) {
      if (error instanceof DataDirBusyError) throw new StartupError(error.message)
      throw new StartupError(`DATA_DIR ${dataDir} cannot be used: ${(error as Error).message}`)
    }
  }
  try {
    // Files written by an older version, or copied in from a backup, become owner-only too.
    tightenPrivateTree(dataDir)
  } catch (error) {
    lock.release()
    throw new StartupError(`DATA_DIR ${dataDir} cannot be made private to this user: ${(error as Error).message}`)
  }
  if (!options.databaseUrl) {
    // One database for every launch; leads stored before launches existed are the default launch's.
    const store = openSqliteStore(path.join(dataDir, 'leads.sqlite'), {
      defaultLaunch: options.defaultLaunch,
      writerThread: true,
    })
    return {
      store,
      release: store.release,
      database: undefined,
      claim: undefined,
      where: `SQLite, ${path.join(dataDir, 'leads.sqlite')}`,
      rateLimiter: createRateLimiter(options.rateLimitPerMinute),
      secrets: {
        unsubscribe: () => readOrCreateSecret(path.join(dataDir, 'unsubscribe.key')),
        suppression: () => readOrCreateSecret(path.join(dataDir, 'suppression.key')),
      },
      visitors: undefined,
      async daily(_name, job, what) {
        try {
          await job()
        } catch (error) {
          await store.close()
          lock.release()
          throw new StartupError(`${what} could not be done: ${(error as Error).message}`)
        }
        const timer = setInterval(
          () => void job().catch((error: unknown) => console.error(`${what} failed`, error)),
          86_400_000,
        )
        timer.unref()
        return { stop: () => clearInterval(timer) }
      },
      async close() {
        await store.close()
        lock.release()
      },
    }
  }
  return openPostgres({ ...options, databaseUrl: options.databaseUrl })
}

async function openPostgres(options: NodeStoreOptions & { databaseUrl: string }): Promise<NodeStore> {
  const url = new URL(options.databaseUrl)
  const where = `PostgreSQL, ${url.hostname}${url.port ? `:${url.port}` : ''}${url.pathname}`
  // Enough for the group commit's 8 batches at once and the two address lookups' 4 each (postgres-group-commit.ts,
  // postgres-group-read.ts); the delivery process has 2 of its own.
  const pool = new pg.Pool({ connectionString: options.databaseUrl, max: 16 })
  // A connection the server cuts (a restart, a failover) is replaced on the next query; say so once per cut.
  pool.on('error', (error) =>
    console.error(`PostgreSQL: a connection was lost (${error.message}); the next query opens a new one.`),
  )
  let missing
  try {
    missing = await missingMigrations(pool, options.migrationsDir)
  } catch (error) {
    await pool.end().catch(() => {})
    throw new StartupError(
      `The database at DATABASE_URL (${where}) cannot be reached: ${(error as Error).message}. Check the address, the password and that PostgreSQL is running.`,
    )
  }
  if (missing.length > 0) {
    await pool.end()
    throw new StartupError(
      `The database at DATABASE_URL (${where}) lacks ${missing.length} migration(s) of supabase/migrations (the first: ${missing[0]!.file}). ` +
        'Run npm run db:migrate (with the same DATABASE_URL), then start again.',
    )
  }
  // The store's statements of every registration are named: each connection parses and plans them once.
  const store = createPostgresStore(withNamedStatements(pool), {
    defaultLaunch: options.defaultLaunch,
    close: () => pool.end(),
  })
  // A key this server made before it moved to PostgreSQL becomes everyone's, so the links it signed still work.
  const secretOf = async (file: string) => {
    const own = path.join(options.dataDir, file)
    return sharedSecret(pool, file, existsSync(own) ? readOrCreateSecret(own) : undefined)
  }
  const unsubscribe = await secretOf('unsubscribe.key')
  // Never in the database: with the database alone, the suppression list's hashes could be tested against addresses.
  const suppression = options.suppressionSecret
  if (!suppression) {
    await pool.end()
    throw new StartupError(
      'SUPPRESSION_SECRET is missing: with DATABASE_URL set it to the same value on every server (and for npm run leads:erase).',
    )
  }
  const runs = createDailyRuns(pool)
  const today = () => new Date().toISOString().slice(0, 10)
  return {
    store,
    release: createPostgresRelease(pool),
    database: pool,
    where,
    rateLimiter: createPostgresRateLimiter(pool, options.rateLimitPerMinute),
    secrets: { unsubscribe: () => unsubscribe, suppression: () => suppression },
    visitors: createPostgresVisitors(pool),
    claim: (job, day) => runs.claim(job, day),
    async daily(name, job, what) {
      // Every server tries each hour; the first to claim the day (UTC) runs it, the others skip it.
      const attempt = async () => {
        const day = today()
        if (!(await runs.claim(name, day))) return
        try {
          await job()
        } catch (error) {
          await runs.release(name, day)
          throw error
        }
      }
      try {
        await attempt()
      } catch (error) {
        await store.close()
        throw new StartupError(`${what} could not be done: ${(error as Error).message}`)
      }
      const timer = setInterval(
        () => void attempt().catch((error: unknown) => console.error(`${what} failed`, error)),
        3_600_000,
      )
      timer.unref()
      return { stop: () => clearInterval(timer) }
    },
    close: () => store.close(),
  }
}
