import { existsSync, readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import Database from 'better-sqlite3'
import pg from 'pg'
import { defaultLaunchSlug } from './launch-catalog.ts'
import { readErasureSettings, SettingsError } from '../server/env.ts'
import { countPostgresSearchesFor } from '../server/leads-page/postgres-sessions.ts'
import { createPostgresStore } from '../server/store/postgres/postgres-store.ts'
import { openSqliteStore } from '../server/store/sqlite/sqlite-store.ts'
import type { LeadStore, MessageState, StoredLead } from '../server/store/store.ts'
import { createPostgresRelease } from '../server/store/postgres/postgres-release.ts'
import type { ReleaseStore, StoredWorksheet } from '../server/store/release.ts'
import { openSqliteRelease } from '../server/store/sqlite/sqlite-release.ts'

/**
 * `npm run leads:access -- --email ADDRESS`: everything this program holds about one person (PIPEDA's right of
 * access), where `npm run leads:erase` removes it: their registrations with every field and piece of evidence, the
 * state of each message sent about them, the .eml copies naming them, and searches for their address saved on the
 * leads page. Read-only; prints JSON to stdout, to hand to the person.
 */

const usage = `Usage: npm run leads:access -- --email ADDRESS [--database-url URL]

Prints, as JSON, everything held about the person with this e-mail address (any letter case): their registrations,
the state of each message about them, the .eml copies naming them and the leads page's saved searches for them.
  --database-url URL    read PostgreSQL (e.g. Supabase) instead of DATA_DIR; DATABASE_URL works too
Reads DATA_DIR (default ./.data); changes nothing.`

type Io = { env: Record<string, string | undefined>; out(line: string): void; err(line: string): void }

/** What is held about one person, as printed. */
export type AccessReport = {
  email: string
  registrations: Array<StoredLead & { messages: Array<Omit<MessageState, 'leadId'>> }>
  emlCopies: string[]
  savedSearches: number
  /** The worksheets naming them as the client (issue 45), and those they sent as a realtor. */
  worksheets: StoredWorksheet[]
  worksheetsSent: StoredWorksheet[]
}

async function leadsOf(store: LeadStore, email: string): Promise<StoredLead[]> {
  const wanted = email.trim().toLowerCase()
  const found: StoredLead[] = []
  for (let after = 0; ;) {
    const page = await store.listLeads(after, 500)
    if (page.length === 0) return found
    for (const lead of page)
      if (typeof lead.fields.email === 'string' && lead.fields.email.trim().toLowerCase() === wanted) found.push(lead)
    after = page.at(-1)!.id
  }
}

/** The .eml (and half-written) files in `dir` that name the address. */
function emlCopiesOf(dir: string, email: string): string[] {
  if (!existsSync(dir)) return []
  const needle = email.trim().toLowerCase()
  return readdirSync(dir)
    .filter(
      (name) =>
        (name.endsWith('.eml') || name.endsWith('.tmp')) &&
        readFileSync(path.join(dir, name), 'utf8').toLowerCase().includes(needle),
    )
    .sort()
}

/** How many of the leads page's sessions hold a search for the address. */
function savedSearchesOf(file: string, email: string): number {
  if (!existsSync(file)) return 0
  const db = new Database(file, { readonly: true, fileMustExist: true })
  try {
    const row = db
      .prepare<[string], { n: number }>(
        `SELECT count(*) AS n FROM sessions WHERE instr(lower(json_extract(filter, '$.text')), lower(?)) > 0`,
      )
      .get(email.trim())
    return row?.n ?? 0
  } finally {
    db.close()
  }
}

/** Runs the command; returns the exit code. */
export async function runLeadsAccess(argv: string[], io: Io): Promise<number> {
  let settings
  try {
    settings = readErasureSettings(io.env)
  } catch (error) {
    if (!(error instanceof SettingsError)) throw error
    io.err(error.message)
    return 2
  }
  let email: string | undefined
  let databaseUrl = settings.databaseUrl
  for (let i = 0; i < argv.length; i++) {
    const [name, inline] = argv[i]!.split(/=(.*)/s)
    if (name === '--help' || name === '-h') {
      io.out(usage)
      return 0
    }
    if (name !== '--email' && name !== '--database-url') {
      io.err(`Unknown option ${argv[i]}.\n\n${usage}`)
      return 2
    }
    const value = (inline ?? argv[++i])?.trim()
    if (!value) {
      io.err(`${name} needs a value.\n\n${usage}`)
      return 2
    }
    if (name === '--database-url') databaseUrl = value
    else email = value
  }
  if (!email || !email.includes('@')) {
    io.err(`Say whose data to print: --email needs an e-mail address.\n\n${usage}`)
    return 2
  }
  const dataDir = path.resolve(settings.dataDir)
  const defaultLaunch = defaultLaunchSlug(process.cwd(), io.env) ?? 'default'
  let store: LeadStore
  let release: ReleaseStore & { close?: () => void }
  let pool: pg.Pool | undefined
  if (databaseUrl) {
    const own = new pg.Pool({ connectionString: databaseUrl, max: 1 })
    pool = own
    store = createPostgresStore(own, { defaultLaunch, close: () => own.end() })
    release = createPostgresRelease(own)
  } else {
    const file = path.join(dataDir, 'leads.sqlite')
    if (!existsSync(file)) {
      io.err(`No leads database at ${file}: check DATA_DIR.`)
      return 1
    }
    store = openSqliteStore(file, { readonly: true, defaultLaunch })
    release = openSqliteRelease(file, { readonly: true })
  }
  try {
    const registrations = []
    for (const lead of await leadsOf(store, email)) {
      const messages = (await store.listMessages({ leadId: lead.id, limit: 100 })).map(
        ({ leadId: _lead, ...state }) => state,
      )
      registrations.push({ ...lead, messages })
    }
    const report: AccessReport = {
      email,
      registrations,
      emlCopies: databaseUrl ? [] : emlCopiesOf(path.join(dataDir, 'outbox'), email),
      // The leads page's sessions: DATA_DIR's file, and PostgreSQL's table when the server keeps them there.
      savedSearches:
        savedSearchesOf(path.join(dataDir, 'leads-page.sqlite'), email) +
        (pool ? await countPostgresSearchesFor(pool, email) : 0),
      worksheets: await release.worksheetsOfClient(email),
      worksheetsSent: (await Promise.all(registrations.map((l) => release.listWorksheets(l.launch, l.id)))).flat(),
    }
    io.out(JSON.stringify(report, null, 2))
    return 0
  } catch (error) {
    io.err(`The data could not be read: ${(error as Error).message}`)
    return 1
  } finally {
    release.close?.()
    await store.close()
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  process.exitCode = await runLeadsAccess(process.argv.slice(2), {
    env: process.env,
    out: (line) => console.log(line),
    err: (line) => console.error(line),
  })
}
