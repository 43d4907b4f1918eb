import { execFile } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { afterAll, describe, expect, it } from 'vitest'
import { createEmlMailer } from '../../src/server/delivery/mailers/eml-mailer.ts'
import { composeLeadMail } from '../../src/server/delivery/notification.ts'
import { createPostgresSessionStore } from '../../src/server/leads-page/postgres-sessions.ts'
import { emptyFilter } from '../../src/server/leads-page/sessions.ts'
import { createPostgresStore } from '../../src/server/store/postgres/postgres-store.ts'
import { openSqliteStore } from '../../src/server/store/sqlite/sqlite-store.ts'
import type { LeadStore, NewLead } from '../../src/server/store/store.ts'
import { localAnonKey } from '../../schema/local-defaults.ts'
import { defaultLaunch, newLead, readPageConfig, registration } from './support/fixtures.ts'
import { startServerProcess, writeDist } from './support/node-server.ts'
import { plannedPostgresKind, startTestPostgres } from './support/postgres.ts'

const run = promisify(execFile)
const root = mkdtempSync(path.join(tmpdir(), 'vip-erase-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))
const page = readPageConfig()
const settings = {
  siteName: page.site.name,
  brokerage: page.site.brokerage,
  recipient: 'sales@example.com',
  timeZone: 'America/Toronto',
  form: page.form,
}

// What must vanish: the address, and the name that goes with it (in the lead and in the notification).
const address = 'erin.erasable@example.com'
const traces = [address, 'Erin Erasable']

function lead(email: string, name: string): NewLead {
  return newLead({ fields: { name, email, phone: '555-555-0199', isRealtor: 'no' } })
}

/** Two registrations of the person to erase (one with the address in capitals), one of someone else. */
async function seed(store: LeadStore, emlDir?: string): Promise<{ keep: NewLead }> {
  const mailer = emlDir ? createEmlMailer({ dir: emlDir, from: 'no-reply@example.com' }) : undefined
  const keep = lead('kept@example.com', 'Kim Kept')
  for (const l of [lead(address, 'Erin Erasable'), lead(address.toUpperCase(), 'Erin Erasable'), keep]) {
    const mail = composeLeadMail(l, settings)
    await store.saveLead(l, mail)
    await mailer?.send(mail)
  }
  return { keep }
}

async function until(check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out waiting')
    await new Promise((r) => setTimeout(r, 50))
  }
}

function eraseCli(args: string[], env: Record<string, string>) {
  // stdin is not a terminal here, as in a cron job or a pipe.
  return run(process.execPath, ['--import', 'tsx', 'src/cli/leads-erase.ts', ...args], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
  }).catch((error: { code: number; stdout: string; stderr: string }) => error)
}

/** Every file under `dir` whose bytes contain one of the traces (as UTF-8 text, any letter case). */
function filesWithTraces(dir: string): string[] {
  const hits: string[] = []
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    const file = path.join(entry.parentPath, entry.name)
    if (!entry.isFile()) continue
    const bytes = readFileSync(file).toString('latin1').toLowerCase()
    if (traces.some((t) => bytes.includes(t.toLowerCase()))) hits.push(path.relative(dir, file))
  }
  return hits
}

