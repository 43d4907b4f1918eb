import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import type { SqlQueryable } from './postgres-store.ts'

/**
 * The migrations of supabase/migrations and the record of which were applied, kept as the Supabase CLI keeps it
 * (supabase_migrations.schema_migrations: version = the file's timestamp prefix, name = the rest of its name,
 * statements = its statements), so `npm run db:migrate` and `npx supabase db push` can follow each other.
 */

/** One migration file. */
export type MigrationFile = { file: string; version: string; name: string; path: string }

/** The .sql files of `dir`, in the order they apply (their timestamp prefix). */
export function migrationFilesIn(dir: string): MigrationFile[] {
  return readdirSync(dir)
    .filter((file) => /^\d+_.*\.sql$/.test(file))
    .sort()
    .map((file) => {
      const [, version, name] = /^(\d+)_(.*)\.sql$/.exec(file)!
      return { file, version: version!, name: name!, path: path.join(dir, file) }
    })
}

// The Supabase CLI's own history table (its pkg/migration/history.go), made the way it makes it.
const historyTable = `
CREATE SCHEMA IF NOT EXISTS supabase_migrations;
CREATE TABLE IF NOT EXISTS supabase_migrations.schema_migrations (version text NOT NULL PRIMARY KEY);
ALTER TABLE supabase_migrations.schema_migrations ADD COLUMN IF NOT EXISTS statements text[];
ALTER TABLE supabase_migrations.schema_migrations ADD COLUMN IF NOT EXISTS name text;
`

/** Makes the history table if it is missing. */
export async function ensureHistoryTable(db: SqlQueryable): Promise<void> {
  await db.query(historyTable)
}

/** The versions recorded as applied (none when the history table does not exist yet). */
export async function appliedVersions(db: SqlQueryable): Promise<Set<string>> {
  const { rows } = await db.query(`SELECT to_regclass('supabase_migrations.schema_migrations') IS NOT NULL AS present`)
  if (!(rows[0] as { present: boolean }).present) return new Set()
  const applied = await db.query('SELECT version FROM supabase_migrations.schema_migrations')
  return new Set((applied.rows as Array<{ version: string }>).map((row) => row.version))
}

/** Records a file as applied, with its statements, as the CLI does after running it. */
export async function recordMigration(db: SqlQueryable, migration: MigrationFile, sql: string): Promise<void> {
  await db.query('INSERT INTO supabase_migrations.schema_migrations (version, name, statements) VALUES ($1, $2, $3)', [
    migration.version,
    migration.name,
    splitStatements(sql),
  ])
}

/** The files of `dir` the database has not recorded as applied. */
export async function missingMigrations(db: SqlQueryable, dir: string): Promise<MigrationFile[]> {
  const applied = await appliedVersions(db)
  return migrationFilesIn(dir).filter((migration) => !applied.has(migration.version))
}

/** Reads a migration's text. */
export const migrationText = (migration: MigrationFile) => readFileSync(migration.path, 'utf8')

/**
 * Splits SQL into its statements at semicolons outside quotes, quoted names, dollar-quoted bodies and comments;
 * each statement without its semicolon, comments kept, empty ones dropped.
 */
export function splitStatements(sql: string): string[] {
  const statements: string[] = []
  let start = 0
  let i = 0
  const push = (end: number) => {
    const text = sql.slice(start, end).trim()
    if (text.replace(/--[^\n]*|\/\*[\s\S]*?\*\//g, '').trim() !== '') statements.push(text)
  }
  while (i < sql.length) {
    const ch = sql[i]!
    if (ch === '-' && sql[i + 1] === '-') {
      const end = sql.indexOf('\n', i)
      i = end === -1 ? sql.length : end + 1
    } else if (ch === '/' && sql[i + 1] === '*') {
      const end = sql.indexOf('*/', i + 2)
      i = end === -1 ? sql.length : end + 2
    } else if (ch === "'" || ch === '"') {
      let j = i + 1
      // A doubled quote is the quote itself.
      while (j < sql.length && !(sql[j] === ch && sql[j + 1] !== ch)) j += sql[j] === ch ? 2 : 1
      i = j + 1
    } else if (ch === '$') {
      const tag = /^\$[A-Za-z_]*\$/.exec(sql.slice(i))?.[0]
      if (tag) {
        const end = sql.indexOf(tag, i + tag.length)
        i = end === -1 ? sql.length : end + tag.length
      } else i += 1
    } else if (ch === ';') {
      push(i)
      i += 1
      start = i
    } else i += 1
  }
  push(sql.length)
  return statements
}
