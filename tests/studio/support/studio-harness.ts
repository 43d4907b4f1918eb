import Database from 'better-sqlite3'
import type { ReleaseStore } from '../../../src/server/store/release.ts'
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { runStudioInvite } from '../../../src/cli/studio-invite.ts'
import { createFilePublisher } from '../../../src/studio/server/file-publisher.ts'
import { openSqliteStudioStore } from '../../../src/studio/server/sqlite-store.ts'
import type { StudioStore } from '../../../src/studio/server/store.ts'
import { createStudio, type Studio } from '../../../src/studio/server/studio.ts'
import type { LaunchPublisher } from '../../../src/server/site/launch-publisher.ts'
import {
  createSqliteSignInCounts,
  sqliteSignInSchema,
} from '../../../src/server/store/sign-in-counts/sqlite-sign-in-counts.ts'

/** The root page.config.json, as shipped: the launch the studio edits in these tests. */
export const originalText = readFileSync('page.config.json', 'utf8')
/** The origin requests come from (Hono's app.request uses http://localhost). */
export const origin = 'http://localhost'

/**
 * A studio on a temporary project: one launch (a copy of the root config and public/), a real SQLite store on disk,
 * the sign-in counts in a real SQLite database as the server's store keeps them, and New launch making launches/ there.
 */
export type StudioHarness = {
  dir: string
  configFile: string
  dataDir: string
  store: StudioStore
  publisher: LaunchPublisher
  studio: Studio
  /** The clock the studio reads; move it with `advance`. */
  now: Date
  advance(ms: number): void
  /** Runs `npm run studio:invite`'s code and returns the path of the printed link (/studio/invite/…). */
  invite(email: string, role: string, launches?: string[]): Promise<string>
  /** A client with its own cookie jar and address. */
  client(address?: string): StudioClient
  mails: Array<{ to: string; subject: string; text: string }>
  close(): void
}

export type StudioClient = {
  cookies: Map<string, string>
  request(
    pathname: string,
    init?: { method?: string; body?: BodyInit; headers?: Record<string, string>; origin?: string | null },
  ): Promise<Response>
  json(pathname: string, method: string, body?: unknown, originHeader?: string | null): Promise<Response>
  form(pathname: string, fields: Record<string, string>, originHeader?: string | null): Promise<Response>
}

