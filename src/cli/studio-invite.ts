import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { parseArgs } from 'node:util'
import pg from 'pg'
import { declaredSlug, findLaunches } from '../config/launches.ts'
import { singleAddress } from '../server/delivery/mailer.ts'
import { ensurePrivateDir } from '../server/store/private-files.ts'
import type { Role } from '../studio/protocol.ts'
import { createOneTimeLink, linkLifetimeMs } from '../studio/server/links.ts'
import { openStudioStore } from '../studio/server/node-studio.ts'
import { AccountExistsError, normalizeEmail, type StudioStore } from '../studio/server/store.ts'

/**
 * `npm run studio:invite -- --email <address> --role owner [--launch <slug> ...]`: adds a person to the studio and
 * prints a one-time link (24 hours) where they choose a password; for a person who already has an account, a new
 * link (their password stays until they choose a new one). Works while the server runs. Writes where `npm start` keeps
 * the studio: PostgreSQL with DATABASE_URL, else DATA_DIR/studio.sqlite. The link's address is PUBLIC_URL, else
 * http://localhost:PORT.
 */

const usage = `Usage: npm run studio:invite -- --email <address> --role owner|editor|sales [--launch <slug> ...]

Prints a one-time sign-in link (valid 24 hours) where that person chooses their studio password.
  --email ADDRESS   who (their sign-in name)
  --role ROLE       owner (everything, people included), editor (edit, publish, restore) or sales (the leads page)
  --launch SLUG     an editor or sales account limited to this launch (repeat for several); none: every launch
Writes to PostgreSQL when DATABASE_URL is set (as npm start does), else to DATA_DIR (default ./.data); links start with STUDIO_HOST (https://, or PUBLIC_URL's scheme), else PUBLIC_URL (e.g. https://www.example.com), else http://localhost:PORT.`

type Say = (line: string) => void
/** Who to invite, as the arguments name them. */
type Invitation = { email: string; role: Role; launches: string[] | undefined }

/** The arguments read and checked: who to invite, or the exit code after saying what is wrong (or the usage). */
function readInvitation(args: string[], env: Record<string, string | undefined>, cwd: string, out: Say, err: Say) {
  let values: { email?: string; role?: string; launch?: string[]; help?: boolean }
  try {
    values = parseArgs({
      args,
      options: {
        email: { type: 'string' },
        role: { type: 'string' },
        launch: { type: 'string', multiple: true },
        help: { type: 'boolean' },
      },
    }).values
  } catch (error) {
    err(`${(error as Error).message}\n\n${usage}`)
    return 1
  }
  if (values.help) {
    out(usage)
    return 0
  }
  const email = singleAddress(normalizeEmail(values.email ?? ''))
  if (!email) {
    err(`Give the person's e-mail address: --email jane@example.com\n\n${usage}`)
    return 1
  }
  const role = values.role as Role
  if (!['owner', 'editor', 'sales'].includes(role)) {
    err(`Give a role: --role owner, editor or sales.\n\n${usage}`)
    return 1
  }
  const launches = values.launch?.length ? values.launch : undefined
  const problem = launches && launchesProblem(launches, role, env, cwd)
  if (problem) {
    err(problem)
    return 1
  }
  return { email, role, launches } satisfies Invitation
}

/** What is wrong with the --launch values, if anything. */
function launchesProblem(
  launches: string[],
  role: Role,
  env: Record<string, string | undefined>,
  cwd: string,
): string | undefined {
  if (role === 'owner') return 'An owner has every launch: leave --launch out, or give the role editor or sales.'
  const known = findLaunches(cwd, env).map((source) => source.folder ?? declaredSlug(source.configFile) ?? '')
  const unknown = launches.filter((slug) => !known.includes(slug))
  if (!unknown.length) return undefined
  return `There is no launch named ${unknown.map((s) => `"${s}"`).join(', ')}. The launches are: ${known.filter(Boolean).join(', ')}.`
}

/**
 * Where the link points, as the server's own links (src/studio/server/gates/host-gate.ts): STUDIO_HOST, else
 * PUBLIC_URL, else http://localhost:PORT; undefined after saying what is wrong.
 */
function linkBaseOf(env: Record<string, string | undefined>, err: Say): string | undefined {
  const publicUrl = env.PUBLIC_URL?.trim()
  if (publicUrl && !(URL.canParse(publicUrl) && /^https?:$/.test(new URL(publicUrl).protocol))) {
    err(
      `PUBLIC_URL must be the address people open the site at, such as https://www.example.com (it is "${publicUrl}").`,
    )
    return undefined
  }
  const port = env.PORT?.trim() || '3000'
  if (!/^\d{1,5}$/.test(port)) {
    err(`PORT must be a whole number such as 3000 (it is "${port}").`)
    return undefined
  }
  const studioHost = env.STUDIO_HOST?.trim().toLowerCase()
  const scheme = publicUrl ? new URL(publicUrl).protocol : 'https:'
  if (studioHost) return `${scheme}//${studioHost}`
  return publicUrl ? new URL(publicUrl).origin : `http://localhost:${port}`
}

/** Makes the account (or finds the person's) and its one-time link, prints the link; the exit code. */
async function invite(store: StudioStore, who: Invitation, base: string, out: Say, err: Say): Promise<number> {
  const { email, role, launches } = who
  const now = new Date()
  let account
  let purpose: 'invite' | 'reset' = 'invite'
  try {
    account = await store.createAccount({ email, role, launches: launches ? [...new Set(launches)] : undefined }, now)
  } catch (error) {
    if (!(error instanceof AccountExistsError)) throw error
    account = (await store.findAccountByEmail(email))!
    if (account.role !== role) {
      err(
        `${email} already has an account, as ${account.role}. Change their role in the studio (People), or give --role ${account.role} for a new link.`,
      )
      return 1
    }
    purpose = account.passwordHash ? 'reset' : 'invite'
  }
  const { link, expiresAt } = await createOneTimeLink(store, account.id, purpose, now, base)
  await store.addAudit({
    at: now.toISOString(),
    who: 'npm run studio:invite',
    action: purpose === 'invite' ? 'invite' : 'reset link',
    detail: `${email} as ${role}`,
  })
  out(
    `${purpose === 'invite' ? 'Invited' : 'New sign-in link for'} ${email} (${role}${account.launches ? `, launches ${account.launches.join(', ')}` : ''}).`,
  )
  out(`Send them this link; it works once, until ${expiresAt} (${linkLifetimeMs / 3_600_000} hours):`)
  out(link)
  return 0
}

/** Runs the command; returns the exit code. */
export async function runStudioInvite(
  args: string[],
  env: Record<string, string | undefined>,
  cwd: string,
  out: Say = console.log,
  err: Say = console.error,
): Promise<number> {
  const who = readInvitation(args, env, cwd, out, err)
  if (typeof who === 'number') return who
  const base = linkBaseOf(env, err)
  if (base === undefined) return 1
  const dataDir = path.resolve(cwd, env.DATA_DIR?.trim() || '.data')
  const databaseUrl = env.DATABASE_URL?.trim()
  const pool = databaseUrl ? new pg.Pool({ connectionString: databaseUrl, max: 1 }) : undefined
  if (!pool) ensurePrivateDir(dataDir)
  const store = openStudioStore({ dataDir, pool })
  try {
    return await invite(store, who, base, out, err)
  } catch (error) {
    if (!pool) throw error
    err(`The studio's database (DATABASE_URL) could not be used: ${(error as Error).message}`)
    return 1
  } finally {
    store.close()
    await pool?.end()
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  process.exit(await runStudioInvite(process.argv.slice(2), process.env, process.cwd()))
}
