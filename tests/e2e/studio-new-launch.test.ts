import { existsSync, readFileSync } from 'node:fs'
import { request } from 'node:http'
import path from 'node:path'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  copyProject,
  inviteAndSetPassword,
  launchBrowser,
  type RunningServer,
  scaled,
  startServer,
  waitForPublished,
} from './harness.ts'

// New launch end to end, in Chromium against the real Node server (src/cli/serve.ts) run in a COPY of the project
// (so launches/ is made there) with the built studio (dist/_studio): an owner starts a launch from the form, it opens
// in the editor, Publish builds it, and a plain HTTP GET of <slug>.localhost and of its own host answers its name.

const original = JSON.parse(readFileSync('page.config.json', 'utf8')) as { site: { name: string; email: string } }
const password = 'correct horse battery staple'
const project = copyProject()

let server: RunningServer
let browser: Browser

beforeAll(async () => {
  server = await startServer({ DIST_DIR: path.resolve(process.env.DIST_DIR || 'dist') }, { cwd: project.root })
  browser = await launchBrowser()
}, scaled(120_000))

afterAll(async () => {
  await browser?.close()
  await server?.stop()
  project.remove()
})

/** A plain GET of the server with this Host header (no browser, no studio session). */
function getWithHost(host: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: new URL(server.url).port, path: '/', headers: { host } }, (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => (body += chunk))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }))
    })
    req.on('error', reject)
    req.end()
  })
}

describe('New launch in the studio, end to end', () => {
  it(
    'starts a launch from the form, opens it in the editor, publishes it, and serves it at <slug>.localhost and its own host',
    async () => {
      const port = new URL(server.url).port
      const before = await getWithHost(`willow-bend.localhost:${port}`)
      expect(before.body, 'no launch of that name is served before').not.toContain('Willow Bend')

      const { context, page } = await inviteAndSetPassword(browser, server, {
        email: 'owner@example.com',
        password,
        cwd: project.root,
      })
      await page.getByRole('list', { name: 'Launches' }).waitFor()

      await page.getByRole('link', { name: 'New launch' }).first().click()
      await page.getByRole('heading', { name: 'New launch', level: 1 }).waitFor()
      await page.getByLabel('Copy of').selectOption({ label: original.site.name })
      await page.getByLabel('Development name', { exact: true }).fill('Willow Bend')
      await expect.poll(() => page.getByLabel('Short name (slug)').inputValue()).toBe('willow-bend')
      await page.getByLabel('Phone', { exact: true }).fill('(555) 555-0123')
      await page.getByLabel('E-mail', { exact: true }).fill('willow@example.org')
      await page.getByLabel('Address', { exact: true }).fill('Willow Lane & Concession 2, Alderbrook, ON')
      await page.getByLabel('Web address (domain)').fill('willowbend.example.org')
      await page.getByLabel('Notification address').fill('leads@example.org')
      await page.getByLabel('Reply sender').fill('hello@example.org')
      await page.getByRole('button', { name: 'New launch' }).click()

      // The new launch opens in the editor, its file made in the project's launches/.
      await page.waitForURL('**/studio/launches/willow-bend')
      await page.getByRole('heading', { name: 'Willow Bend', level: 1 }).waitFor()
      await page.getByRole('textbox', { name: 'page.config.json' }).waitFor()
      const configFile = path.join(project.root, 'launches', 'willow-bend', 'page.config.json')
      expect(existsSync(configFile)).toBe(true)
      const made = readFileSync(configFile, 'utf8')
      expect(made).not.toContain(original.site.name)
      expect(made).not.toContain(original.site.email)

      // The same name again is refused at the short name made from it. Until the launches to copy have
      // arrived the form cannot be sent (an empty "Copy of" would be refused first).
      let releaseList = () => {}
      const listHeld = new Promise<void>((resolve) => (releaseList = resolve))
      await page.route('**/studio/api/launches', async (route) => {
        if (route.request().method() === 'GET') await listHeld
        await route.continue()
      })
      await page.goto(`${server.url}/studio/?view=new-launch`)
      await page.getByLabel('Development name', { exact: true }).fill('Willow Bend')
      const send = page.getByRole('button', { name: 'New launch' })
      expect(await send.isDisabled(), 'the form cannot be sent before the launches to copy have arrived').toBe(true)
      releaseList()
      await page.getByLabel('Copy of').getByRole('option', { name: original.site.name }).waitFor({ state: 'attached' })
      await page.unroute('**/studio/api/launches')
      await page.getByRole('button', { name: 'New launch' }).click()
      const slugField = page.getByLabel('Short name (slug)', { exact: true })
      await expect.poll(() => slugField.getAttribute('aria-invalid')).toBe('true')
      await expect
        .poll(() => page.locator('#error-slug').textContent())
        .toBe('There is a launch named "willow-bend" already: choose another short name.')
      await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute('name'))).toBe('slug')

      // When the list cannot be had, the form says why instead of waiting for it for ever.
      await page.route('**/studio/api/launches', (route) =>
        route.request().method() === 'GET' ? route.abort('connectionrefused') : route.continue(),
      )
      await page.goto(`${server.url}/studio/?view=new-launch`)
      await page
        .getByRole('alert')
        .filter({ hasText: 'The studio cannot be reached: check the connection and try again.' })
        .first()
        .waitFor()
      await expect.poll(() => page.getByLabel('Copy of').getByRole('option').count()).toBe(0)
      await page.unroute('**/studio/api/launches')

      // Listed, unpublished; then published from the editor.
      await page.goto(`${server.url}/studio/`)
      await page.getByRole('list', { name: 'Launches' }).getByRole('link', { name: 'Willow Bend', exact: true }).click()
      await page.getByRole('textbox', { name: 'page.config.json' }).waitFor()
      await page.getByRole('button', { name: 'Publish', exact: true }).click()
      await page.getByRole('dialog').getByRole('button', { name: 'Publish now' }).click()
      await waitForPublished(page, 1)

      const home = await getWithHost(`willow-bend.localhost:${port}`)
      expect(home.status).toBe(200)
      expect(home.body).toMatch(/<title[^>]*>Willow Bend/)
      expect(home.body).not.toContain(original.site.name)
      const ownHost = await getWithHost('willowbend.example.org')
      expect(ownHost.status).toBe(200)
      expect(ownHost.body).toMatch(/<title[^>]*>Willow Bend/)
      // The launch it was copied from serves as before.
      expect((await getWithHost(`localhost:${port}`)).body).toContain(original.site.name)
      await context.close()
    },
    scaled(480_000),
  )
})
