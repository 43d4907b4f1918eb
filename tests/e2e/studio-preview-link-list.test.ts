import { readFileSync } from 'node:fs'
import { AxeBuilder } from '@axe-core/playwright'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  inviteAndSetPassword,
  launchBrowser,
  type RunningServer,
  scaled,
  type ServerOnCopy,
  startServerOnCopy,
} from './harness.ts'

// Issue 42, item 8, in Chromium through the real server: preview links are kept on the server, and the studio lists a
// launch's working links under the editor (who made each, until when); an owner revokes one there and the link stops
// working at once; an editor sees the list without `Revoke`.

const config = JSON.parse(readFileSync('page.config.json', 'utf8')) as {
  site: { name: string }
}

let copy: ServerOnCopy
let server: RunningServer
let browser: Browser

beforeAll(async () => {
  copy = await startServerOnCopy('vip-preview-list-e2e-')
  server = copy.server
  browser = await launchBrowser()
}, scaled(60_000))

afterAll(async () => {
  await browser?.close()
  await copy?.stop()
})

describe('the studio’s list of preview links', () => {
  it(
    'lists a link just made with its maker, lets an owner revoke it (the link then refused), and an editor only read',
    async () => {
      const env = { PAGE_CONFIG: copy.configFile }
      const owner = await inviteAndSetPassword(browser, server, {
        email: 'owner@example.com',
        password: 'correct horse battery staple',
        env,
      })
      const { page } = owner
      await page.getByRole('link', { name: config.site.name, exact: true }).click()
      await page.getByRole('textbox', { name: 'page.config.json' }).waitFor()
      const list = page.getByRole('region', { name: 'Preview links' })
      await list.getByText('No preview link of this launch works now.').waitFor()

      await page.getByRole('button', { name: 'Preview link' }).click()
      const url = await page.getByRole('textbox', { name: /Preview link/ }).inputValue()
      expect(url).toMatch(/\/studio\/preview\/[A-Za-z0-9_-]+$/)
      const item = list.getByRole('listitem').filter({ hasText: 'Made by owner@example.com' })
      await item.waitFor()
      expect((await fetch(new URL(`/studio/api/preview/${url.split('/').pop()}`, server.url))).status).toBe(200)
      const axe = await new AxeBuilder({ page })
        .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'])
        .include('section[aria-labelledby="preview-links-heading"]')
        .analyze()
      expect(axe.violations.map((v) => v.id)).toEqual([])

      // An editor given the launch sees the link, and no way to revoke it.
      const editor = await inviteAndSetPassword(browser, server, {
        email: 'editor@example.com',
        role: 'editor',
        password: 'another horse battery staple',
        env,
      })
      await editor.page.getByRole('link', { name: config.site.name, exact: true }).click()
      const editorList = editor.page.getByRole('region', { name: 'Preview links' })
      await editorList.getByRole('listitem').filter({ hasText: 'Made by owner@example.com' }).waitFor()
      expect(await editorList.getByRole('button', { name: /Revoke/ }).count()).toBe(0)
      await editorList.getByText('An owner of the studio can revoke a link.').waitFor()
      await editor.context.close()

      page.once('dialog', (dialog) => void dialog.accept())
      await item.getByRole('button', { name: /^Revoke the preview link made by owner@example.com/ }).click()
      await list.getByText(/The preview link made by owner@example.com on .* is revoked\./).waitFor()
      await list.getByText('No preview link of this launch works now.').waitFor()
      expect((await fetch(new URL(`/studio/api/preview/${url.split('/').pop()}`, server.url))).status).toBe(404)
      await owner.context.close()
    },
    scaled(120_000),
  )
})
