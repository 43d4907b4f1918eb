import { spawnSync } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { Agent, request } from 'node:http'
import path from 'node:path'
import { brotliDecompressSync, gunzipSync } from 'node:zlib'
import Database from 'better-sqlite3'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { localAnonKey } from '../../schema/local-defaults.ts'
import type { PageConfig } from '../../schema/page-config.ts'
import { startTestSmtp, type TestSmtp } from '../server/support/smtp.ts'
import { copyProject, scaled, startServer, type RunningServer } from './harness.ts'

// Issue 22 (launches fail alone) and issue 23's publish, in a fresh copy of the project with three launches: the
// default one, maple-ridge (built once, then its config broken on disk) and cedar-park (broken before it was ever
// built). `npm run build` and `npm start` run as a person runs them; the publish goes through the running server's
// LaunchPublisher while this process keeps loading both launches.
const project = copyProject()
const defaultConfig = JSON.parse(readFileSync(path.join(project.root, 'page.config.json'), 'utf8')) as PageConfig
const launchesDir = path.join(project.root, 'launches')
const mapleFile = path.join(launchesDir, 'maple-ridge', 'page.config.json')
const env = Object.fromEntries(
  Object.entries(process.env).filter(
    ([name]) =>
      !['PAGE_CONFIG', 'DIST_DIR', 'DATA_DIR', 'NOTIFY_EMAIL', 'SMTP_URL', 'ALERT_EMAIL', 'WEBHOOK_URL'].includes(name),
  ),
)

function run(script: string, args: string[] = []) {
  const result = spawnSync(process.execPath, ['--import', 'tsx', script, ...args], {
    cwd: project.root,
    env,
    encoding: 'utf8',
  })
  return { code: result.status, out: `${result.stdout}${result.stderr}` }
}

/** A further launch's config: the default one renamed, at its own addresses, with `change` applied. */
function launchConfig(
  slug: string,
  name: string,
  heading: string,
  change: (config: PageConfig) => void = () => {},
): PageConfig {
  const config = structuredClone(defaultConfig)
  config.launch = { slug, notifyEmail: `sales@${slug}.example.com` }
  config.site.name = name
  config.seo.canonicalUrl = `https://${slug}.example.com/`
  const hero = config.sections.find((section) => section.type === 'hero') as { heading: string }
  hero.heading = heading
  change(config)
  return config
}

/** Writes launches/<slug>/ (config text and the default launch's pictures). */
function writeLaunch(slug: string, text: string): string {
  const dir = path.join(launchesDir, slug)
  mkdirSync(dir, { recursive: true })
  cpSync(path.join(project.root, 'public'), path.join(dir, 'public'), { recursive: true })
  cpSync(path.join(project.root, 'documents'), path.join(dir, 'documents'), { recursive: true })
  writeFileSync(path.join(dir, 'page.config.json'), text)
  return path.join(dir, 'page.config.json')
}

