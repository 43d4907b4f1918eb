import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import Database from 'better-sqlite3'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { localAnonKey } from '../../schema/local-defaults.ts'
import type { PageConfig } from '../../schema/page-config.ts'
import { freePort } from '../e2e/harness.ts'
import { functionUrlOf, runDenoFunction, stopDeno } from '../server/support/deno-function.ts'
import { registration } from '../server/support/fixtures.ts'
import { plannedPostgresKind, startTestPostgres, type TestPostgres } from '../server/support/postgres.ts'

// The promise: a field added to a launch's page.config.json, then `npm run build`, and nothing else, is
// accepted and stored by the Node server and by the Deno function alike (no second step that could be forgotten).
//
// The build runs for real, in a project folder of its own: the repository's code and packages, a copy of
// the default launch's config with the new field, and a copy of the function's folder. The function's bundle path
// is fixed (supabase/functions/_shared/launches.json, imported statically so that Supabase deploys it), so the
// build writes that project's bundle, never the repository's one that other tests read.

const field = 'moveInTiming'
const project = mkdtempSync(path.join(tmpdir(), 'vip-form-change-'))
const dataDir = mkdtempSync(path.join(tmpdir(), 'vip-form-change-data-'))

function makeProject(): void {
  // The code is copied (an entry compares its own path with the one it was started by, which a link would not
  // match); what is only read stays a link.
  for (const part of ['src', 'schema', 'documents', 'index.html', 'vite.config.ts', 'package.json', 'tsconfig.json'])
    cpSync(path.resolve(part), path.join(project, part), { recursive: true })
  for (const part of ['public', 'package-lock.json', 'node_modules'])
    symlinkSync(path.resolve(part), path.join(project, part))
  mkdirSync(path.join(project, 'supabase/functions'), { recursive: true })
  cpSync(
    path.resolve('supabase/functions/send-contact-email'),
    path.join(project, 'supabase/functions/send-contact-email'),
    { recursive: true },
  )
  // The author's edit: a new optional question, with its label and its place in the form.
  const config = JSON.parse(readFileSync('page.config.json', 'utf8')) as PageConfig
  const form = config.form as unknown as {
    schema: { properties: Record<string, unknown> }
    uiSchema: Record<string, unknown> & { 'ui:order': string[] }
  }
  form.schema.properties[field] = { type: 'string', maxLength: 60 }
  form.uiSchema['ui:order'].push(field)
  form.uiSchema[field] = { 'ui:title': 'When would you like to move in?' }
  writeFileSync(path.join(project, 'page.config.json'), `${JSON.stringify(config, null, 2)}\n`)
}

/** `env` without the settings that would point the build or the server somewhere else than the project's defaults. */
function projectEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = { ...process.env }
  for (const name of [
    'PAGE_CONFIG',
    'DIST_DIR',
    'DATA_DIR',
    'VITE_SUPABASE_URL',
    'VITE_SUPABASE_ANON_KEY',
    'NOTIFY_EMAIL',
    'ALLOWED_ORIGINS',
  ])
    delete env[name]
  return { ...env, ...extra }
}

const post = (base: string, body: Record<string, unknown>, origin: string) =>
  fetch(`${base}/functions/v1/send-contact-email`, {
    method: 'POST',
    headers: { apikey: localAnonKey, 'content-type': 'application/json', origin },
    body: JSON.stringify(body),
  })

