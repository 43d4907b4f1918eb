import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import Database from 'better-sqlite3'
import { createPostgresStore, type SqlQueryable } from '../../../src/server/store/postgres/postgres-store.ts'
import { withNamedStatements, type NamingClient } from '../../../src/server/store/postgres/postgres-named.ts'
import { openSqliteStore } from '../../../src/server/store/sqlite/sqlite-store.ts'
import type { LeadStore } from '../../../src/server/store/store.ts'
import { defaultLaunch } from './fixtures.ts'
import { plannedPostgresKind, startTestPostgres, type TestPostgres } from './postgres.ts'

/**
 * One store contract, two backends: a SQLite file in a temp dir and a real PostgreSQL with the migrations
 * (startTestPostgres). `fresh` opens an empty store, `reopen` another store on the same data (a restart, or a
 * second server on one database). Use with `describe.each(backendsOf(...))`.
 */
export type Backend<A extends unknown[], T> = {
  name: string
  kind: 'sqlite' | 'postgres'
  setup(): Promise<void>
  fresh(...args: A): Promise<T>
  reopen(...args: A): Promise<T>
  /** The SQLite file of the last fresh store. */
  file(): string
  /** The PostgreSQL under test. */
  postgres(): TestPostgres
  teardown(): Promise<void>
}

/**
 * Both backends of a store: `sqlite` opens a file, `postgres` wraps the database; `tables` are emptied for each fresh
 * store.
 */
export function backendsOf<A extends unknown[], T>(open: {
  sqlite: (file: string, ...args: A) => T
  postgres: (db: SqlQueryable, ...args: A) => T
  tables: string[]
}): Array<Backend<A, T>> {
  let dir = ''
  let file = ''
  let pg: TestPostgres | undefined
  const notHere = (what: string) => () => {
    throw new Error(`${what} is not part of this backend.`)
  }
  const sqlite: Backend<A, T> = {
    name: 'SQLite on disk',
    kind: 'sqlite',
    async setup() {
      dir = mkdtempSync(path.join(tmpdir(), 'vip-backend-'))
    },
    async fresh(...args) {
      file = path.join(dir, `${crypto.randomUUID()}.sqlite`)
      return open.sqlite(file, ...args)
    },
    async reopen(...args) {
      return open.sqlite(file, ...args)
    },
    file: () => file,
    postgres: notHere('PostgreSQL'),
    async teardown() {
      rmSync(dir, { recursive: true, force: true })
    },
  }
  const postgres: Backend<A, T> = {
    name: `PostgreSQL (${plannedPostgresKind()})`,
    kind: 'postgres',
    async setup() {
      pg = await startTestPostgres()
    },
    async fresh(...args) {
      await pg!.exec(`TRUNCATE ${open.tables.map((t) => `public.${t}`).join(', ')} RESTART IDENTITY CASCADE`)
      return open.postgres(pg!.db, ...args)
    },
    async reopen(...args) {
      return open.postgres(pg!.db, ...args)
    },
    file: notHere('A SQLite file'),
    postgres: () => pg!,
    async teardown() {
      await pg?.stop()
    },
  }
  return [sqlite, postgres]
}

/** The LeadStore on both backends (the default launch as the tests' fixtures name it), emptied for each fresh store. */
export function leadStoreBackends(): Array<Backend<[], LeadStore>> {
  return backendsOf<[], LeadStore>({
    sqlite: (file) => openSqliteStore(file, { defaultLaunch }),
    // As the Node server opens it: the statements of every registration named (postgres-named.ts; PGlite has none).
    postgres: (db) =>
      createPostgresStore(plannedPostgresKind() === 'pglite' ? db : withNamedStatements(db as NamingClient), {
        defaultLaunch,
      }),
    tables: ['outbox', 'leads', 'suppressions', 'sign_in_failures', 'sign_in_devices', 'visit_counts'],
  })
}

/**
 * Runs one statement on the backend's database outside the store, as an operator's tool would (`?` placeholders;
 * table names without a schema, PostgreSQL's search path finds them in public). Resolves or rejects as the database
 * does.
 */
export async function runSql(backend: Backend<unknown[], unknown>, sql: string, params: unknown[] = []): Promise<void> {
  if (backend.kind === 'postgres') {
    let n = 0
    await backend.postgres().db.query(
      sql.replace(/\?/g, () => `$${++n}`),
      params,
    )
    return
  }
  const db = new Database(backend.file())
  try {
    db.prepare(sql).run(...params)
  } finally {
    db.close()
  }
}
