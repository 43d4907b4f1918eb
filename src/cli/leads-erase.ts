import { existsSync } from 'node:fs'
import path from 'node:path'
import { createInterface } from 'node:readline/promises'
import { pathToFileURL } from 'node:url'
import pg from 'pg'
import { defaultLaunchSlug } from './launch-catalog.ts'
import { removeEmlCopies } from '../server/delivery/mailers/eml-mailer.ts'
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

type ErasureSettings = ReturnType<typeof readErasureSettings>

type Request = { selector: LeadSelector; yes: boolean; databaseUrl: string | undefined }

/** Where the erasure happens: the stores opened on SQLite (DATA_DIR) or PostgreSQL, and how to name the place. */
type Target = {
  store: LeadStore
  release: ReleaseStore & { close?: () => void }
  pool: pg.Pool | undefined
  secret: () => string
  emlDir: string | undefined
  where: string
  sessionsFile: string
}

const idPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** Reads the options; returns the request, or the exit code once usage or a problem has been printed. */
function parseArguments(argv: string[], databaseUrl: string | undefined, io: Io): Request | number {
  let selector: LeadSelector | undefined
  let yes = false
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
    } else {
      const chosen = selectorOf(name, value, io)
      if (!chosen) return 2
      selector = chosen
    }
  }
  if (!selector) {
    io.err(`Say whose registrations to erase.\n\n${usage}`)
    return 2
  }
  return { selector, yes, databaseUrl }
}

/** The person named by --email or --id, or undefined once the value's problem has been printed. */
function selectorOf(name: '--email' | '--id', value: string, io: Io): LeadSelector | undefined {
  if (name === '--email') {
    if (value.includes('@')) return { email: value }
    io.err('--email needs an e-mail address.')
    return undefined
  }
  if (idPattern.test(value)) return { submissionId: value }
  io.err(
    '--id needs a submission id, e.g. 3f2b8c1e-9d4a-4f6b-8a2c-1e5d7b9f0a3c (the submission_id column of the export).',
  )
  return undefined
}

/** Opens the stores of PostgreSQL (with a database URL) or of DATA_DIR; an exit code when DATA_DIR has no database. */
function openTarget(settings: ErasureSettings, databaseUrl: string | undefined, io: Io): Target | number {
  // An erasure lists no lead, so it never reads a lead's launch: it needs no usable config, only a name to give.
  const defaultLaunch = defaultLaunchSlug(process.cwd(), io.env) ?? 'default'
  const dataDir = path.resolve(settings.dataDir)
  // The leads page keeps its sessions (and the searches typed in them) in DATA_DIR, or with DATABASE_URL in PostgreSQL:
  // both are cleaned, as a file from before the move to PostgreSQL may still hold searches.
  const sessionsFile = path.join(dataDir, 'leads-page.sqlite')
  if (databaseUrl) {
    const own = new pg.Pool({ connectionString: databaseUrl, max: 1 })
    const secret = () => {
      const value = settings.suppressionSecret
      if (!value) {
        throw new Error(
          'This person had withdrawn consent, so their address must stay on the suppression list, which needs SUPPRESSION_SECRET ' +
            '(the same long random value every time, e.g. from `openssl rand -hex 32`, kept outside the database). Set it and run again; nothing was erased.',
        )
      }
      return value
    }
    const store = createPostgresStore(own, { defaultLaunch, close: () => own.end() })
    const release = createPostgresRelease(own)
    return { store, release, pool: own, secret, emlDir: undefined, where: 'PostgreSQL', sessionsFile }
  }
  const file = path.join(dataDir, 'leads.sqlite')
  if (!existsSync(file)) {
    io.err(`No leads database at ${file}: check DATA_DIR.`)
    return 1
  }
  return {
    store: openSqliteStore(file, { defaultLaunch }),
    release: openSqliteRelease(file),
    pool: undefined,
    secret: () => readOrCreateSecret(path.join(dataDir, 'suppression.key')),
    emlDir: path.join(dataDir, 'outbox'),
    where: dataDir,
    sessionsFile,
  }
}

/** Runs the command; returns the exit code. */
export async function runLeadsErase(argv: string[], io: Io): Promise<number> {
  let settings: ErasureSettings
  try {
    settings = readErasureSettings(io.env)
  } catch (error) {
    if (!(error instanceof SettingsError)) throw error
    io.err(error.message)
    return 2
  }
  const request = parseArguments(argv, settings.databaseUrl, io)
  if (typeof request === 'number') return request
  const target = openTarget(settings, request.databaseUrl, io)
  if (typeof target === 'number') return target
  try {
    return await erase(target, request, io)
  } catch (error) {
    io.err(`Erasure failed: ${(error as Error).message}`)
    return 1
  } finally {
    target.release.close?.()
    await target.store.close()
  }
}