describe.skipIf(plannedPostgresKind() === 'pglite')(
  'a form field added to a launch and built with npm run build',
  () => {
    let node: ChildProcess | undefined
    let nodeUrl = ''
    let deno: ChildProcess | undefined
    let denoUrl = ''
    let pg: TestPostgres | undefined
    let build = { status: null as number | null, output: '' }

    beforeAll(async () => {
      makeProject()
      const run = spawnSync('npm', ['run', 'build'], {
        cwd: project,
        env: projectEnv(),
        encoding: 'utf8',
        timeout: 400_000,
      })
      build = { status: run.status, output: `${run.stdout}${run.stderr}` }
      if (build.status !== 0) return

      const port = await freePort()
      node = spawn(process.execPath, ['--import', 'tsx', 'src/cli/serve.ts'], {
        cwd: project,
        env: projectEnv({ PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, RATE_LIMIT_PER_MINUTE: '0' }),
        stdio: ['ignore', 'pipe', 'pipe'],
      })
      let said = ''
      node.stdout!.on('data', (c: Buffer) => (said += c.toString()))
      node.stderr!.on('data', (c: Buffer) => (said += c.toString()))
      const deadline = Date.now() + 60_000
      while (!said.includes('Listening on')) {
        if (node.exitCode !== null || Date.now() > deadline) throw new Error(`The Node server did not start:\n${said}`)
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
      nodeUrl = `http://127.0.0.1:${port}`

      pg = await startTestPostgres()
      deno = runDenoFunction(project, {
        SUPABASE_DB_URL: pg.url!,
        ANON_KEY: localAnonKey,
        RESEND_API_KEY: 're_test_key',
        RESEND_API_URL: 'http://127.0.0.1:9',
        MAIL_FROM: 'no-reply@example.com',
        OUTBOX_SECRET: 'test-outbox-secret-0123456789',
        ALLOWED_ORIGINS: 'https://www.example.com',
        UNSUBSCRIBE_SECRET: 'test-unsubscribe-secret-0123456789',
        SUPABASE_URL: 'https://project-ref.supabase.co',
        PORT: '0',
        HOST: '127.0.0.1',
      })
      ;({ url: denoUrl } = await functionUrlOf(deno))
    }, 600_000)

    afterAll(async () => {
      await stopDeno(deno)
      if (node && node.exitCode === null && node.signalCode === null) {
        const exited = new Promise((resolve) => node!.once('exit', resolve))
        node.kill('SIGTERM')
        await exited
      }
      await pg?.stop()
      rmSync(project, { recursive: true, force: true })
      rmSync(dataDir, { recursive: true, force: true })
    })

    it('builds, and writes the new field into the function bundle of that project only', () => {
      expect(build.status, build.output).toBe(0)
      const bundle = JSON.parse(
        readFileSync(path.join(project, 'supabase/functions/_shared/launches.json'), 'utf8'),
      ) as {
        launches: Array<{ form: { schema: { properties: Record<string, unknown> } } }>
      }
      expect(Object.keys(bundle.launches[0]!.form.schema.properties)).toContain(field)
      const repositoryBundle = path.resolve('supabase/functions/_shared/launches.json')
      if (existsSync(repositoryBundle)) expect(readFileSync(repositoryBundle, 'utf8')).not.toContain(field)
    })

    it('is accepted and stored by the Node server', async () => {
      const body = registration({ [field]: 'Spring 2027' })
      const res = await post(nodeUrl, body, nodeUrl)
      expect(res.status, await res.clone().text()).toBe(200)
      const db = new Database(path.join(dataDir, 'leads.sqlite'), { readonly: true })
      try {
        const row = db.prepare('SELECT fields FROM leads WHERE submission_id = ?').get(body.submissionId) as {
          fields: string
        }
        expect(JSON.parse(row.fields)).toMatchObject({ name: 'Jane Doe', [field]: 'Spring 2027' })
      } finally {
        db.close()
      }
    })

    it('is accepted and stored by the Deno function', async () => {
      const body = registration({ [field]: 'Spring 2027' })
      const res = await post(denoUrl, body, 'https://www.example.com')
      expect(res.status, await res.clone().text()).toBe(200)
      const { rows } = await pg!.db.query('SELECT fields FROM public.leads WHERE submission_id = $1', [
        body.submissionId,
      ])
      expect((rows[0] as { fields: Record<string, unknown> }).fields).toMatchObject({
        name: 'Jane Doe',
        [field]: 'Spring 2027',
      })
    })
  },
)
