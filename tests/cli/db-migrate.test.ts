import { execFile } from 'node:child_process'
import { cpSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  migrationFilesIn,
  recordMigration,
  splitStatements,
} from '../../src/server/store/postgres/postgres-migrations.ts'
import { startTestPostgres, type TestPostgres } from '../server/support/postgres.ts'

const root = path.resolve(import.meta.dirname, '../..')
const tsx = path.join(root, 'node_modules/.bin/tsx')
const script = path.join(root, 'src/cli/db/db-migrate.ts')
const migrations = migrationFilesIn(path.join(root, 'supabase/migrations'))

let server: TestPostgres
const urls: Record<string, string> = {}

/** Runs `npm run db:migrate` (its script) in `cwd` against `url`. */
function dbMigrate(url: string, cwd = root): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      tsx,
      [script, '--database-url', url],
      { cwd, env: { PATH: process.env.PATH ?? '' } },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    )
  })
}

async function withClient<T>(url: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return await fn(client)
  } finally {
    await client.end()
  }
}

/** The schema as pg_dump prints it, without its header lines (which name the server's version). */
function schemaOf(url: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('pg_dump', ['--schema-only', '--no-owner', '-d', url], { maxBuffer: 20_000_000 }, (error, stdout) =>
      error
        ? reject(error instanceof Error ? error : new Error('the command failed'))
        : resolve(
            stdout
              .split('\n')
              .filter(
                (line) =>
                  !line.startsWith('-- Dumped') && !line.startsWith('\\restrict') && !line.startsWith('\\unrestrict'),
              )
              .join('\n'),
          ),
    )
  })
}

const history = (url: string) =>
  withClient(
    url,
    async (c) =>
      (await c.query('SELECT version, name, statements FROM supabase_migrations.schema_migrations ORDER BY version'))
        .rows,
  )

beforeAll(async () => {
  server = await startTestPostgres({ empty: true })
  for (const name of ['fresh', 'previous', 'broken']) {
    await server.exec(`CREATE DATABASE ${name}`)
    const url = new URL(server.url!)
    url.pathname = `/${name}`
    urls[name] = url.toString()
  }
}, 60_000)
afterAll(() => server?.stop())

describe('npm run db:migrate', () => {
  it('brings a database SQLite-era code never touched and one made by the previous release to the same schema, and a second run applies nothing', async () => {
    const fresh = await dbMigrate(urls.fresh!)
    expect(fresh.stderr).toBe('')
    expect(fresh.code).toBe(0)
    expect(fresh.stdout).toContain('Made the role(s) anon, authenticated, service_role that Supabase has')
    expect(fresh.stdout).toContain(`0 of ${migrations.length} migration(s) already applied`)
    for (const m of migrations) expect(fresh.stdout).toContain(`Applied ${m.file}`)
    expect(fresh.stdout).toContain(`Done: applied ${migrations.length} migration(s)`)

    // The previous release: every file but the last three, applied and recorded as the Supabase CLI would.
    const older = migrations.slice(0, -3)
    await withClient(urls.previous!, async (client) => {
      for (const m of older) {
        const sql = readFileSync(m.path, 'utf8')
        await client.query('BEGIN')
        await client.query(sql)
        await client.query(`CREATE SCHEMA IF NOT EXISTS supabase_migrations;
          CREATE TABLE IF NOT EXISTS supabase_migrations.schema_migrations (version text NOT NULL PRIMARY KEY, statements text[], name text)`)
        await recordMigration(client, m, sql)
        await client.query('COMMIT')
      }
    })
    const upgrade = await dbMigrate(urls.previous!)
    expect(upgrade.code).toBe(0)
    expect(upgrade.stdout).not.toContain('Made the role')
    expect(upgrade.stdout).toContain(`${older.length} of ${migrations.length} migration(s) already applied`)
    for (const m of migrations.slice(-3)) expect(upgrade.stdout).toContain(`Applied ${m.file}`)
    for (const m of older) expect(upgrade.stdout).not.toContain(`Applied ${m.file}`)

    for (const url of [urls.fresh!, urls.previous!]) {
      const again = await dbMigrate(url)
      expect(again.code).toBe(0)
      expect(again.stdout).toContain(`${migrations.length} of ${migrations.length} migration(s) already applied`)
      expect(again.stdout).toContain('Nothing to apply: the database is up to date.')
      expect(again.stdout).not.toContain('Applied ')
    }
    const [a, b] = await Promise.all([schemaOf(urls.fresh!), schemaOf(urls.previous!)])
    expect(a).toContain('CREATE TABLE public.leads')
    expect(a).toContain('CREATE TABLE public.rate_limit_counts')
    expect(b).toBe(a)
    // The history as the CLI keeps it: version = the timestamp, name = the rest, the file's statements.
    const rows = await history(urls.fresh!)
    expect(rows.map((r) => [r.version, r.name])).toEqual(migrations.map((m) => [m.version, m.name]))
    expect(rows[0]!.statements.length).toBeGreaterThan(3)
    expect(rows[0]!.statements).toEqual(splitStatements(readFileSync(migrations[0]!.path, 'utf8')))
    // A DO block's inner semicolons, quotes and comments stay inside its statement.
    const roleFile = migrations.find((m) => m.name === 'lead_writer_role')!
    const doBlock = rows
      .find((r) => r.version === roleFile.version)!
      .statements.find((s: string) => /^do \$\$/im.test(s))
    expect(doBlock).toMatch(/^do \$\$\nbegin[\s\S]*create role lead_writer nologin noinherit;[\s\S]*\$\$$/m)
    expect(splitStatements('select \'a;b\'; -- c;\nselect $x$ ; $x$; /* ; */ select "d;"')).toEqual([
      "select 'a;b'",
      '-- c;\nselect $x$ ; $x$',
      '/* ; */ select "d;"',
    ])
    expect((await history(urls.previous!)).map((r) => [r.version, r.name])).toEqual(
      migrations.map((m) => [m.version, m.name]),
    )
  }, 120_000)

  it('names a failing file and the database message, rolls that file back and exits 1 without a stack trace', async () => {
    const project = mkdtempSync(path.join(tmpdir(), 'db-migrate-'))
    const dir = path.join(project, 'supabase/migrations')
    mkdirSync(dir, { recursive: true })
    for (const m of migrations.slice(0, 2)) cpSync(m.path, path.join(dir, m.file))
    writeFileSync(
      path.join(dir, '20990101000000_broken.sql'),
      'create table public.half_done (x int);\nselect no_such_column from public.leads;\n',
    )
    const run = await dbMigrate(urls.broken!, project)
    expect(run.code).toBe(1)
    expect(run.stdout).toContain(`Applied ${migrations[1]!.file}`)
    expect(run.stderr).toContain('Migration 20990101000000_broken.sql failed: column "no_such_column" does not exist')
    expect(run.stderr).toContain(
      'Nothing of 20990101000000_broken.sql was applied (it was rolled back); the files before it were.',
    )
    expect(run.stderr).not.toMatch(/\n\s+at /)
    const left = await withClient(urls.broken!, async (c) => ({
      table: (await c.query(`SELECT to_regclass('public.half_done') AS t`)).rows[0].t,
      versions: (await c.query('SELECT version FROM supabase_migrations.schema_migrations ORDER BY version')).rows.map(
        (r) => r.version,
      ),
    }))
    expect(left).toEqual({ table: null, versions: migrations.slice(0, 2).map((m) => m.version) })
  }, 60_000)
})