const json = (config: PageConfig) => `${JSON.stringify(config, null, 2)}\n`
/** The config text with site.email made invalid, and the line where it now is. */
function breakEmail(text: string): { text: string; line: number } {
  const broken = text.replace(/("site": \{[\s\S]*?"email": )"[^"]*"/, '$1"not-an-email"')
  const line = broken.slice(0, broken.indexOf('"not-an-email"')).split('\n').length
  return { text: broken, line }
}

const mapleGood = json(launchConfig('maple-ridge', 'Maple Ridge', 'Maple Ridge, coming soon'))
const mapleBroken = breakEmail(mapleGood)
const cedarBroken = breakEmail(json(launchConfig('cedar-park', 'Cedar Park', 'Cedar Park, coming soon')))
// The publish: a new heading and a new required form field.
const mapleNext = json(
  launchConfig('maple-ridge', 'Maple Ridge', 'Maple Ridge, now selling', (config) => {
    const form = config.form as unknown as {
      schema: { properties: Record<string, unknown>; required: string[] }
      uiSchema: Record<string, unknown> & { 'ui:order': string[] }
      messages: Record<string, unknown>
    }
    form.schema.properties.moveIn = { type: 'string', maxLength: 40 }
    form.schema.required.push('moveIn')
    form.uiSchema['ui:order'].push('moveIn')
    form.uiSchema.moveIn = { 'ui:title': 'Preferred move-in' }
    form.messages.moveIn = { required: 'Say when you would like to move in', maxLength: 'Max 40 characters' }
  }),
)

let build: { code: number | null; out: string }
let smtp: TestSmtp
let server: RunningServer | undefined
let port: number
const agent = new Agent({ keepAlive: true, maxSockets: 8 })

/** A request to 127.0.0.1 with the Host given (as a browser at http://<host>/ sends it); the body decompressed. */
function send(
  host: string,
  method: string,
  urlPath: string,
  body?: unknown,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body)
    const headers: Record<string, string> = { host, 'accept-encoding': 'br, gzip' }
    if (payload !== undefined) Object.assign(headers, { 'content-type': 'application/json', apikey: localAnonKey })
    const req = request({ host: '127.0.0.1', port, method, path: urlPath, headers, agent }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (chunk: Buffer) => chunks.push(chunk))
      res.on('error', reject)
      res.on('end', () => {
        const raw = Buffer.concat(chunks)
        const encoding = res.headers['content-encoding']
        const text = (
          encoding === 'br' ? brotliDecompressSync(raw) : encoding === 'gzip' ? gunzipSync(raw) : raw
        ).toString('utf8')
        resolve({ status: res.statusCode ?? 0, text })
      })
    })
    req.on('error', reject)
    req.end(payload)
  })
}

const get = (host: string, urlPath = '/') => send(`${host}:${port}`, 'GET', urlPath)
const registration = (email: string, extra: Record<string, unknown> = {}) => ({
  name: 'Load Test',
  email,
  phone: '555-555-0100',
  isRealtor: 'no',
  ...extra,
})

beforeAll(async () => {
  // The test's own entry (npm start with its publisher on stdin) runs from the copy, as start.ts does.
  cpSync(path.resolve('tests/e2e/publishing-server.ts'), path.join(project.root, 'tests/e2e/publishing-server.ts'))
  writeLaunch('maple-ridge', mapleGood)
  const first = run('src/cli/build.ts', ['--launch', 'maple-ridge'])
  if (first.code !== 0) throw new Error(`npm run build -- --launch maple-ridge failed:\n${first.out}`)
  // Then its config breaks on disk, and a new launch is started with a broken config.
  writeFileSync(mapleFile, mapleBroken.text)
  writeLaunch('cedar-park', cedarBroken.text)
  build = run('src/cli/build.ts')
  smtp = await startTestSmtp()
  server = await startServer(
    {
      SMTP_URL: `smtp://127.0.0.1:${smtp.port}`,
      PUBLIC_URL: 'http://localhost',
      MAIL_FROM: 'Launch Server <server@example.com>',
      ALERT_EMAIL: 'ops@example.com',
    },
    { cwd: project.root, script: 'src/cli/start.ts', timeoutMs: 300_000 },
  )
  port = Number(new URL(server.url).port)
}, scaled(900_000))

afterAll(async () => {
  agent.destroy()
  await server?.stop()
  await smtp?.stop()
  project.remove()
})

