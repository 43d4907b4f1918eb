import { execFileSync } from 'node:child_process'
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import pg from 'pg'
import type { SqlQueryable } from '../../../src/server/store/postgres/postgres-store.ts'
import { freePort } from './ports.ts'

/** A Postgres to test against, with the Supabase roles and the real migrations applied. */
export type TestPostgres = {
  /** 'server': a throwaway cluster started here; 'external': DATABASE_URL; 'pglite': Postgres in WASM. */
  kind: 'server' | 'external' | 'pglite'
  /** A connection URL (not for PGlite, which has no TCP). */
  url: string | undefined
  /** Runs statements as the owner (the function's role). */
  db: SqlQueryable
  /** Runs several statements at once. */
  exec(sql: string): Promise<void>
  /** Runs `fn` on one connection (for BEGIN … SET ROLE … ROLLBACK). */
  session<T>(fn: (db: SqlQueryable) => Promise<T>): Promise<T>
  /** Empties the tables. */
  reset(): Promise<void>
  stop(): Promise<void>
}

// What a Supabase project has before our migrations: the API roles, and default privileges that hand every
// new table in public to them. The migrations must take those privileges back.
const supabaseLikeSetup = `
DO $$ BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'anon') THEN CREATE ROLE anon NOLOGIN NOINHERIT; END IF;
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'authenticated') THEN CREATE ROLE authenticated NOLOGIN NOINHERIT; END IF;
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'service_role') THEN CREATE ROLE service_role NOLOGIN NOINHERIT BYPASSRLS; END IF;
END $$;
GRANT USAGE ON SCHEMA public TO anon, authenticated, service_role;
ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT ALL ON TABLES TO anon, authenticated, service_role;
ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT ALL ON SEQUENCES TO anon, authenticated, service_role;
ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT ALL ON FUNCTIONS TO anon, authenticated, service_role;
`

/** The migration files, in order. */
export function migrationFiles(): string[] {
  const dir = path.resolve('supabase/migrations')
  return readdirSync(dir)
    .filter((f) => f.endsWith('.sql'))
    .sort()
    .map((f) => path.join(dir, f))
}

async function prepare(exec: (sql: string) => Promise<void>): Promise<void> {
  await exec(supabaseLikeSetup)
  for (const file of migrationFiles()) await exec(readFileSync(file, 'utf8'))
}

function postgresBinDir(): string | undefined {
  const base = '/usr/lib/postgresql'
  if (!existsSync(base)) return undefined
  const versions = readdirSync(base)
    .filter((v) => existsSync(path.join(base, v, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a))
  return versions[0] ? path.join(base, versions[0], 'bin') : undefined
}

function asPostgresUser(command: string, args: string[]): void {
  // initdb refuses to run as root; the cluster then belongs to the postgres system user.
  const isRoot = process.getuid?.() === 0
  const [cmd, argv] = isRoot ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, args]
  execFileSync(cmd, argv, { stdio: 'pipe' })
}

async function fromPool(
  kind: 'server' | 'external',
  url: string,
  stop: () => Promise<void>,
  empty = false,
): Promise<TestPostgres> {
  const pool = new pg.Pool({ connectionString: url, max: 10 })
  // An idle connection cut by the server stopping is not a test failure.
  pool.on('error', () => {})
  const exec = async (sql: string) => {
    await pool.query(sql)
  }
  if (!empty) await prepare(exec)
  return {
    kind,
    url,
    db: pool,
    exec,
    async session(fn) {
      const client = await pool.connect()
      try {
        return await fn(client)
      } finally {
        client.release()
      }
    },
    reset: () =>
      exec(
        'TRUNCATE public.outbox, public.leads, public.suppressions, public.sign_in_failures, public.sign_in_devices, public.visit_counts, public.announcements, public.announcement_gates RESTART IDENTITY CASCADE',
      ),
    async stop() {
      await pool.end()
      await stop()
    },
  }
}