describe('npm run leads:erase on SQLite (DATA_DIR)', () => {
  it('refuses without a terminal unless --yes, then leaves no byte of the person in the database files or the outbox', async () => {
    // A running server holds the database (in its own process: reading the files here must not touch its locks).
    const dataDir = path.join(root, 'data')
    const distDir = path.join(root, 'dist')
    writeDist(distDir)
    const password = 'correct horse battery staple'
    const server = await startServerProcess({ DATA_DIR: dataDir, DIST_DIR: distDir, LEADS_PASSWORD: password })
    const emlDir = path.join(dataDir, 'outbox')
    try {
      const keep = registration({ name: 'Kim Kept', email: 'kept@example.com' })
      for (const body of [
        registration({ name: 'Erin Erasable', email: address }),
        registration({ name: 'Erin Erasable', email: address.toUpperCase() }),
        keep,
      ]) {
        const res = await fetch(`${server.url}/functions/v1/send-contact-email`, {
          method: 'POST',
          headers: { apikey: localAnonKey, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        })
        expect(res.status).toBe(200)
      }
      await until(() => existsSync(emlDir) && readdirSync(emlDir).filter((f) => f.endsWith('.eml')).length === 6)
      expect(filesWithTraces(dataDir).sort()).toEqual(
        expect.arrayContaining(['leads.sqlite-wal', expect.stringMatching(/^outbox\/.*\.eml$/)]),
      )
      // The team looked the person up on the leads page: the search is kept in its session (issue 21, item 8).
      const origin = server.url
      const form = (body: Record<string, string>, cookie?: string) => ({
        method: 'POST',
        redirect: 'manual' as const,
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin, ...(cookie ? { cookie } : {}) },
        body: new URLSearchParams(body).toString(),
      })
      const signedIn = await fetch(`${server.url}/leads/sign-in`, form({ password }))
      const cookie = signedIn.headers
        .getSetCookie()
        .find((c) => c.startsWith('leads_session='))!
        .split(';')[0]!
      expect((await fetch(`${server.url}/leads/search`, form({ text: address }, cookie))).status).toBe(303)
      expect(await (await fetch(`${server.url}/leads`, { headers: { cookie } })).text()).toContain(
        'registrations match',
      )
      expect(filesWithTraces(dataDir)).toEqual(expect.arrayContaining([expect.stringMatching(/^leads-page\.sqlite/)]))

      const refused = await eraseCli(['--email', address], { DATA_DIR: dataDir })
      expect(refused).toMatchObject({ code: 1 })
      expect(refused.stdout).toContain('Found 2 registrations and 4 messages for this e-mail address')
      expect(refused.stderr).toContain('Not erasing: there is no terminal to confirm on. Run it again with --yes')
      expect(filesWithTraces(dataDir).length).toBeGreaterThan(0)

      const done = await eraseCli(['--email', address.toUpperCase(), '--yes'], { DATA_DIR: dataDir })
      expect(done).toMatchObject({ stderr: '' })
      expect(done.stdout).toContain('Erased 2 registrations, 4 messages and 4 .eml files.')
      expect(done.stdout).toContain('Removed the address from 1 search of the leads page.')
      for (const t of traces) expect(done.stdout.toLowerCase()).not.toContain(t.toLowerCase())

      // Overwritten in the database file and the leads page's sessions, each WAL folded in and emptied: no old frame
      // keeps them.
      expect(filesWithTraces(dataDir)).toEqual([])
      expect(await (await fetch(`${server.url}/leads`, { headers: { cookie } })).text()).toContain('Registrations')
      expect(
        existsSync(path.join(dataDir, 'leads.sqlite-wal')) ? statSync(path.join(dataDir, 'leads.sqlite-wal')).size : 0,
      ).toBe(0)
      // The other person's notification and reply (page.config.json has a reply) stay.
      expect(readdirSync(emlDir)).toHaveLength(2)
      expect(readFileSync(path.join(dataDir, 'leads.sqlite')).toString('latin1')).toContain('kept@example.com')

      // The server keeps working, and sees only the other person.
      const res = await fetch(`${server.url}/functions/v1/send-contact-email`, {
        method: 'POST',
        headers: { apikey: localAnonKey, 'content-type': 'application/json' },
        body: JSON.stringify(registration()),
      })
      expect(res.status).toBe(200)
    } finally {
      await server.stop('SIGTERM')
    }
    const store = openSqliteStore(path.join(dataDir, 'leads.sqlite'), { readonly: true, defaultLaunch })
    const emails = (await store.listLeads(0, 10)).map((l) => l.fields.email)
    await store.close()
    expect(emails).toEqual(['kept@example.com', 'jane@example.com'])
  }, 90_000)

  it('erases one submission by --id, and says so when there is nothing to erase', async () => {
    const dataDir = path.join(root, 'by-id')
    mkdirSync(dataDir, { recursive: true })
    const store = openSqliteStore(path.join(dataDir, 'leads.sqlite'), { defaultLaunch })
    const { keep } = await seed(store)
    await store.close()
    const done = await eraseCli(['--id', keep.submissionId, '--yes'], { DATA_DIR: dataDir })
    expect(done.stdout).toContain('Erased 1 registration, 1 message and 0 .eml files.')
    const again = await eraseCli(['--id', keep.submissionId], { DATA_DIR: dataDir })
    expect(again).toMatchObject({
      stdout: expect.stringContaining('No registrations for this submission id') as string,
      stderr: '',
    })
    const reopened = openSqliteStore(path.join(dataDir, 'leads.sqlite'), { readonly: true, defaultLaunch })
    expect(await reopened.listLeads(0, 10)).toHaveLength(2)
    await reopened.close()
  })

  it('explains a wrong call in plain words', async () => {
    expect(await eraseCli([], { DATA_DIR: root })).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('Say whose registrations to erase') as string,
    })
    expect(await eraseCli(['--id', 'abc'], { DATA_DIR: root })).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('--id needs a submission id') as string,
    })
    expect(await eraseCli(['--email', 'x@example.com'], { DATA_DIR: path.join(root, 'none') })).toMatchObject({
      code: 1,
      stderr: expect.stringContaining('No leads database at') as string,
    })
  })
})

