import { existsSync } from 'node:fs'
import path from 'node:path'
import { createInterface } from 'node:readline/promises'
import { pathToFileURL } from 'node:url'
import pg from 'pg'
import { defaultLaunchSlug } from './launch-catalog.ts'
import { removeEmlCopies } from '../server/delivery/eml-mailer.ts'
import { eraseEverywhere } from '../server/store/erasure.ts'
import { createPostgresStore } from '../server/store/postgres/postgres-store.ts'
import { readOrCreateSecret } from '../server/store/private-files.ts'
import { openSqliteStore } from '../server/store/sqlite/sqlite-store.ts'
import type { LeadSelector, LeadStore } from '../server/store/store.ts'
import { createPostgresRelease } from '../server/store/postgres/postgres-release.ts'
import type { ReleaseStore } from '../server/store/release.ts'
import { openSqliteRelease } from '../server/store/sqlite/sqlite-release.ts'
import { addressKeyOf } from '../server/store/suppression.ts'
import { erasePostgresSearchesFor } from '../server/leads-page/postgres-sessions.ts'
import { eraseSearchesFor } from '../server/leads-page/sessions.ts'
import { readErasureSettings, SettingsError } from '../server/env.ts'

/**
 * `npm run leads:erase -- --email ADDRESS` (or `--id SUBMISSION_ID`): a person's right to be forgotten. Removes
 * their leads, their notifications and any .eml copies, from DATA_DIR (SQLite) or PostgreSQL (DATABASE_URL or
 * --database-url). Prints counts, never the data; asks before erasing unless --yes.
 */

const usage = `Usage: npm run leads:erase -- (--email ADDRESS | --id SUBMISSION_ID) [--yes] [--database-url URL]

Erases every registration of a person, with its messages (notifications, replies, webhook calls) and their .eml copies.
  --email ADDRESS       every registration made with this e-mail address (any letter case)
  --id SUBMISSION_ID    one registration, by its submission id (the submission_id column of the export)
  --yes                 do not ask for confirmation (needed when not run from a terminal)
  --database-url URL    erase from PostgreSQL (e.g. Supabase) instead of DATA_DIR; DATABASE_URL works too
Reads DATA_DIR (default ./.data). A person who had withdrawn consent stays withdrawn: the keyed hash of the address
is kept (DATA_DIR/suppression.key, or SUPPRESSION_SECRET with PostgreSQL).`