/** Counts, asks, erases and reports: the person's leads and messages, their worksheets and searches. */
async function erase(target: Target, { selector, yes }: Request, io: Io): Promise<number> {
  const { store, release, where } = target
  const found = await store.countErasable(selector)
  // A client named on a realtor's worksheet may never have registered: their worksheets are theirs all the same.
  const worksheets = 'email' in selector ? (await release.worksheetsOfClient(selector.email)).length : 0
  const whom = 'email' in selector ? 'this e-mail address' : 'this submission id'
  if (found.leads === 0 && worksheets > 0 && 'email' in selector) {
    if (!yes && !io.isTTY) {
      io.err(noTerminal)
      return 1
    }
    const erased = await release.eraseWorksheetsOfClient(selector.email)
    io.out(`No registrations for ${whom} in ${where}. Erased ${plural(erased, 'worksheet')} naming this client.`)
    return 0
  }
  if (found.leads === 0) {
    io.out(`No registrations for ${whom} in ${where}: nothing to erase.`)
    await eraseSearches(target, selector, io)
    // Copies of messages may outlive their lead (an earlier, interrupted erasure): remove those as well.
    if (target.emlDir && 'email' in selector) {
      const removed = await removeEmlCopies(target.emlDir, [], selector.email)
      if (removed > 0) io.out(`Removed ${plural(removed, 'left-over .eml file')}.`)
    }
    return 0
  }
  io.out(
    `Found ${plural(found.leads, 'registration')} and ${plural(found.messages, 'message')} for ${whom} in ${where}.`,
  )
  if (!yes && !(await confirm(io))) return 1
  const copiesDir = target.emlDir
  const removeCopies = copiesDir
    ? (ids: string[], address: string | undefined) => removeEmlCopies(copiesDir, ids, address)
    : undefined
  const report = await eraseEverywhere(
    { store, keyOf: async (email) => addressKeyOf(target.secret(), email), removeCopies },
    selector,
  )
  await eraseSearches(target, selector, io)
  const erasedWorksheets = 'email' in selector ? await release.eraseWorksheetsOfClient(selector.email) : 0
  // Deleted rows stay in a table's pages until they are rewritten: VACUUM FULL writes new files without them.
  if (target.pool) await target.pool.query('VACUUM FULL public.leads, public.outbox, public.worksheets')
  io.out(erasureSummary(report, Boolean(target.emlDir), erasedWorksheets))
  return 0
}

const noTerminal = 'Not erasing: there is no terminal to confirm on. Run it again with --yes to erase without asking.'

/** Asks on the terminal; false (with the reason printed) when there is none or the answer is not yes. */
async function confirm(io: Io): Promise<boolean> {
  if (!io.isTTY) {
    io.err(noTerminal)
    return false
  }
  const answer = (await io.ask('Erase them for good? This cannot be undone. Type yes to erase: ')).trim().toLowerCase()
  if (answer === 'yes' || answer === 'y') return true
  io.out('Nothing erased.')
  return false
}

/** A search for the address on the leads page is a copy of it too, whether or not any lead is left. */
async function eraseSearches(target: Target, selector: LeadSelector, io: Io): Promise<void> {
  if (!('email' in selector)) return
  const searches =
    (await eraseSearchesFor(target.sessionsFile, selector.email)) +
    (target.pool ? await erasePostgresSearchesFor(target.pool, selector.email) : 0)
  if (searches > 0) io.out(`Removed the address from ${plural(searches, 'search', 'searches')} of the leads page.`)
}

/** The closing line: what was erased, and what stays on the suppression list. */
function erasureSummary(
  report: Awaited<ReturnType<typeof eraseEverywhere>>,
  withEml: boolean,
  erasedWorksheets: number,
): string {
  return (
    `Erased ${plural(report.leads, 'registration')}, ${plural(report.messages, 'message')}` +
    (withEml ? ` and ${plural(report.emlFiles, '.eml file')}` : '') +
    '.' +
    (report.suppressed > 0
      ? ` ${plural(report.suppressed, 'address', 'addresses')} that had withdrawn consent stay${report.suppressed === 1 ? 's' : ''} on the suppression list (as a keyed hash).`
      : '') +
    (erasedWorksheets > 0 ? ` Erased ${plural(erasedWorksheets, 'worksheet')} naming this client.` : '')
  )
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