describe('npm run leads:erase on PostgreSQL', () => {
  it.skipIf(plannedPostgresKind() === 'pglite')(
    'erases the person and their searches on the leads page and, after VACUUM FULL, leaves no byte of them in the database files',
    async () => {
      const pg = await startTestPostgres()
      try {
        const { keep } = await seed(createPostgresStore(pg.db, { defaultLaunch }))
        // The team looked the person up on the leads page, with the shared password and as a studio account.
        const sessions = createPostgresSessionStore(pg.db, 'a team password')
        const now = new Date()
        await sessions.saveFilter(await sessions.create(now, 3_600_000), {
          ...emptyFilter,
          text: 'Erin.Erasable@Example.com',
          launch: defaultLaunch,
        })
        await sessions.saveAccountFilter('studio-session', { ...emptyFilter, text: address }, now, 3_600_000)
        await sessions.saveFilter(await sessions.create(now, 3_600_000), { ...emptyFilter, text: 'Kim Kept' })
        const dataDirectory = ((await pg.db.query('SHOW data_directory')).rows[0] as { data_directory: string })
          .data_directory
        const dbOid = (
          (await pg.db.query('SELECT oid FROM pg_database WHERE datname = current_database()')).rows[0] as {
            oid: number
          }
        ).oid
        const databaseFiles = path.join(dataDirectory, 'base', String(dbOid))
        await pg.db.query('CHECKPOINT')
        expect(filesWithTraces(databaseFiles).length).toBeGreaterThan(0)

        const refused = await eraseCli(['--email', address], { DATABASE_URL: pg.url! })
        expect(refused).toMatchObject({ code: 1, stderr: expect.stringContaining('Not erasing') as string })

        const done = await eraseCli(['--email', address, '--yes'], { DATABASE_URL: pg.url! })
        expect(done).toMatchObject({ stderr: '' })
        expect(done.stdout).toContain('Erased 2 registrations, 2 messages.')
        expect(done.stdout).toContain('Removed the address from 2 searches of the leads page.')
        const searches = (
          await pg.db.query(
            "SELECT filter->>'text' AS text, filter->>'launch' AS launch FROM public.leads_page_sessions ORDER BY 1, 2",
          )
        ).rows
        expect(searches).toEqual([
          { text: '', launch: '' },
          { text: '', launch: defaultLaunch },
          { text: 'Kim Kept', launch: '' },
        ])
        const left = (await pg.db.query('SELECT submission_id FROM public.leads')).rows as Array<{
          submission_id: string
        }>
        expect(left.map((r) => r.submission_id)).toEqual([keep.submissionId])
        expect((await pg.db.query('SELECT count(*)::int AS n FROM public.outbox')).rows).toEqual([{ n: 1 }])
        // Files of the tables as they were before VACUUM FULL are removed at the next checkpoint.
        await pg.db.query('CHECKPOINT')
        expect(filesWithTraces(databaseFiles)).toEqual([])
      } finally {
        await pg.stop()
      }
    },
  )
})
