import { spawn, spawnSync } from 'node:child_process'
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { request } from 'node:http'
import path from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { PageConfig } from '../../schema/page-config.ts'
import { cspHashesOf } from '../../src/server/site/security-headers.ts'
import { parseCsv } from '../server/support/csv.ts'
import {
  copyProject,
  freePort,
  launchBrowser,
  type RunningServer,
  scaled,
  scrollThroughPage,
  snoozeDialog,
  startServer,
  waitForHydration,
} from './harness.ts'

// Issue 10's walk-through, in a fresh copy of the project: a second launch beside the default one, renamed,
// `npm run build`, `npm start` (one server for both), each page in Chromium on its own host name, each lead in the
// export with its launch, each notification to its own launch's address.
const project = copyProject()
const defaultConfig = JSON.parse(readFileSync(path.join(project.root, 'page.config.json'), 'utf8')) as PageConfig
const maple = { slug: 'maple-ridge', name: 'Maple Ridge', phone: { display: '(555) 555-0161', dial: '+15555550161' } }
const mapleDir = path.join(project.root, 'launches', maple.slug)
let mapleConfig: PageConfig
const mapleLogo =
  '<svg xmlns="http://www.w3.org/2000/svg" width="240" height="48" viewBox="0 0 240 48"><title>Maple Ridge</title><rect width="240" height="48" fill="#7a2e1d"/></svg>\n'
// Only what the machine itself has: the test never reaches outside the project copy's environment.
const env = Object.fromEntries(
  Object.entries(process.env).filter(
    ([name]) => !['PAGE_CONFIG', 'DIST_DIR', 'DATA_DIR', 'NOTIFY_EMAIL', 'SMTP_URL'].includes(name),
  ),
)

let buildOutput = ''
let server: RunningServer
let browser: Browser
let port: number

function run(script: string, args: string[] = [], extraEnv: Record<string, string> = {}) {
  const result = spawnSync(process.execPath, ['--import', 'tsx', script, ...args], {
    cwd: project.root,
    env: { ...env, ...extraEnv },
    encoding: 'utf8',
  })
  return { code: result.status, stdout: result.stdout, out: `${result.stdout}${result.stderr}` }
}

beforeAll(async () => {
  // `npm run new-launch -- maple-ridge`, then the editor's rename of the development's name and phone.
  const created = run('src/cli/new-launch.ts', [maple.slug])
  if (created.code !== 0) throw new Error(`npm run new-launch failed:\n${created.out}`)
  const config = JSON.parse(readFileSync(path.join(mapleDir, 'page.config.json'), 'utf8')) as PageConfig
  config.site.name = maple.name
  config.site.phone = maple.phone
  // The checker holds the search engines' copy of the number to the site's: the editor changes both.
  config.seo.jsonLd.telephone = '+1-555-555-0161'
  // Its own sales team (the copy still has the default launch's address).
  config.launch.notifyEmail = 'sales@maple-ridge.example.com'
  writeFileSync(path.join(mapleDir, 'page.config.json'), `${JSON.stringify(config, null, 2)}\n`)
  mapleConfig = config
  // And its own logo, in its own public/.
  writeFileSync(path.join(mapleDir, 'public', config.header.logo.src), mapleLogo)

  const build = run('src/cli/build.ts')
  buildOutput = build.out
  if (build.code !== 0) throw new Error(`npm run build failed:\n${build.out}`)
  server = await startServer({}, { cwd: project.root, script: 'src/cli/start.ts', timeoutMs: 180_000 })
  port = Number(new URL(server.url).port)
  browser = await launchBrowser()
}, scaled(600_000))

afterAll(async () => {
  await browser?.close()
  await server?.stop()
  project.remove()
})

/** GET a path as curl does it: to 127.0.0.1, with the Host header given. */
function getWithHost(host: string | undefined, urlPath = '/'): Promise<{ status: number; body: string; csp: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: urlPath, headers: host ? { host } : {} }, (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => (body += chunk))
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, body, csp: String(res.headers['content-security-policy'] ?? '') }),
      )
    })
    req.on('error', reject)
    req.end()
  })
}

