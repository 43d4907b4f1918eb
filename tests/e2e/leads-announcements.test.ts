import { AxeBuilder } from '@axe-core/playwright'
import { describe, expect, it } from 'vitest'
import { localAnonKey } from '../../schema/local-defaults.ts'
import { inviteAndSetPassword, scaled, useServerAndBrowser } from './harness.ts'

// Announcements on the leads page, in Chromium at 390 px against the real Node server: an editor writes one,
// previews it (the page passes axe), and sends it to the one registrant who ticked the updates box.

const e2e = useServerAndBrowser({})
const wcag21 = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']

describe('the announcements page', () => {
  it(
    'previews an announcement at 390 px with no axe violations, then sends it to the registrant who may receive it',
    async () => {
      const registered = await fetch(`${e2e.server.url}/functions/v1/send-contact-email`, {
        method: 'POST',
        headers: { apikey: localAnonKey, 'content-type': 'application/json' },
        body: JSON.stringify({
          name: 'Odile Vantongeren',
          email: 'odile.vantongeren@example.org',
          phone: '905-555-0144',
          isRealtor: 'no',
          updates: true,
        }),
      })
      expect(registered.status).toBe(200)
      const { context, page } = await inviteAndSetPassword(e2e.browser, e2e.server, {
        email: 'eda.editor@example.com',
        role: 'editor',
        password: 'correct horse battery staple',
        viewport: { width: 390, height: 844 },
        bypassCSP: true,
      })
      await page.waitForURL(/\/studio\//)
      await page.goto(`${e2e.server.url}/leads/announcements`)
      await page.getByRole('heading', { name: 'Announcements', level: 1 }).waitFor()
      await page.getByLabel('Subject').fill('VIP access opens Saturday at 10')
      await page.getByLabel(/^Message/).fill('VIP access opens Saturday at 10.\n\nBring this e-mail.')
      await page.getByRole('button', { name: 'Preview' }).click()
      await page.getByRole('heading', { name: 'Preview' }).waitFor()
      await expect(page.getByText('It would go to 1 registrant').isVisible()).resolves.toBe(true)
      const result = await new AxeBuilder({ page }).withTags(wcag21).analyze()
      expect(result.violations.flatMap((v) => v.nodes.map((n) => `${v.id}: ${n.target.join(' ')}`))).toEqual([])
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390)
      await page.getByRole('button', { name: 'Send to the list' }).click()
      await page.getByText('The announcement is on its way to 1 registrant.').waitFor()
      // Listed at once; the outbox may not have sent it yet ("(0 sent so far)").
      await expect(page.getByText(/^Went to 1 registrant\b/).isVisible()).resolves.toBe(true)
      await context.close()
    },
    scaled(120_000),
  )
})
