import { createWriteStream, existsSync } from 'node:fs'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import pg from 'pg'
import { loadPageConfig } from '../config/load-page-config.ts'
import { readExportSettings, SettingsError } from '../server/env.ts'
import { writeLeadsCsv } from '../server/leads-csv.ts'
import { orderedFields } from '../server/notification.ts'
import { createPostgresStore } from '../server/postgres-store.ts'
import { openSqliteStore } from '../server/sqlite-store.ts'
import type { LeadStore, StoredLead } from '../server/store.ts'

/**
 * `npm run -s leads:export > leads.csv`: every lead as CSV (RFC 4180: CRLF line ends, a header row, quotes where
 * needed), read from DATA_DIR/leads.sqlite without disturbing a running server, or from PostgreSQL with
 * --database-url (e.g. Supabase's connection string). `-s` keeps npm's own banner out of the file.
 */

const usage = `Usage: npm run -s leads:export [-- options] > leads.csv

Writes every registration as CSV to stdout.
  --output FILE         write to FILE instead of stdout
  --database-url URL    read from PostgreSQL (e.g. Supabase) instead of DATA_DIR
  --excel               start with a byte-order mark, so Excel reads accents correctly
Reads DATA_DIR (default ./.data) and the field order from PAGE_CONFIG (default ./page.config.json).`

/** Pages through every lead, in id order. */
async function* eachLead(store: LeadStore): AsyncGenerator<StoredLead> {
  for (let after = 0; ; ) {
    const page = await store.listLeads(after, 1000)
    yield* page
    if (page.length === 0) return
    after = page.at(-1)!.id
  }
}

/** Writes every lead in `store` as CSV through `write`, in id order (see writeLeadsCsv). Returns how many. */
export function exportLeads(store: LeadStore, formFields: string[], write: (chunk: string) => void | Promise<void>): Promise<number> {
  return writeLeadsCsv(() => eachLead(store), formFields, write)
}

function formFieldsFromConfig(configFile: string): string[] {
  try {
    return orderedFields(loadPageConfig(configFile).form)
  } catch (error) {
    // The data matters more than the config: export in the data's own field order.
    console.error(`Note: page config not usable (${(error as Error).message.split('\n')[0]}); columns follow the stored data.`)
    return []
  }
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
  const args = new Map<string, string | true>()
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    if (arg === '--help' || arg === '-h') {
      console.log(usage)
      return 0
    }
    const [name, inline] = arg.split(/=(.*)/s)
    if (name === '--excel') args.set('excel', true)
    else if (name === '--output' || name === '--database-url') {
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

  let store: LeadStore
  const databaseUrl = args.get('database-url')
  if (typeof databaseUrl === 'string') {
    const pool = new pg.Pool({ connectionString: databaseUrl, max: 1 })
    store = createPostgresStore(pool, { close: () => pool.end() })
  } else {
    const dataDir = path.resolve(settings.dataDir)
    const file = path.join(dataDir, 'leads.sqlite')
    if (!existsSync(file)) {
      console.error(`No leads database at ${file}: check DATA_DIR (nothing has been registered yet if the server never ran there).`)
      return 1
    }
    store = openSqliteStore(file, { readonly: true })
  }

  const output = args.get('output')
  const stream = typeof output === 'string' ? createWriteStream(output) : process.stdout
  const write = (chunk: string) =>
    new Promise<void>((resolve, reject) => {
      stream.write(chunk, (error) => (error ? reject(error) : resolve()))
    })
  try {
    if (args.get('excel')) await write('\uFEFF')
    const count = await exportLeads(store, formFieldsFromConfig(path.resolve(settings.pageConfig)), write)
    if (stream !== process.stdout) await new Promise<void>((resolve) => stream.end(resolve))
    console.error(`Exported ${count} lead${count === 1 ? '' : 's'}${typeof output === 'string' ? ` to ${output}` : ''}.`)
    return 0
  } catch (error) {
    // `| head` closes the pipe early: that is not a failure of the export.
    if ((error as NodeJS.ErrnoException).code === 'EPIPE') return 0
    console.error(`Export failed: ${(error as Error).message}`)
    return 1
  } finally {
    await store.close()
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  process.exitCode = await main(process.argv.slice(2))
}
