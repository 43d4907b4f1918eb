import { createWriteStream, existsSync } from 'node:fs'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import pg from 'pg'
import { findLaunches, LaunchesError, pickLaunchSource, type LaunchSource } from '../config/launches.ts'
import { readExportSettings, SettingsError } from '../server/env.ts'
import { fieldsOfForms, writeLeadsCsv } from '../server/leads-page/leads-csv.ts'
import { createPostgresStore } from '../server/store/postgres/postgres-store.ts'
import { openSqliteStore } from '../server/store/sqlite/sqlite-store.ts'
import type { LeadStore, StoredLead } from '../server/store/store.ts'
import { noDefaultLaunch, readCatalogLaunch, slugOfSource } from './launch-catalog.ts'

/**
 * `npm run -s leads:export > leads.csv`: the leads of every launch (or of one, with --launch) as CSV (RFC 4180: CRLF
 * line ends, a header row, quotes where needed), with a launch column, read from DATA_DIR/leads.sqlite without
 * disturbing a running server, or from PostgreSQL with --database-url or DATABASE_URL (e.g. Supabase's connection
 * string). `-s` keeps npm's own banner out of the file.
 */

const usage = `Usage: npm run -s leads:export [-- options] > leads.csv

Writes the registrations of every launch as CSV to stdout, with a "launch" column saying which launch each came from.
  --launch NAME         only this launch's registrations (its folder name in launches/; the main page.config.json's
                        "launch": { "slug" } for the default launch)
  --output FILE         write to FILE instead of stdout
  --database-url URL    read from PostgreSQL (e.g. Supabase) instead of DATA_DIR; DATABASE_URL does the same
  --excel               start with a byte-order mark, so Excel reads accents correctly
Reads DATA_DIR (default ./.data); the launches and their form fields from page.config.json and launches/ (or
PAGE_CONFIG alone).`

/** Pages through every lead (of one launch, when given), in id order. */
async function* eachLead(store: LeadStore, launch: string | undefined): AsyncGenerator<StoredLead> {
  for (let after = 0; ;) {
    const page = await store.listLeads(after, 1000, launch)
    yield* page
    if (page.length === 0) return
    after = page.at(-1)!.id
  }
}

/**
 * Writes the leads in `store` (of one launch, when given) as CSV through `write`, in id order (see writeLeadsCsv).
 * Returns how many.
 */
export function exportLeads(
  store: LeadStore,
  formFields: string[],
  write: (chunk: string) => void | Promise<void>,
  launch?: string,
): Promise<number> {
  return writeLeadsCsv(
    () => eachLead(store, launch),
    formFields,
    write,
    (ids) => store.documentOpeningsOf(ids),
  )
}

/** The form fields of these launches' configs, in order; a config that cannot be used is noted and left out. */
function formFieldsOf(sources: LaunchSource[]): string[] {
  const forms = []
  for (const source of sources) {
    const read = readCatalogLaunch(source)
    if ('config' in read && read.config) forms.push(read.config.form)
    // The data matters more than the config: that launch's leads are exported in the data's own field order.
    else
      console.error(
        `Note: ${read.problem ?? 'A launch config cannot be used.'} Its leads are exported with the fields they hold.`,
      )
  }
  return fieldsOfForms(forms)
}

/**
 * The launch named on the command line, and the form fields to export: that launch's, found without checking any
 * other config; or a launch only the data still knows (its folder was removed), with the data's own fields. When
 * neither knows the name: the names there are.
 */
async function chosenLaunch(
  sources: LaunchSource[],
  store: LeadStore,
  slug: string,
): Promise<{ fields: string[] } | { known: string[] }> {
  try {
    return { fields: formFieldsOf([pickLaunchSource(sources, slug)]) }
  } catch (error) {
    if (!(error instanceof LaunchesError)) throw error
  }
  const stored = (await store.countLeadsByLaunch()).map((count) => count.launch)
  if (stored.includes(slug)) return { fields: [] }
  const named = sources.map(slugOfSource).filter((s): s is string => s !== undefined)
  return { known: [...new Set([...named, ...stored])] }
}

