import { spawnSync } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import Database from 'better-sqlite3'
import { tmpdir } from 'node:os'
import path from 'node:path'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { PageConfig } from '../../schema/page-config.ts'
import {
  copyProject,
  launchBrowser,
  type RunningServer,
  scaled,
  scrollThroughPage,
  snoozeDialog,
  startServer,
  waitForHydration,
  waitForToast,
} from './harness.ts'

// A second development, built and served from the same code with nothing but PAGE_CONFIG changed (in a copy of the
// project, so the build's function bundle is not this checkout's).
const configFile = path.resolve('tests/fixtures/second-launch/page.config.json')
const second = JSON.parse(readFileSync(configFile, 'utf8')) as PageConfig
const first = JSON.parse(readFileSync('page.config.json', 'utf8')) as PageConfig
const distDir = mkdtempSync(path.join(tmpdir(), 'vip-second-launch-'))
const project = copyProject()

// What identifies the first development: none of it may reach the second one's files.
const firstDevelopmentText = [
  first.site.name,
  first.site.brokerage,
  first.site.phone.display,
  first.site.phone.dial,
  first.site.email,
  first.seo.canonicalUrl,
  first.seo.title,
  ...first.footer.disclaimers,
]

let server: RunningServer
let browser: Browser

beforeAll(async () => {
  const build = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/build.ts'], {
    cwd: project.root,
    env: { ...process.env, PAGE_CONFIG: configFile, DIST_DIR: distDir },
    encoding: 'utf8',
  })
  if (build.status !== 0) throw new Error(`The second launch did not build:\n${build.stdout}\n${build.stderr}`)
  server = await startServer({ PAGE_CONFIG: configFile, DIST_DIR: distDir }, { cwd: project.root })
  browser = await launchBrowser()
}, scaled(180_000))

afterAll(async () => {
  await browser?.close()
  await server?.stop()
  rmSync(distDir, { recursive: true, force: true })
  project.remove()
})

