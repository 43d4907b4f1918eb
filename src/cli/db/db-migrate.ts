import path from 'node:path'
import { pathToFileURL } from 'node:url'
import pg from 'pg'
import {
  appliedVersions,
  ensureHistoryTable,
  migrationFilesIn,
  migrationText,
  recordMigration,
} from '../../server/store/postgres/postgres-migrations.ts'

/**
 * `npm run db:migrate`: applies supabase/migrations/*.sql in order to the PostgreSQL at DATABASE_URL (or
 * --database-url), each file in its own transaction, recording each in supabase_migrations.schema_migrations as the
 * Supabase CLI does, so this and `npx supabase db push` can follow each other. Skips what is recorded; says what it
 * applied and what was there. On a plain PostgreSQL it first makes the roles Supabase has (the migrations name them).
 * A failing file is rolled back and named, with the database's message; exit 1.
 */

const usage = `Usage: npm run db:migrate [-- --database-url postgresql://user:password@host:5432/postgres]

Applies the migrations in supabase/migrations that the database has not recorded, in order, each in its own
transaction, and records them as npx supabase db push does. DATABASE_URL works instead of --database-url. Connect as
the tables' owner (on Supabase: the postgres user of the connection string Dashboard → Connect shows).`

// The roles a Supabase project has and the migrations grant to or take back from: a plain PostgreSQL gets them too.
const supabaseRoles = ['anon', 'authenticated', 'service_role']

/** Makes the Supabase roles that are missing; returns the names made. */
async function ensureSupabaseRoles(client: pg.Client): Promise<string[]> {
  const { rows } = await client.query<{ rolname: string }>('SELECT rolname FROM pg_roles WHERE rolname = ANY($1)', [
    supabaseRoles,
  ])
  const missing = supabaseRoles.filter((role) => !rows.some((row) => row.rolname === role))
  for (const role of missing) await client.query(`CREATE ROLE ${role} NOLOGIN NOINHERIT`)
  return missing
}

/** Applies what is missing; returns the exit code. Output goes to `log` (plain lines) and `fail` (the problem). */
export async function migrateDatabase(
  databaseUrl: string,
  dir: string,
  out: { log(line: string): void; fail(line: string): void } = {
    log: (l) => console.log(l),
    fail: (l) => console.error(l),
  },
): Promise<number> {
  const client = new pg.Client({ connectionString: databaseUrl })
  client.on('error', () => {})
  try {
    await client.connect()
  } catch (error) {
    out.fail(
      `Cannot connect to the database at DATABASE_URL: ${(error as Error).message}. Check the address, the password and that the server is running.`,
    )
    return 1
  }
  const where = (() => {
    const url = new URL(databaseUrl)
    return `${url.hostname}${url.port ? `:${url.port}` : ''}${url.pathname}`
  })()
  try {
    // Two runs at once (two servers' deploy steps) take turns: the second then finds everything applied.
    await client.query(`SELECT pg_advisory_lock(hashtext('vip-launch-site db:migrate'))`)
    const files = migrationFilesIn(dir)
    try {
      const made = await ensureSupabaseRoles(client)
      if (made.length > 0)
        out.log(
          `Made the role(s) ${made.join(', ')} that Supabase has and the migrations name (this PostgreSQL had none).`,
        )
    } catch (error) {
      out.fail(
        `The roles anon, authenticated and service_role are missing and cannot be made: ${(error as Error).message}. Connect as a user that may create roles, or create them first.`,
      )
      return 1
    }
    await ensureHistoryTable(client)
    const applied = await appliedVersions(client)
    const already = files.filter((file) => applied.has(file.version))
    const todo = files.filter((file) => !applied.has(file.version))
    out.log(`Database ${where}: ${already.length} of ${files.length} migration(s) already applied.`)
    for (const migration of todo) {
      const sql = migrationText(migration)
      try {
        await client.query('BEGIN')
        await client.query(sql)
        await recordMigration(client, migration, sql)
        await client.query('COMMIT')
      } catch (error) {
        await client.query('ROLLBACK').catch(() => {})
        out.fail(
          `Migration ${migration.file} failed: ${(error as Error).message}\n` +
            `Nothing of ${migration.file} was applied (it was rolled back)${todo.indexOf(migration) > 0 ? '; the files before it were' : ''}. Fix the cause and run npm run db:migrate again.`,
        )
        return 1
      }
      out.log(`Applied ${migration.file}`)
    }
    out.log(
      todo.length === 0
        ? 'Nothing to apply: the database is up to date.'
        : `Done: applied ${todo.length} migration(s); the database is up to date.`,
    )
    return 0
  } catch (error) {
    out.fail(`The migrations could not be applied: ${(error as Error).message}`)
    return 1
  } finally {
    await client.end().catch(() => {})
  }
}

async function main(argv: string[]): Promise<number> {
  if (argv.includes('--help')) {
    console.log(usage)
    return 0
  }
  const at = argv.findIndex((a) => a === '--database-url' || a.startsWith('--database-url='))
  const given = at === -1 ? undefined : argv[at]!.includes('=') ? argv[at]!.split(/=(.*)/s)[1] : argv[at + 1]
  const databaseUrl = given?.trim() || process.env.DATABASE_URL?.trim()
  if (!databaseUrl) {
    console.error(`DATABASE_URL is not set: say which PostgreSQL to migrate.\n\n${usage}`)
    return 2
  }
  if (!URL.canParse(databaseUrl) || !/^postgres(ql)?:$/.test(new URL(databaseUrl).protocol)) {
    console.error('DATABASE_URL must be a PostgreSQL address, such as postgresql://user:password@host:5432/postgres.')
    return 2
  }
  return migrateDatabase(databaseUrl, path.resolve('supabase/migrations'))
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const code = await main(process.argv.slice(2))
  process.exit(code)
}