describe('one broken launch never takes the others down', () => {
  it('npm run build writes the good launch, then exits non-zero naming each broken file and line', () => {
    expect(build.code, build.out).toBe(1)
    expect(build.out).toMatch(new RegExp(`${defaultConfig.launch.slug}: built dist/${defaultConfig.launch.slug} in`))
    expect(existsSync(path.join(project.root, 'dist', defaultConfig.launch.slug, 'index.html'))).toBe(true)
    expect(build.out).toContain(`launches/maple-ridge/page.config.json:${mapleBroken.line}`)
    expect(build.out).toContain(`launches/cedar-park/page.config.json:${cedarBroken.line}`)
    expect(build.out).not.toMatch(/^\s+at /m)
    // The last good build of the broken launch is kept, and so is its entry in the function's bundle.
    expect(readFileSync(path.join(project.root, 'dist', 'maple-ridge', 'index.html'), 'utf8')).toContain(
      'Maple Ridge, coming soon',
    )
    const bundle = JSON.parse(
      readFileSync(path.join(project.root, 'supabase/functions/_shared/launches.json'), 'utf8'),
    ) as { launches: Array<{ slug: string }> }
    expect(bundle.launches.map((launch) => launch.slug)).toEqual([defaultConfig.launch.slug, 'maple-ridge'])
  })

  it('npm start serves the good launch, and the broken one its last good page; the log and /healthz name it', async () => {
    const home = await get('localhost')
    expect(home.status).toBe(200)
    expect(home.text).toContain(`<title>${defaultConfig.seo.title}`)
    const maple = await get('maple-ridge.localhost')
    expect(maple.status).toBe(200)
    expect(maple.text).toContain('Maple Ridge, coming soon')
    const output = server!.output()
    expect(output).toContain(
      `Launch maple-ridge is broken: launches/maple-ridge/page.config.json:${mapleBroken.line}. Its last good build keeps serving.`,
    )
    expect(output).toContain("site.email 'not-an-email' is not a valid e-mail address.")
    expect(output).toContain(
      `Open in a browser: http://localhost:${port}/  http://cedar-park.localhost:${port}/  http://maple-ridge.localhost:${port}/`,
    )
    const health = await get('localhost', '/healthz')
    expect(health.status).toBe(200)
    expect(JSON.parse(health.text).launches).toEqual({
      count: 3,
      broken: ['cedar-park', 'maple-ridge'],
      unpublished: [],
    })
    expect(health.text).not.toContain('page.config.json')
  })

  it('tells ALERT_EMAIL once for each broken launch, through the outbox mailer', async () => {
    const alerts = () => smtp.received.filter((mail) => mail.rcptTo.includes('ops@example.com'))
    const deadline = Date.now() + 30_000
    while (alerts().length < 2 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200))
    await new Promise((resolve) => setTimeout(resolve, 2_000))
    const subjects = alerts().map((mail) => mail.headers.get('subject')?.[0] ?? '')
    expect(subjects.filter((subject) => subject.includes('maple-ridge'))).toEqual([
      `Launch maple-ridge is broken: launches/maple-ridge/page.config.json:${mapleBroken.line}`,
    ])
    expect(subjects.filter((subject) => subject.includes('cedar-park'))).toHaveLength(1)
    expect(alerts().find((mail) => mail.headers.get('subject')?.[0]?.includes('maple-ridge'))!.decoded).toContain(
      "site.email 'not-an-email'",
    )
  })
})

describe('a launch that was never built', () => {
  it('answers 503 with its own "not published yet" page when it was made before the server started', async () => {
    const cedar = await get('cedar-park.localhost')
    expect(cedar.status).toBe(503)
    expect(cedar.text).toContain('<h1>Cedar Park</h1>')
    expect(cedar.text).toContain('not published yet')
    expect(cedar.text).not.toContain(defaultConfig.site.name)
  })

  it('answers 503 with its own page when its folder is made while the server runs', async () => {
    const file = writeLaunch(
      'willow-bend',
      json(launchConfig('willow-bend', 'Willow Bend', 'Willow Bend, coming soon')),
    )
    const willow = await get('willow-bend.localhost')
    expect(willow.status).toBe(503)
    expect(willow.text).toContain('<h1>Willow Bend</h1>')
    expect(willow.text).not.toContain(defaultConfig.site.name)
    const registered = await send(
      `willow-bend.localhost:${port}`,
      'POST',
      '/functions/v1/send-contact-email',
      registration('willow@example.org'),
    )
    expect(registered.status).toBe(503)
    rmSync(path.dirname(file), { recursive: true })
  })
})