/** Which Postgres startTestPostgres will give, known before starting it (for test names). */
export function plannedPostgresKind(): TestPostgres['kind'] {
  if (process.env.TEST_POSTGRES === 'pglite') return 'pglite'
  return process.env.DATABASE_URL ? 'external' : postgresBinDir() ? 'server' : 'pglite'
}

/**
 * With `empty`, a plain PostgreSQL (DATABASE_URL's server or a throwaway cluster, never PGlite) with neither the
 * Supabase roles nor the migrations: what `npm run db:migrate` meets on a database of one's own.
 * A real PostgreSQL: DATABASE_URL (a fresh database is made in it), else a throwaway cluster from the Debian
 * server binaries, else PGlite so the suite still runs on a machine without PostgreSQL (TEST_POSTGRES=pglite forces
 * it).
 */
export async function startTestPostgres(options: { empty?: boolean; durable?: boolean } = {}): Promise<TestPostgres> {
  const planned = options.empty ? (process.env.DATABASE_URL ? 'external' : 'server') : plannedPostgresKind()
  const external = process.env.DATABASE_URL
  if (planned === 'external' && external) {
    const name = `vip_test_${process.pid}_${Date.now()}`
    const admin = new pg.Client({ connectionString: external })
    await admin.connect()
    await admin.query(`CREATE DATABASE ${name}`)
    await admin.end()
    const url = new URL(external)
    url.pathname = `/${name}`
    return fromPool(
      'external',
      url.toString(),
      async () => {
        const drop = new pg.Client({ connectionString: external })
        await drop.connect()
        await drop.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
        await drop.end()
      },
      options.empty,
    )
  }

  const bin = postgresBinDir()
  if (planned === 'server' && bin) {
    const dir = mkdtempSync(path.join(tmpdir(), 'vip-pg-'))
    if (process.getuid?.() === 0) {
      const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim())
      const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim())
      chownSync(dir, uid, gid)
    }
    const data = path.join(dir, 'data')
    const port = await freePort()
    asPostgresUser(path.join(bin, 'initdb'), [
      '-D',
      data,
      '-U',
      'postgres',
      '-A',
      'trust',
      '-E',
      'UTF8',
      '--locale=C',
      '--no-sync',
    ])
    asPostgresUser(path.join(bin, 'pg_ctl'), [
      '-D',
      data,
      '-l',
      path.join(dir, 'log'),
      '-w',
      '-t',
      '30',
      '-o',
      // Tests need no durability (fsync off); a bench set beside SQLite's fsync'd commits does (durable: fsync on).
      `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=${options.durable ? 'on' : 'off'} -c max_connections=50`,
      'start',
    ])
    return fromPool(
      'server',
      `postgres://postgres@127.0.0.1:${port}/postgres`,
      async () => {
        // pg_ctl signals the postmaster by the pid in its postmaster.pid: our own server, nothing else.
        try {
          asPostgresUser(path.join(bin, 'pg_ctl'), ['-D', data, '-m', 'fast', '-w', 'stop'])
        } finally {
          rmSync(dir, { recursive: true, force: true })
        }
      },
      options.empty,
    )
  }
  if (options.empty)
    throw new Error(
      'An empty PostgreSQL needs the PostgreSQL server binaries (apt-get install postgresql) or DATABASE_URL.',
    )

  const { PGlite } = await import('@electric-sql/pglite')
  const lite = new PGlite()
  const exec = async (sql: string) => {
    await lite.exec(sql)
  }
  await prepare(exec)
  return {
    kind: 'pglite',
    url: undefined,
    db: lite,
    exec,
    // PGlite is a single session already.
    session: (fn) => fn(lite),
    reset: () =>
      exec(
        'TRUNCATE public.outbox, public.leads, public.suppressions, public.sign_in_failures, public.sign_in_devices, public.visit_counts, public.announcements, public.announcement_gates RESTART IDENTITY CASCADE',
      ),
    async stop() {
      await lite.close()
    },
  }
}