/** The command's options (--excel, --output, --database-url, --launch), or the exit code after help or a mistake. */
function parseExportArgs(argv: string[]): Map<string, string | true> | number {
  const args = new Map<string, string | true>()
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    if (arg === '--help' || arg === '-h') {
      console.log(usage)
      return 0
    }
    const [name, inline] = arg.split(/=(.*)/s)
    if (name === '--excel') args.set('excel', true)
    else if (name === '--output' || name === '--database-url' || name === '--launch') {
      const value = inline ?? argv[++i]
      if (!value) {
        console.error(`${name} needs a value.\n\n${usage}`)
        return 2
      }
      args.set(name.slice(2), value)
    } else {
      console.error(`Unknown option ${arg}.\n\n${usage}`)
      return 2
    }
  }
  return args
}

/**
 * The store to export from: PostgreSQL (--database-url or DATABASE_URL), else DATA_DIR's SQLite read-only; or exit 1.
 */
function openExportStore(
  args: Map<string, string | true>,
  dataDirSetting: string,
  defaultLaunch: string,
): LeadStore | number {
  const databaseUrl = args.get('database-url') ?? (process.env.DATABASE_URL?.trim() || undefined)
  if (typeof databaseUrl === 'string') {
    const pool = new pg.Pool({ connectionString: databaseUrl, max: 1 })
    return createPostgresStore(pool, { defaultLaunch, close: () => pool.end() })
  }
  const file = path.join(path.resolve(dataDirSetting), 'leads.sqlite')
  if (!existsSync(file)) {
    console.error(
      `No leads database at ${file}: check DATA_DIR (nothing has been registered yet if the server never ran there).`,
    )
    return 1
  }
  return openSqliteStore(file, { readonly: true, defaultLaunch })
}

async function main(argv: string[]): Promise<number> {
  let settings
  try {
    settings = readExportSettings(process.env)
  } catch (error) {
    if (!(error instanceof SettingsError)) throw error
    console.error(error.message)
    return 2
  }
  const args = parseExportArgs(argv)
  if (typeof args === 'number') return args

  const sources = findLaunches(process.cwd(), process.env)
  // Leads stored before launches were kept belong to the default launch: its config must say its name.
  const defaultLaunch = sources[0] && slugOfSource(sources[0])
  if (defaultLaunch === undefined) {
    console.error(noDefaultLaunch)
    return 1
  }

  const store = openExportStore(args, settings.dataDir, defaultLaunch)
  if (typeof store === 'number') return store

  const output = args.get('output')
  const stream = typeof output === 'string' ? createWriteStream(output) : process.stdout
  const write = (chunk: string) =>
    new Promise<void>((resolve, reject) => {
      stream.write(chunk, (error) => (error ? reject(error) : resolve()))
    })
  try {
    const launch = args.get('launch')
    let fields: string[]
    if (typeof launch === 'string') {
      const chosen = await chosenLaunch(sources, store, launch)
      if ('known' in chosen) {
        console.error(`There is no launch "${launch}" here. The launches are: ${chosen.known.join(', ')}.`)
        return 2
      }
      fields = chosen.fields
    } else {
      fields = formFieldsOf(sources)
    }
    if (args.get('excel')) await write('\uFEFF')
    const count = await exportLeads(store, fields, write, typeof launch === 'string' ? launch : undefined)
    if (stream !== process.stdout) await new Promise<void>((resolve) => stream.end(resolve))
    const of = typeof launch === 'string' ? ` of ${launch}` : ''
    console.error(
      `Exported ${count} lead${count === 1 ? '' : 's'}${of}${typeof output === 'string' ? ` to ${output}` : ''}.`,
    )
    return 0
  } catch (error) {
    // `| head` closes the pipe early: that is not a failure of the export.
    if ((error as NodeJS.ErrnoException).code === 'EPIPE') return 0
    // A database the launch migration has not reached yet (PostgreSQL: 42703, undefined column).
    if ((error as { code?: string }).code === '42703' && /launch/.test((error as Error).message)) {
      console.error(
        'Export failed: this database has no launch column yet. Apply the migrations in supabase/migrations (supabase db push), then export again.',
      )
      return 1
    }
    console.error(`Export failed: ${(error as Error).message}`)
    return 1
  } finally {
    await store.close()
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  process.exitCode = await main(process.argv.slice(2))
}