describe('a second launch from the same code', () => {
  it('has none of the first development in any built file', () => {
    const files = readdirSync(distDir, { recursive: true, withFileTypes: true }).filter(
      (entry) => entry.isFile() && /\.(html|js|css|json|xml|txt|svg)$|_headers$/.test(entry.name),
    )
    expect(files.length).toBeGreaterThan(5)
    for (const entry of files) {
      const text = readFileSync(path.join(entry.parentPath, entry.name), 'utf8')
      for (const needle of firstDevelopmentText) {
        expect(text.includes(needle), `${entry.name} contains "${needle}"`).toBe(false)
      }
    }
  })

  it('renders its own sections, in its own order, with its own head', async () => {
    const page = await browser.newPage()
    // Its dialog would open by itself and hide the page from role-based locators: this visitor registered before.
    await snoozeDialog(page, 'registered-before')
    // The prerendered HTML is what is checked here: no need to wait for the lazy parts (slow on a loaded machine).
    await page.goto(server.url + '/', { waitUntil: 'load' })
    await expect(page.title()).resolves.toBe(second.seo.title)
    const ids = await page.locator('main > section').evaluateAll((sections) => sections.map((s) => s.id))
    expect(ids).toEqual(second.sections.map((s) => s.anchor))
    const hero = second.sections.find((s) => s.type === 'hero')
    await expect(page.locator('h1').textContent()).resolves.toBe(hero?.heading)
    await expect(
      page.getByRole('link', { name: second.site.phone.display }).first().getAttribute('href'),
    ).resolves.toBe(`tel:${second.site.phone.dial}`)
    await page.close()
  })

  it('serves its large photos as AVIF/WebP variants sized for a phone', async () => {
    const context = await browser.newContext({ viewport: { width: 375, height: 800 }, deviceScaleFactor: 2 })
    const page = await context.newPage()
    const images: string[] = []
    page.on('response', (response) => {
      if (response.request().resourceType() === 'image') images.push(response.url())
    })
    await page.goto(server.url + '/', { waitUntil: 'networkidle' })
    const sources = await page.locator('picture source').evaluateAll((list) => list.map((s) => s.getAttribute('type')))
    expect(sources).toContain('image/avif')
    expect(images.some((url) => /\/images\/_v\/.+\.avif$/.test(url))).toBe(true)
    expect(images.some((url) => /\.(jpe?g|png)$/.test(url) && url.includes('/images/') && !url.includes('_v'))).toBe(
      false,
    )
    await context.close()
  })

  it('takes a field added to the form schema alone: both forms, the message, the request, the stored lead', async () => {
    const context = await browser.newContext()
    const page = await context.newPage()
    page.setDefaultTimeout(scaled(10_000))
    const tagManager: string[] = []
    // The container is answered inside the browser: the test sends nothing beyond 127.0.0.1.
    await page.route('https://www.googletagmanager.com/**', (route) => {
      tagManager.push(route.request().url())
      return route.fulfill({ status: 200, contentType: 'text/javascript', body: '/* container */' })
    })
    // This launch's modal.snoozeDays is 0: a registration before is what keeps its dialog shut by itself.
    await snoozeDialog(page, 'registered-before')
    await page.goto(server.url + '/', { waitUntil: 'load' })
    await waitForHydration(page)
    await scrollThroughPage(page)
    const ui = second.form.uiSchema as Record<string, Record<string, string>>
    const form = page.locator(`#${second.sections.find((s) => s.type === 'registration')?.anchor} form`)
    const postalLabel = ui.postalCode?.['ui:title'] ?? ''
    await form.getByLabel(ui.name?.['ui:title'] ?? '').fill('Noor Haddad')
    await form.getByLabel(ui.email?.['ui:title'] ?? '').fill('noor@example.org')
    await form.getByLabel(ui.phone?.['ui:title'] ?? '').fill('555-555-0187')
    await form.getByLabel(postalLabel).fill('12345')
    await form.getByRole('radio', { name: "No, I'm not" }).check()
    await form.getByRole('button', { name: second.form.submitLabel }).click()
    await form.getByText(second.form.messages.postalCode?.pattern ?? '-').waitFor()

    await form.getByLabel(postalLabel).fill(' N0B 2K0 ')
    const request = page.waitForRequest(
      (r) => r.url().endsWith('/functions/v1/send-contact-email') && r.method() === 'POST',
    )
    await form.getByRole('button', { name: second.form.submitLabel }).click()
    expect((await request).postDataJSON()).toMatchObject({ postalCode: 'N0B 2K0', isRealtor: 'no' })
    await waitForToast(page, second.form.toasts.success.title)

    const db = new Database(path.join(server.dataDir, 'leads.sqlite'), { readonly: true })
    const stored = db.prepare('SELECT fields FROM leads').all() as Array<{ fields: string }>
    db.close()
    expect(stored.map((row) => JSON.parse(row.fields))).toContainEqual(
      expect.objectContaining({ name: 'Noor Haddad', postalCode: 'N0B 2K0' }),
    )

    // The config names a Tag Manager container: it is loaded, and the registration is reported to it.
    expect(tagManager.some((url) => url.includes(`id=${second.site.analytics?.gtmId}`))).toBe(true)
    const events = await page.evaluate(() =>
      (window as Window & { dataLayer?: Array<{ event?: string }> }).dataLayer?.map((e) => e.event),
    )
    expect(events).toContain('generate_lead')
    const csp = (await fetch(server.url + '/')).headers.get('content-security-policy') ?? ''
    expect(csp).toContain('https://www.googletagmanager.com')
    await context.close()
  })

  it('shows a conditional field (if/then) only when its condition holds, requires it then, and stores it', async () => {
    const context = await browser.newContext()
    const page = await context.newPage()
    page.setDefaultTimeout(scaled(10_000))
    await snoozeDialog(page, 'registered-before') // the dialog stays shut (this launch's snoozeDays is 0)
    await page.goto(server.url + '/', { waitUntil: 'load' })
    await waitForHydration(page)
    await scrollThroughPage(page)
    const ui = second.form.uiSchema as Record<string, Record<string, string>>
    const brokerageLabel = ui.brokerage?.['ui:title'] ?? '-'
    const form = page.locator(`#${second.sections.find((s) => s.type === 'registration')?.anchor} form`)
    await form.getByLabel(ui.name?.['ui:title'] ?? '').fill('Priya Agent')
    await form.getByLabel(ui.email?.['ui:title'] ?? '').fill('priya@example.org')
    await form.getByLabel(ui.phone?.['ui:title'] ?? '').fill('555-555-0191')
    await expect(form.getByLabel(brokerageLabel).count()).resolves.toBe(0)
    await form.getByRole('radio', { name: 'Yes, I am' }).check()
    await form.getByLabel(brokerageLabel).waitFor()
    await form.getByRole('button', { name: second.form.submitLabel }).click()
    // The browser's precompiled validator applies the branch: its message, under the field, nothing sent.
    await form.getByText(second.form.messages.brokerage?.required ?? '-').waitFor()
    await form.getByLabel(brokerageLabel).fill(' Lakeside Realty ')
    await form.getByRole('button', { name: second.form.submitLabel }).click()
    await page.getByText(second.form.toasts.success.title).waitFor()

    // Chosen "No", the field goes away and is not required.
    await form.getByLabel(ui.name?.['ui:title'] ?? '').fill('Sam Buyer')
    await form.getByLabel(ui.email?.['ui:title'] ?? '').fill('sam@example.org')
    await form.getByLabel(ui.phone?.['ui:title'] ?? '').fill('555-555-0192')
    await form.getByRole('radio', { name: 'Yes, I am' }).check()
    await form.getByLabel(brokerageLabel).waitFor()
    await form.getByRole('radio', { name: "No, I'm not" }).check()
    await expect.poll(() => form.getByLabel(brokerageLabel).count()).toBe(0)
    // The first success toast may still show: the answer to this second registration is what to wait for.
    const answered = page.waitForResponse(
      (r) => r.url().endsWith('/functions/v1/send-contact-email') && r.request().method() === 'POST',
    )
    await form.getByRole('button', { name: second.form.submitLabel }).click()
    await answered
    await page.getByText(second.form.toasts.success.title).nth(0).waitFor()
    await context.close()

    // Without JavaScript the empty form cannot know it; the server's answer adds the field with its message.
    const noScript = await browser.newContext({ javaScriptEnabled: false })
    const plain = await noScript.newPage()
    await plain.goto(server.url + '/')
    let plainForm = plain.locator('form')
    await plainForm.getByLabel(ui.name?.['ui:title'] ?? '').fill('Kai Agent')
    await plainForm.getByLabel(ui.email?.['ui:title'] ?? '').fill('kai@example.org')
    await plainForm.getByLabel(ui.phone?.['ui:title'] ?? '').fill('555-555-0193')
    await plainForm.getByRole('radio', { name: 'Yes, I am' }).check()
    await Promise.all([
      plain.waitForNavigation(),
      plainForm.getByRole('button', { name: second.form.submitLabel }).click(),
    ])
    plainForm = plain.locator('form')
    await expect(plainForm.getByText(second.form.messages.brokerage?.required ?? '-').isVisible()).resolves.toBe(true)
    await plainForm.getByLabel(brokerageLabel).fill('Harbour Homes')
    await Promise.all([
      plain.waitForNavigation(),
      plainForm.getByRole('button', { name: second.form.submitLabel }).click(),
    ])
    expect(new URL(plain.url()).pathname).toBe('/registered.html')
    await noScript.close()

    const db = new Database(path.join(server.dataDir, 'leads.sqlite'), { readonly: true })
    const stored = (db.prepare('SELECT fields FROM leads').all() as Array<{ fields: string }>).map(
      (row) => JSON.parse(row.fields) as Record<string, string>,
    )
    db.close()
    expect(stored.find((f) => f.name === 'Priya Agent')).toMatchObject({
      isRealtor: 'yes',
      brokerage: 'Lakeside Realty',
    })
    expect(stored.find((f) => f.name === 'Sam Buyer')).toEqual(
      expect.not.objectContaining({ brokerage: expect.anything() }),
    )
    expect(stored.find((f) => f.name === 'Kai Agent')).toMatchObject({ brokerage: 'Harbour Homes' })
  })
})
