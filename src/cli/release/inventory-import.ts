import { existsSync, mkdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import pg from 'pg'
import { readLaunchCatalog } from '../launch-catalog.ts'
import { checkInventoryCsv } from '../../server/release/inventory-csv.ts'
import { readErasureSettings, SettingsError } from '../../server/env.ts'
import { createPostgresRelease } from '../../server/store/postgres/postgres-release.ts'
import type { ReleaseStore } from '../../server/store/release.ts'
import { openSqliteRelease } from '../../server/store/sqlite/sqlite-release.ts'
import { openSqliteStore } from '../../server/store/sqlite/sqlite-store.ts'

/**
 * `npm run inventory:import -- --launch <name> file.csv`: a builder's price list into the launch's inventory (issue
 * 45), in DATA_DIR (SQLite) or PostgreSQL (DATABASE_URL or --database-url). Each refused row is named by its line and
 * column; the others are imported; the exit code is 1 when a row was refused. Allocated lots are never changed.
 */

const usage = `Usage: npm run inventory:import -- --launch NAME FILE.csv [--database-url URL]

Reads a price list (CSV; a spreadsheet saved as CSV) into the launch's inventory. The first line names the columns,
in any case and any order: lot (or unit, suite), models, price, and optionally release, frontage, status.
  models   one or more, separated by | or ; (Maple|Birch)
  price    whole dollars: 899900 or $899,900
  status   available, held, allocated or sold (empty: available)
A lot already there gets the file's price, status and details, unless it is allocated (then it is left as it is).
Reads DATA_DIR (default ./.data), or PostgreSQL with --database-url or DATABASE_URL.`

type Io = {
  env: Record<string, string | undefined>
  out: (line: string) => void
  err: (line: string) => void
}

type Args = { launch: string; file: string; databaseUrl: string | undefined }

/** The command's arguments, or the message saying what is missing. */
function readArgs(argv: string[], databaseUrl: string | undefined): Args | { message: string; code: number } {
  let launch: string | undefined
  let file: string | undefined
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    if (arg === '--help' || arg === '-h') return { message: usage, code: 0 }
    const [name, inline] = arg.split(/=(.*)/s)
    if (name === '--launch' || name === '--database-url') {
      const value = (inline ?? argv[++i])?.trim()
      if (!value) return { message: `${name} needs a value.\n\n${usage}`, code: 2 }
      if (name === '--launch') launch = value
      else databaseUrl = value
    } else if (arg.startsWith('-')) return { message: `Unknown option ${arg}.\n\n${usage}`, code: 2 }
    else if (file === undefined) file = arg
    else return { message: `Give one file; ${arg} is a second.\n\n${usage}`, code: 2 }
  }
  if (!launch) return { message: `Say which launch: --launch NAME.\n\n${usage}`, code: 2 }
  if (!file) return { message: `Give the price list's file.\n\n${usage}`, code: 2 }
  return { launch, file, databaseUrl }
}

/** The store to import into, and how to close it. */
async function openRelease(
  args: Args,
  dataDir: string,
): Promise<{ release: ReleaseStore; close: () => Promise<void>; where: string }> {
  if (args.databaseUrl) {
    const pool = new pg.Pool({ connectionString: args.databaseUrl, max: 1 })
    return { release: createPostgresRelease(pool), close: () => pool.end(), where: 'PostgreSQL' }
  }
  const file = path.join(path.resolve(dataDir), 'leads.sqlite')
  if (!existsSync(file)) {
    // A new data folder: the lead store makes the file and its tables, which the release's tables sit beside.
    mkdirSync(path.dirname(file), { recursive: true })
    await openSqliteStore(file, { defaultLaunch: args.launch }).close()
  }
  const release = openSqliteRelease(file)
  return { release, close: () => Promise.resolve(release.close()), where: path.resolve(dataDir) }
}

/** Runs the command; returns the exit code. */
export async function runInventoryImport(argv: string[], io: Io, now = () => new Date()): Promise<number> {
  let settings
  try {
    settings = readErasureSettings(io.env)
  } catch (error) {
    if (!(error instanceof SettingsError)) throw error
    io.err(error.message)
    return 2
  }
  const args = readArgs(argv, settings.databaseUrl)
  if ('message' in args) {
    if (args.code === 0) io.out(args.message)
    else io.err(args.message)
    return args.code
  }
  const slugs = readLaunchCatalog(process.cwd(), io.env).launches.map((l) => l.slug)
  if (!slugs.includes(args.launch)) {
    io.err(`There is no launch named ${args.launch}. The launches: ${slugs.join(', ') || 'none'}.`)
    return 2
  }
  let text: string
  try {
    text = readFileSync(args.file, 'utf8')
  } catch (error) {
    io.err(`Cannot read ${args.file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}.`)
    return 2
  }
  const checked = checkInventoryCsv(text)
  for (const p of checked.problems) io.err(`Line ${p.line}${p.column ? `, column ${p.column}` : ''}: ${p.message}`)
  const { release, close, where } = await openRelease(args, settings.dataDir)
  try {
    const counts = await release.importLots(args.launch, checked.lots, now().toISOString())
    io.out(
      `${args.launch} (${where}): ${counts.created} new, ${counts.changed} changed, ${counts.unchanged} unchanged` +
        (checked.problems.length > 0 ? `, ${checked.problems.length} refused` : '') +
        '.',
    )
    if (counts.keptAllocated.length > 0)
      io.out(`Left as they are, being allocated: ${counts.keptAllocated.join(', ')}.`)
    return checked.problems.length > 0 ? 1 : 0
  } catch (error) {
    io.err(`The import failed, nothing was changed: ${(error as Error).message}`)
    return 1
  } finally {
    await close()
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  process.exitCode = await runInventoryImport(process.argv.slice(2), {
    env: process.env,
    out: (line) => console.log(line),
    err: (line) => console.error(line),
  })
}