async function register(page: Page, config: PageConfig, person: { name: string; email: string; phone: string }) {
  const ui = config.form.uiSchema as Record<string, Record<string, unknown>>
  const title = (field: string) => {
    const written = ui[field]?.['ui:title']
    return typeof written === 'string' ? written : field
  }
  const form = page.locator(`#${config.sections.find((s) => s.type === 'registration')?.anchor} form`)
  await form.getByLabel(title('name'), { exact: true }).fill(person.name)
  await form.getByLabel(title('email'), { exact: true }).fill(person.email)
  await form.getByLabel(title('phone'), { exact: true }).fill(person.phone)
  const no = (ui.isRealtor?.['ui:enumNames'] as string[] | undefined)?.[1] ?? 'No'
  await form.getByRole('radio', { name: no, exact: true }).check()
  const [sent] = await Promise.all([
    page.waitForRequest((r) => r.url().endsWith('/functions/v1/send-contact-email') && r.method() === 'POST'),
    form.getByRole('button', { name: config.form.submitLabel }).click(),
  ])
  const body = sent.postDataJSON() as Record<string, unknown>
  await page.getByText(config.form.toasts.success.title).first().waitFor()
  return body
}

/** A visit by someone who registered here before, so the dialog stays shut, once the page has hydrated. */
async function visit(url: string): Promise<Page> {
  const context = await browser.newContext()
  const page = await context.newPage()
  page.setDefaultTimeout(scaled(20_000))
  // A launch may name a Tag Manager container: answered inside the browser, nothing leaves 127.0.0.1.
  await page.route('https://www.googletagmanager.com/**', (route) =>
    route.fulfill({ status: 200, contentType: 'text/javascript', body: '' }),
  )
  // Not the snooze: a new launch's modal.snoozeDays may be 0, and a registration holds it shut on every launch.
  await snoozeDialog(page, 'registered-before')
  await page.goto(url, { waitUntil: 'load' })
  await waitForHydration(page)
  await scrollThroughPage(page)
  return page
}

