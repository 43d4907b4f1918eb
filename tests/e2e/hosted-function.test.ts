import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import Database from 'better-sqlite3'
import type { Browser, Request, Response } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { PageConfig } from '../../schema/page-config.ts'
import { freePort, launchBrowser, openPage, scaled, startServer, waitForToast, type RunningServer } from './harness.ts'

// The hosted set-up: the static site on one origin, built with VITE_SUPABASE_URL and VITE_SUPABASE_ANON_KEY
// pointing at the function on another origin (here a second Node server standing where Supabase would).
const config = JSON.parse(readFileSync('page.config.json', 'utf8')) as PageConfig
const publishableKey = 'sb_publishable_e2e_test_key'
const distDir = mkdtempSync(path.join(tmpdir(), 'vip-hosted-dist-'))

let site: RunningServer
let functionHost: RunningServer
let browser: Browser

beforeAll(async () => {
  const [sitePort, functionPort] = [await freePort(), await freePort()]
  const functionUrl = `http://127.0.0.1:${functionPort}`
  const build = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/build.ts'], {
    env: { ...process.env, DIST_DIR: distDir, VITE_SUPABASE_URL: functionUrl, VITE_SUPABASE_ANON_KEY: publishableKey },
    encoding: 'utf8',
  })
  if (build.status !== 0) throw new Error(`The hosted build failed:\n${build.stdout}\n${build.stderr}`)
  functionHost = await startServer({
    PORT: String(functionPort),
    ANON_KEY: publishableKey,
    ALLOWED_ORIGINS: `http://127.0.0.1:${sitePort}`,
  })
  site = await startServer({
    PORT: String(sitePort),
    DIST_DIR: distDir,
    VITE_SUPABASE_URL: functionUrl,
    ANON_KEY: publishableKey,
  })
  browser = await launchBrowser()
}, scaled(300_000)) // a build and two servers' start on a loaded machine

afterAll(async () => {
  await browser?.close()
  await site?.stop()
  await functionHost?.stop()
  rmSync(distDir, { recursive: true, force: true })
})

function leadsIn(dataDir: string): number {
  const file = path.join(dataDir, 'leads.sqlite')
  if (!existsSync(file)) return 0
  const db = new Database(file, { readonly: true })
  try {
    return (db.prepare('SELECT count(*) AS n FROM leads').get() as { n: number }).n
  } finally {
    db.close()
  }
}

describe('the site with a hosted function (VITE_SUPABASE_URL)', () => {
  it('sends the registration across origins with the publishable key, and the function stores it', async () => {
    const calls: Request[] = []
    const violations: string[] = []
    // A first visit: the dialog opens by itself, and the visitor closes it before using the inline form.
    const page = await openPage(browser, site.url + '/', {
      dialog: 'wait-and-close',
      stepTimeoutMs: 15_000,
      before: (page) => {
        page.on('request', (request) => {
          if (request.url().includes('/functions/v1/send-contact-email')) calls.push(request)
        })
        page.on('console', (message) => {
          if (/Content Security Policy|CORS/i.test(message.text())) violations.push(message.text())
        })
      },
    })
    const form = page.locator('#register form')
    await form.getByLabel('Full Name').fill('Hosted Visitor')
    await form.getByLabel('Email').fill('hosted@example.com')
    await form.getByLabel('Phone').fill('555-555-0111')
    await form.getByRole('radio', { name: 'No' }).check()
    await form.getByRole('button', { name: config.form.submitLabel }).click()
    await waitForToast(page, config.form.toasts.success.title)

    const post = calls.find((call) => call.method() === 'POST')
    expect(post?.url()).toBe(`${functionHost.url}/functions/v1/send-contact-email`)
    expect(post?.headers().apikey).toBe(publishableKey)
    expect(leadsIn(functionHost.dataDir)).toBe(1)
    expect(leadsIn(site.dataDir)).toBe(0)
    expect(violations).toEqual([])
    await page.close()
  })

  it('takes a registration without JavaScript: the form posts to the hosted function (CSP form-action allows it), which sends the visitor back to the thank-you page', async () => {
    const violations: string[] = []
    const page = await openPage(browser, site.url + '/', {
      dialog: 'snoozed',
      context: { javaScriptEnabled: false },
      stepTimeoutMs: 15_000,
      before: (page) => {
        page.on('console', (message) => {
          if (/Content Security Policy/i.test(message.text())) violations.push(message.text())
        })
      },
    })
    const form = page.locator('#register form')
    await expect(form.getAttribute('action')).resolves.toBe(`${functionHost.url}/functions/v1/send-contact-email`)
    await form.getByLabel('Full Name').fill('Hosted Noscript')
    await form.getByLabel('Email').fill('hosted-nojs@example.com')
    await form.getByLabel('Phone').fill('555-555-0112')
    await form
      .getByRole('group', { name: /Are You A Realtor/ })
      .getByRole('radio', { name: 'No' })
      .check()
    const before = leadsIn(functionHost.dataDir)
    await Promise.all([
      page.waitForURL(`${site.url}/registered.html`),
      form.getByRole('button', { name: config.form.submitLabel }).click(),
    ])
    await expect(
      page.getByRole('heading', { level: 1, name: config.form.toasts.success.title }).isVisible(),
    ).resolves.toBe(true)
    expect(leadsIn(functionHost.dataDir)).toBe(before + 1)
    expect(violations).toEqual([])
    await page.context().close()
  })

  it("counts the visit by the page's image at the hosted function, with JavaScript off and no referrer; the site's own server counts none", async () => {
    const images: Response[] = []
    const page = await openPage(browser, site.url + '/', {
      dialog: 'snoozed',
      // A phone's browser: a headless one is not counted (visit-counter.ts takes it for a robot).
      context: {
        javaScriptEnabled: false,
        userAgent:
          'Mozilla/5.0 (Linux; Android 14) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0 Mobile Safari/537.36',
      },
      stepTimeoutMs: 15_000,
      before: (page) => {
        page.on('response', (response) => {
          if (response.url().includes('/send-contact-email/visit/')) images.push(response)
        })
      },
    })
    await expect.poll(() => images.length, { timeout: scaled(10_000) }).toBe(1)
    const image = images[0]!
    expect(image.url()).toBe(`${functionHost.url}/functions/v1/send-contact-email/visit/${config.launch.slug}`)
    expect(image.status()).toBe(200)
    expect(await image.request().headerValue('referer')).toBeNull()
    await page.context().close()

    // Each server writes its counts when it stops: the function's has this visit, the site's (which served the page)
    // none.
    const counts = async (server: RunningServer) => {
      const exited = new Promise((resolve) => server.process.once('exit', resolve))
      server.process.kill('SIGTERM')
      await exited
      const db = new Database(path.join(server.dataDir, 'leads.sqlite'), { readonly: true })
      try {
        return db
          .prepare('SELECT launch, sum(visits) AS visits, sum(visitors) AS visitors FROM visit_counts GROUP BY launch')
          .all()
      } finally {
        db.close()
      }
    }
    expect(await counts(functionHost)).toEqual([{ launch: config.launch.slug, visits: 1, visitors: 1 }])
    expect(await counts(site)).toEqual([])
  })
})