type Io = {
  env: Record<string, string | undefined>
  isTTY: boolean
  ask(question: string): Promise<string>
  out(line: string): void
  err(line: string): void
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`
}

/** Runs the command; returns the exit code. */
export async function runLeadsErase(argv: string[], io: Io): Promise<number> {
  let selector: LeadSelector | undefined
  let yes = false
  let settings
  try {
    settings = readErasureSettings(io.env)
  } catch (error) {
    if (!(error instanceof SettingsError)) throw error
    io.err(error.message)
    return 2
  }
  let databaseUrl = settings.databaseUrl
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    if (arg === '--help' || arg === '-h') {
      io.out(usage)
      return 0
    }
    const [name, inline] = arg.split(/=(.*)/s)
    if (name === '--yes' || name === '-y') {
      yes = true
      continue
    }
    if (name !== '--email' && name !== '--id' && name !== '--database-url') {
      io.err(`Unknown option ${arg}.\n\n${usage}`)
      return 2
    }
    const value = (inline ?? argv[++i])?.trim()
    if (!value) {
      io.err(`${name} needs a value.\n\n${usage}`)
      return 2
    }
    if (name === '--database-url') databaseUrl = value
    else if (selector) {
      io.err(`Give one of --email or --id, once.\n\n${usage}`)
      return 2
    } else if (name === '--email') {
      if (!value.includes('@')) {
        io.err('--email needs an e-mail address.')
        return 2
      }
      selector = { email: value }
    } else {
      if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value)) {
        io.err(
          '--id needs a submission id, e.g. 3f2b8c1e-9d4a-4f6b-8a2c-1e5d7b9f0a3c (the submission_id column of the export).',
        )
        return 2
      }
      selector = { submissionId: value }
    }
  }
  if (!selector) {
    io.err(`Say whose registrations to erase.\n\n${usage}`)
    return 2
  }

  // An erasure lists no lead, so it never reads a lead's launch: it needs no usable config, only a name to give.
  const defaultLaunch = defaultLaunchSlug(process.cwd(), io.env) ?? 'default'
  let store: LeadStore
  let release: ReleaseStore & { close?: () => void }
  let pool: pg.Pool | undefined
  let secret: () => string
  let emlDir: string | undefined
  let where: string
  // The leads page keeps its sessions (and the searches typed in them) in DATA_DIR, or with DATABASE_URL in PostgreSQL:
  // both are cleaned, as a file from before the move to PostgreSQL may still hold searches.
  const sessionsFile = path.join(path.resolve(settings.dataDir), 'leads-page.sqlite')
  if (databaseUrl) {
    const own = new pg.Pool({ connectionString: databaseUrl, max: 1 })
    pool = own
    store = createPostgresStore(own, { defaultLaunch, close: () => own.end() })
    release = createPostgresRelease(own)
    secret = () => {
      const value = settings.suppressionSecret
      if (!value) {
        throw new Error(
          'This person had withdrawn consent, so their address must stay on the suppression list, which needs SUPPRESSION_SECRET ' +
            '(the same long random value every time, e.g. from `openssl rand -hex 32`, kept outside the database). Set it and run again; nothing was erased.',
        )
      }
      return value
    }
    where = 'PostgreSQL'
  } else {
    const dataDir = path.resolve(settings.dataDir)
    const file = path.join(dataDir, 'leads.sqlite')
    if (!existsSync(file)) {
      io.err(`No leads database at ${file}: check DATA_DIR.`)
      return 1
    }
    store = openSqliteStore(file, { defaultLaunch })
    release = openSqliteRelease(file)
    secret = () => readOrCreateSecret(path.join(dataDir, 'suppression.key'))
    emlDir = path.join(dataDir, 'outbox')
    where = dataDir
  }

  try {
    const found = await store.countErasable(selector)
    // A client named on a realtor's worksheet may never have registered: their worksheets are theirs all the same.
    const worksheets = 'email' in selector ? (await release.worksheetsOfClient(selector.email)).length : 0
    const whom = 'email' in selector ? 'this e-mail address' : 'this submission id'
    // A search for the address on the leads page is a copy of it too, whether or not any lead is left.
    const eraseSearches = async () => {
      if (!('email' in selector)) return
      const searches =
        (await eraseSearchesFor(sessionsFile, selector.email)) +
        (pool ? await erasePostgresSearchesFor(pool, selector.email) : 0)
      if (searches > 0) io.out(`Removed the address from ${plural(searches, 'search', 'searches')} of the leads page.`)
    }
    if (found.leads === 0 && worksheets > 0 && 'email' in selector) {
      if (!yes && !io.isTTY) {
        io.err('Not erasing: there is no terminal to confirm on. Run it again with --yes to erase without asking.')
        return 1
      }
      const erased = await release.eraseWorksheetsOfClient(selector.email)
      io.out(`No registrations for ${whom} in ${where}. Erased ${plural(erased, 'worksheet')} naming this client.`)
      return 0
    }
    if (found.leads === 0) {
      io.out(`No registrations for ${whom} in ${where}: nothing to erase.`)
      await eraseSearches()
      // Copies of messages may outlive their lead (an earlier, interrupted erasure): remove those as well.
      if (emlDir && 'email' in selector) {
        const removed = await removeEmlCopies(emlDir, [], selector.email)
        if (removed > 0) io.out(`Removed ${plural(removed, 'left-over .eml file')}.`)
      }
      return 0
    }
    io.out(
      `Found ${plural(found.leads, 'registration')} and ${plural(found.messages, 'message')} for ${whom} in ${where}.`,
    )
    if (!yes) {
      if (!io.isTTY) {
        io.err('Not erasing: there is no terminal to confirm on. Run it again with --yes to erase without asking.')
        return 1
      }
      const answer = (await io.ask('Erase them for good? This cannot be undone. Type yes to erase: '))
        .trim()
        .toLowerCase()
      if (answer !== 'yes' && answer !== 'y') {
        io.out('Nothing erased.')
        return 1
      }
    }
    const copiesDir = emlDir
    const removeCopies = copiesDir
      ? (ids: string[], address: string | undefined) => removeEmlCopies(copiesDir, ids, address)
      : undefined
    const report = await eraseEverywhere(
      { store, keyOf: async (email) => addressKeyOf(secret(), email), removeCopies },
      selector,
    )
    await eraseSearches()
    const erasedWorksheets = 'email' in selector ? await release.eraseWorksheetsOfClient(selector.email) : 0
    // Deleted rows stay in a table's pages until they are rewritten: VACUUM FULL writes new files without them.
    if (pool) await pool.query('VACUUM FULL public.leads, public.outbox, public.worksheets')
    io.out(
      `Erased ${plural(report.leads, 'registration')}, ${plural(report.messages, 'message')}` +
        (emlDir ? ` and ${plural(report.emlFiles, '.eml file')}` : '') +
        '.' +
        (report.suppressed > 0
          ? ` ${plural(report.suppressed, 'address', 'addresses')} that had withdrawn consent stay${report.suppressed === 1 ? 's' : ''} on the suppression list (as a keyed hash).`
          : '') +
        (erasedWorksheets > 0 ? ` Erased ${plural(erasedWorksheets, 'worksheet')} naming this client.` : ''),
    )
    return 0
  } catch (error) {
    io.err(`Erasure failed: ${(error as Error).message}`)
    return 1
  } finally {
    release.close?.()
    await store.close()
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const rl = process.stdin.isTTY ? createInterface({ input: process.stdin, output: process.stdout }) : undefined
  process.exitCode = await runLeadsErase(process.argv.slice(2), {
    env: process.env,
    isTTY: Boolean(process.stdin.isTTY),
    ask: (question) => rl!.question(question),
    out: (line) => console.log(line),
    err: (line) => console.error(line),
  })
  rl?.close()
}