describe('publishing a launch while both are under load', () => {
  it(
    'swaps the new version in with no error and no mixed page, and the next registration takes the new field',
    { timeout: scaled(900_000) },
    async () => {
      await server!.stop()
      server = await startServer(
        {},
        { cwd: project.root, script: 'tests/e2e/publishing-server.ts', timeoutMs: 300_000, stdin: true },
      )
      port = Number(new URL(server.url).port)
      const defaultHtml = readFileSync(path.join(project.root, 'dist', defaultConfig.launch.slug, 'index.html'), 'utf8')
      const oldMaple = readFileSync(path.join(project.root, 'dist', 'maple-ridge', 'index.html'), 'utf8')
      const nextFile = path.join(project.root, 'maple-next.json')
      writeFileSync(nextFile, mapleNext)

      const errors: string[] = []
      const maplePages: Array<{ at: number; text: string }> = []
      const defaultPages: string[] = []
      let stored = 0
      let loading = true
      let n = 0
      async function load(): Promise<void> {
        while (loading) {
          n += 1
          const id = n
          try {
            const [maple, home, mapleReg, homeReg] = await Promise.all([
              get('maple-ridge.localhost'),
              get('localhost'),
              // The new field is sent all along: dropped by the old contract, stored by the new one.
              send(
                `maple-ridge.localhost:${port}`,
                'POST',
                '/functions/v1/send-contact-email',
                registration(`maple${id}@example.org`, { moveIn: 'Spring' }),
              ),
              send(
                `localhost:${port}`,
                'POST',
                '/functions/v1/send-contact-email',
                registration(`home${id}@example.org`),
              ),
            ])
            for (const [name, answer] of Object.entries({ maple, home, mapleReg, homeReg }))
              if (answer.status !== 200) errors.push(`${name} ${answer.status} ${answer.text.slice(0, 200)}`)
            maplePages.push({ at: Date.now(), text: maple.text })
            defaultPages.push(home.text)
            stored += 2
          } catch (error) {
            errors.push(String(error))
          }
        }
      }
      const loaders = [load(), load()]
      await new Promise((resolve) => setTimeout(resolve, 1_000))
      const started = Date.now()
      server.process.stdin!.write(`publish maple-ridge ${nextFile}\n`)
      while (!/^publish-result /m.test(server.output())) {
        if (Date.now() - started > 600_000) throw new Error(`no publish result:\n${server.output()}`)
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
      const published = Date.now()
      const result = JSON.parse(/^publish-result (.*)$/m.exec(server.output())![1]!) as { ok: boolean; ms: number }
      await new Promise((resolve) => setTimeout(resolve, 2_000))
      loading = false
      await Promise.all(loaders)

      expect(result.ok, server.output()).toBe(true)
      // The server's own versions folder (dist/.versions/<host>-<pid>-<random>/) holds the publish.
      const versions = path.join(project.root, 'dist', '.versions')
      expect(readdirSync(versions)).toHaveLength(1)
      const newMaple = readFileSync(
        path.join(versions, readdirSync(versions)[0]!, 'maple-ridge', '1', 'index.html'),
        'utf8',
      )
      expect(newMaple).toContain('Maple Ridge, now selling')
      expect(errors).toEqual([])
      expect(maplePages.filter((page) => page.text !== oldMaple && page.text !== newMaple)).toHaveLength(0)
      expect(defaultPages.every((page) => page === defaultHtml)).toBe(true)
      const firstNew = maplePages.find((page) => page.text === newMaple)
      expect(firstNew, 'the new version was served').toBeDefined()
      expect(firstNew!.at - published).toBeLessThan(10_000)
      expect((await get('maple-ridge.localhost')).text).toBe(newMaple)
      console.log(
        `publish: text → served in ${result.ms} ms (${maplePages.length} maple pages and ${stored} registrations during the load)`,
      )
      // The file on disk is exactly the published text.
      expect(readFileSync(mapleFile, 'utf8')).toBe(mapleNext)

      // The next registration is checked by the new form and stores its new field, with no restart.
      const without = await send(
        `maple-ridge.localhost:${port}`,
        'POST',
        '/functions/v1/send-contact-email',
        registration('next@example.org'),
      )
      expect(without.status).toBe(400)
      expect(JSON.parse(without.text).errors).toEqual({ moveIn: 'Say when you would like to move in' })
      const withField = await send(
        `maple-ridge.localhost:${port}`,
        'POST',
        '/functions/v1/send-contact-email',
        registration('next@example.org', { moveIn: 'Summer 2027' }),
      )
      expect(withField.status).toBe(200)
      const db = new Database(path.join(server.dataDir, 'leads.sqlite'), { readonly: true })
      try {
        const row = db.prepare("SELECT fields FROM leads WHERE fields LIKE '%next@example.org%'").get() as {
          fields: string
        }
        expect(JSON.parse(row.fields)).toMatchObject({ email: 'next@example.org', moveIn: 'Summer 2027' })
      } finally {
        db.close()
      }
    },
  )
})