/** Builds the harness; `close` removes everything. */
export async function startStudioHarness(
  options: { mail?: boolean; release?: ReleaseStore } = {},
): Promise<StudioHarness> {
  const dir = mkdtempSync(path.join(tmpdir(), 'vip-studio-'))
  cpSync('public', path.join(dir, 'public'), { recursive: true })
  cpSync('documents', path.join(dir, 'documents'), { recursive: true })
  mkdirSync(path.join(dir, 'schema'))
  cpSync('schema/page-config.schema.json', path.join(dir, 'schema/page-config.schema.json'))
  const configFile = path.join(dir, 'page.config.json')
  writeFileSync(configFile, originalText)
  const dataDir = path.join(dir, '.data')
  mkdirSync(dataDir)
  const clientDir = path.join(dir, 'dist', '_studio')
  mkdirSync(path.join(clientDir, 'assets'), { recursive: true })
  writeFileSync(
    path.join(clientDir, 'index.html'),
    '<!doctype html><html><head><title>Studio</title></head><body><div id="app"></div></body></html>',
  )
  writeFileSync(
    path.join(clientDir, 'preview.html'),
    '<!doctype html><html><head><title>Preview</title></head><body></body></html>',
  )
  writeFileSync(path.join(clientDir, 'assets', 'app-abc123.js'), 'export {}')
  const store = openSqliteStudioStore(path.join(dataDir, 'studio.sqlite'))
  const countsDb = new Database(path.join(dataDir, 'leads.sqlite'))
  countsDb.exec(sqliteSignInSchema)
  const publisher = createFilePublisher(
    [
      {
        slug: 'bramblewood-crossing',
        siteName: 'Bramblewood Crossing',
        configFile,
        localUrl: 'http://localhost:3000/',
      },
    ],
    { root: dir },
  )
  const mails: StudioHarness['mails'] = []
  const harness: StudioHarness = {
    dir,
    configFile,
    dataDir,
    store,
    publisher,
    now: new Date('2026-11-25T12:00:00Z'),
    mails,
    studio: undefined as unknown as Studio,
    advance(ms) {
      harness.now = new Date(harness.now.getTime() + ms)
    },
    async invite(email, role, launches = []) {
      const out: string[] = []
      const code = await runStudioInvite(
        ['--email', email, '--role', role, ...launches.flatMap((l) => ['--launch', l])],
        { DATA_DIR: dataDir, PORT: '3000' },
        dir,
        (line) => out.push(line),
        (line) => out.push(line),
      )
      if (code !== 0) throw new Error(out.join('\n'))
      return new URL(out.find((line) => line.startsWith('http'))!).pathname
    },
    client(address = '203.0.113.5') {
      const cookies = new Map<string, string>()
      const request: StudioClient['request'] = async (pathname, init = {}) => {
        const headers: Record<string, string> = { ...init.headers, 'x-test-address': address }
        if (cookies.size) headers.cookie = [...cookies].map(([k, v]) => `${k}=${v}`).join('; ')
        const originHeader = init.origin === undefined ? origin : init.origin
        if (originHeader !== null) headers.origin = originHeader
        const response = await harness.studio.app.request(pathname, {
          method: init.method ?? 'GET',
          headers,
          body: init.body ?? null,
        })
        for (const line of response.headers.getSetCookie()) {
          const [pair, ...attributes] = line.split(';')
          const [name, value] = pair!.split('=')
          if (attributes.some((a) => /max-age=0/i.test(a)) || value === '') cookies.delete(name!.trim())
          else cookies.set(name!.trim(), value!.trim())
        }
        return response
      }
      return {
        cookies,
        request,
        json: (pathname, method, body, originHeader) =>
          request(pathname, {
            method,
            origin: originHeader,
            headers: { 'content-type': 'application/json' },
            ...(body === undefined ? {} : { body: JSON.stringify(body) }),
          }),
        form: (pathname, fields, originHeader) =>
          request(pathname, {
            method: 'POST',
            origin: originHeader,
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
            body: new URLSearchParams(fields).toString(),
          }),
      }
    },
    close() {
      store.close()
      countsDb.close()
      rmSync(dir, { recursive: true, force: true })
    },
  }
  harness.studio = createStudio({
    store,
    publisher,
    signInCounts: createSqliteSignInCounts(countsDb),
    root: dir,
    secret: 'a-test-secret-of-enough-length-0123456789',
    clientDir,
    secureCookies: false,
    clientAddress: (c) => c.req.header('x-test-address') ?? 'unknown',
    clock: () => harness.now,
    sendMail: options.mail ? async (mail) => void mails.push(mail) : undefined,
    log: { info: () => {}, error: () => {} },
    // A small scrypt cost keeps these tests quick; the default's parameters are checked in passwords.test.ts.
    passwordCost: { N: 2 ** 12, r: 8, p: 1 },
    release: options.release,
  })
  await harness.studio.recordDiskVersions()
  return harness
}

/** Signs a client in through the form; returns the response. */
export function signIn(client: StudioClient, email: string, password: string, code?: string): Promise<Response> {
  return client.form('/studio/sign-in', { email, password, ...(code ? { code } : {}) })
}

/** Invites a person and sets their password through the link; returns a signed-in client. */
export async function personWithPassword(
  harness: StudioHarness,
  email: string,
  role: string,
  password: string,
  launches?: string[],
  address?: string,
): Promise<StudioClient> {
  const link = await harness.invite(email, role, launches)
  const client = harness.client(address)
  const response = await client.form(link, { email, password, confirm: password })
  if (response.status !== 303)
    throw new Error(`setting the password answered ${response.status}: ${await response.text()}`)
  return client
}