/** The outbox's messages: To and Subject of each .eml file, once `count` are there. */
async function outbox(count: number): Promise<Array<{ to: string; subject: string }>> {
  const dir = path.join(server.dataDir, 'outbox')
  const deadline = Date.now() + 30_000
  for (;;) {
    const files = existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.eml')) : []
    if (files.length >= count || Date.now() > deadline) {
      return files.map((file) => {
        const text = readFileSync(path.join(dir, file), 'utf8')
        return {
          to: /^To: (.*)$/m.exec(text)?.[1]?.trim() ?? '',
          subject: /^Subject: (.*)$/m.exec(text)?.[1]?.trim() ?? '',
        }
      })
    }
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
}

/** The function's bundle the build wrote in a project: its default launch, and each launch's slug and name. */
function readBundle(root: string): {
  defaultLaunch: string
  launches: Array<{ slug: string; site: { name: string } }>
} {
  return JSON.parse(readFileSync(path.join(root, 'supabase/functions/_shared/launches.json'), 'utf8')) as ReturnType<
    typeof readBundle
  >
}

describe('launches side by side: one build, one server', () => {
  it('builds each launch into dist/<slug>/ with one line each, and gives the function both', () => {
    expect(buildOutput).toMatch(new RegExp(`${defaultConfig.launch.slug}: built dist/${defaultConfig.launch.slug} in`))
    expect(buildOutput).toMatch(/maple-ridge: built dist\/maple-ridge in/)
    for (const slug of [defaultConfig.launch.slug, maple.slug]) {
      for (const file of ['index.html', '404.html', 'sitemap.xml', 'robots.txt', '_headers']) {
        expect(existsSync(path.join(project.root, 'dist', slug, file)), `dist/${slug}/${file}`).toBe(true)
      }
    }
    expect(readFileSync(path.join(project.root, 'dist', maple.slug, 'sitemap.xml'), 'utf8')).toContain(
      'https://maple-ridge.example.com/',
    )
    const bundle = readBundle(project.root)
    expect(bundle.defaultLaunch).toBe(defaultConfig.launch.slug)
    expect(bundle.launches.map((l) => [l.slug, l.site.name])).toEqual([
      [defaultConfig.launch.slug, defaultConfig.site.name],
      [maple.slug, maple.name],
    ])
  })

  it('npm start builds nothing that is current, and lists each launch with its local address', () => {
    const output = server.output()
    expect(output).not.toMatch(/: built dist\//)
    expect(output).toContain(`${maple.slug}: dist/${maple.slug} is up to date`)
    expect(output).toContain(`Launch ${maple.slug}: http://${maple.slug}.localhost:${port}/, ${maple.slug}.example.com`)
    expect(output).toContain(
      `Launch ${defaultConfig.launch.slug} (default): http://${defaultConfig.launch.slug}.localhost:${port}/`,
    )
  })

  it('shows Maple Ridge for Host: maple-ridge.localhost and the default launch for any other host', async () => {
    const mapleHome = await getWithHost(`${maple.slug}.localhost:${port}`)
    expect(mapleHome.status).toBe(200)
    expect(mapleHome.body).toContain(maple.name)
    expect(mapleHome.body).toContain(maple.phone.display)
    const canonicalHost = await getWithHost('maple-ridge.example.com')
    expect(canonicalHost.body).toContain(maple.name)
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, 'www.some-other-name.example', undefined]) {
      const home = await getWithHost(host)
      expect(home.status, String(host)).toBe(200)
      expect(home.body, String(host)).toContain(defaultConfig.site.phone.display)
      expect(home.body, String(host)).not.toContain(maple.name)
    }
    // Each launch's CSP allows its own page's inline JSON-LD (which holds its own phone number), not the other's.
    const defaultHome = await getWithHost(`127.0.0.1:${port}`)
    const [mapleJsonLd] = await cspHashesOf(mapleHome.body)
    const [defaultJsonLd] = await cspHashesOf(defaultHome.body)
    expect(mapleJsonLd).not.toBe(defaultJsonLd)
    expect(mapleHome.csp).toContain(`'${mapleJsonLd}'`)
    expect(mapleHome.csp).not.toContain(`'${defaultJsonLd}'`)
    expect(defaultHome.csp).toContain(`'${defaultJsonLd}'`)
    expect(defaultHome.csp).not.toContain(`'${mapleJsonLd}'`)
  })

  it("serves each launch's own 404 page, sitemap and robots.txt", async () => {
    const mapleBase = `http://${maple.slug}.localhost:${port}`
    const page = await visit(`${mapleBase}/no-such-page`)
    await page.getByRole('heading', { name: '404' }).waitFor()
    await page.goto(`${mapleBase}/sitemap.xml`)
    expect(await page.content()).toContain('https://maple-ridge.example.com/')
    const robots = await page.goto(`${mapleBase}/robots.txt`)
    expect(await robots?.text()).toContain('Sitemap: https://maple-ridge.example.com/sitemap.xml')
    const logo = mapleConfig.header.logo.src
    expect((await getWithHost(`${maple.slug}.localhost:${port}`, logo)).body).toBe(mapleLogo)
    expect((await getWithHost(`127.0.0.1:${port}`, logo)).body).toBe(
      readFileSync(path.join(project.root, 'public', logo), 'utf8'),
    )
    const missing = await getWithHost(`${maple.slug}.localhost:${port}`, '/no-such-page')
    expect(missing.status).toBe(404)
    expect(missing.body).toBe(readFileSync(path.join(project.root, 'dist', maple.slug, '404.html'), 'utf8'))
    expect(missing.body).not.toBe(
      readFileSync(path.join(project.root, 'dist', defaultConfig.launch.slug, '404.html'), 'utf8'),
    )
    const defaultRobots = await page.goto(`http://127.0.0.1:${port}/robots.txt`)
    expect(await defaultRobots?.text()).toContain(new URL('sitemap.xml', defaultConfig.seo.canonicalUrl).href)
    await page.context().close()
  })

  it(
    'files a registration on each page under its own launch: the export says which, each team is notified',
    { timeout: scaled(90_000) },
    async () => {
      const maplePage = await visit(`http://${maple.slug}.localhost:${port}/`)
      await expect(maplePage.title()).resolves.toBe(mapleConfig.seo.title)
      const mapleBody = await register(maplePage, mapleConfig, {
        name: 'Ava Maple',
        email: 'ava@example.org',
        phone: '555-555-0162',
      })
      expect(mapleBody.launch).toBe(maple.slug)
      await maplePage.context().close()

      const defaultPage = await visit(`http://127.0.0.1:${port}/`)
      const defaultBody = await register(defaultPage, defaultConfig, {
        name: 'Ben Default',
        email: 'ben@example.org',
        phone: '555-555-0163',
      })
      expect(defaultBody.launch).toBe(defaultConfig.launch.slug)
      await defaultPage.context().close()

      // Each launch also replies to its registrant (the copied config has a reply): four messages in all.
      const messages = await outbox(4)
      const notificationOf = (siteName: string, person: string) =>
        messages.find((m) => m.subject.includes(siteName) && m.subject.includes(person))
      expect(notificationOf(maple.name, 'Ava Maple')?.to).toContain('sales@maple-ridge.example.com')
      expect(notificationOf(defaultConfig.site.name, 'Ben Default')?.to).toContain(
        defaultConfig.launch.notifyEmail ?? defaultConfig.site.email,
      )
      expect(messages.filter((m) => m.to.includes('ava@example.org'))).toHaveLength(1)
      expect(messages.filter((m) => m.to.includes('ben@example.org'))).toHaveLength(1)

      const exported = run('src/cli/leads-export.ts', [], { DATA_DIR: server.dataDir })
      expect(exported.code, exported.out).toBe(0)
      const [header, ...rows] = parseCsv(exported.stdout)
      const column = (name: string) => header!.indexOf(name)
      expect(column('launch')).toBeGreaterThanOrEqual(0)
      const launchOf = (name: string) => rows.find((row) => row.includes(name))?.[column('launch')]
      expect(launchOf('Ava Maple')).toBe(maple.slug)
      expect(launchOf('Ben Default')).toBe(defaultConfig.launch.slug)
    },
  )

  it(
    'builds one launch with --launch: its entry in the function bundle changes, the other stays',
    { timeout: scaled(180_000) },
    () => {
      const file = path.join(mapleDir, 'page.config.json')
      const renamed = { ...mapleConfig, site: { ...mapleConfig.site, name: 'Maple Ridge Estates' } }
      writeFileSync(file, `${JSON.stringify(renamed, null, 2)}\n`)
      const build = run('src/cli/build.ts', ['--launch', maple.slug])
      expect(build.code, build.out).toBe(0)
      expect(build.out).toContain(`${maple.slug}: built dist/${maple.slug} in`)
      expect(build.out).not.toContain(`${defaultConfig.launch.slug}: built`)
      expect(readFileSync(path.join(project.root, 'dist', maple.slug, 'index.html'), 'utf8')).toContain(
        'Maple Ridge Estates',
      )
      const bundle = readBundle(project.root)
      expect(bundle.defaultLaunch).toBe(defaultConfig.launch.slug)
      expect(bundle.launches.map((l) => [l.slug, l.site.name])).toEqual([
        [defaultConfig.launch.slug, defaultConfig.site.name],
        [maple.slug, 'Maple Ridge Estates'],
      ])
      const unknown = run('src/cli/build.ts', ['--launch', 'no-such-launch'])
      expect(unknown.code).toBe(1)
      expect(unknown.out).toContain('There is no launch named "no-such-launch"')
      expect(unknown.out).not.toMatch(/\n\s+at /)
    },
  )

  it(
    'previews one launch with npm run dev -- --launch <slug>',
    async () => {
      const devPort = await freePort()
      const dev = spawn(
        process.execPath,
        [
          '--import',
          'tsx',
          'src/cli/dev.ts',
          '--launch',
          maple.slug,
          '--port',
          String(devPort),
          '--strictPort',
          '--host',
          '127.0.0.1',
        ],
        {
          cwd: project.root,
          env,
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      )
      let output = ''
      dev.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()))
      dev.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()))
      try {
        const deadline = Date.now() + scaled(90_000)
        while (!output.includes('ready in')) {
          if (dev.exitCode !== null || Date.now() > deadline)
            throw new Error(`the dev server did not start:\n${output}`)
          await new Promise((resolve) => setTimeout(resolve, 100))
        }
        expect(output).toContain(`Previewing launch ${maple.slug} (launches/${maple.slug}/page.config.json)`)
        const html = await (await fetch(`http://127.0.0.1:${devPort}/`)).text()
        expect(html).toContain(`<title>${mapleConfig.seo.title.replaceAll('&', '&amp;')}</title>`)
        expect(html).toContain('"launch":{"slug":"maple-ridge"}')
        // Its own public/: the launch's logo, not the default launch's.
        const logo = mapleConfig.header.logo.src
        expect(await (await fetch(`http://127.0.0.1:${devPort}${logo}`)).text()).toBe(mapleLogo)
      } finally {
        if (dev.pid && dev.exitCode === null) {
          const exited = new Promise((resolve) => dev.once('exit', resolve))
          process.kill(dev.pid, 'SIGTERM')
          await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5000))])
          if (dev.exitCode === null && dev.signalCode === null) process.kill(dev.pid, 'SIGKILL')
        }
      }
    },
    scaled(150_000),
  )
})
