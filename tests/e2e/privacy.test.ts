import { readFileSync } from 'node:fs'
import { AxeBuilder } from '@axe-core/playwright'
import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import type { PageConfig } from '../../schema/page-config.ts'
import { checkDetailsPagePath, registeredPagePath } from '../../schema/registration-contract.ts'
import { inlineForm, openPage, useServerAndBrowser } from './harness.ts'

// The launch's privacy page and its links, as a visitor finds them in Chromium: in the footer of every page and beside
// the form's consent note; axe's WCAG 2.1 A/AA rules on the page at phone and desktop widths.

const config = JSON.parse(readFileSync('page.config.json', 'utf8')) as PageConfig
const label = config.privacy?.linkLabel ?? 'Privacy'
const title = config.privacy?.title ?? '-'
const e2e = useServerAndBrowser()

function open(path: string, width = 1280): Promise<Page> {
  return openPage(e2e.browser, e2e.server.url + path, { dialog: 'snoozed', viewport: { width, height: 900 } })
}

async function violations(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze()
  return results.violations.flatMap((violation) =>
    violation.nodes.map(
      (node) => `${violation.id}: ${node.target.join(' ')} — ${node.failureSummary?.replace(/\s+/g, ' ')}`,
    ),
  )
}

describe('the privacy page', () => {
  it("is linked from every page's footer by a link named Privacy, with the brokerage's registered name", async () => {
    for (const path of ['/', '/no-such-page', registeredPagePath, checkDetailsPagePath, '/privacy']) {
      const page = await open(path)
      const footer = page.getByRole('contentinfo')
      await expect(footer.getByRole('link', { name: label, exact: true }).getAttribute('href'), path).resolves.toBe(
        '/privacy',
      )
      await expect(footer.textContent(), path).resolves.toContain(config.site.brokerage)
      await page.close()
    }
  })

  it("opens from the home page's footer and says who collects, what, why, how long and how to withdraw", async () => {
    const page = await open('/')
    await page.getByRole('contentinfo').getByRole('link', { name: label, exact: true }).click()
    await page.waitForURL(`${e2e.server.url}/privacy`)
    await page.getByRole('heading', { level: 1, name: title }).waitFor()
    await expect(page.title()).resolves.toBe(`${title} | ${config.site.name}`)
    const headings = await page.getByRole('heading', { level: 2 }).allTextContents()
    expect(headings).toEqual([
      'Who collects your information',
      'What we collect',
      'Why we collect it',
      'How long we keep it',
      'Counting visits',
      'Withdraw your consent, see or erase your information',
    ])
    const what = page.getByRole('region', { name: 'What we collect' })
    await expect(what.getByRole('listitem').allTextContents()).resolves.toEqual([
      'Full Name',
      'Email',
      'Phone',
      'Are You A Realtor?',
      // Whether they want updates (express consent, CASL).
      'Send me news and VIP updates about Bramblewood Crossing (optional)',
      // What a realtor is asked, and a buyer may add (the form's if/then fields).
      'Brokerage',
      'RECO registration number',
      'Are you registering on behalf of a client?',
      "Your agent's name or e-mail (optional)",
    ])
    const who = page.getByRole('region', { name: 'Who collects your information' })
    await expect(who.textContent()).resolves.toContain(config.site.brokerage)
    const email = config.reply?.brokerage.email ?? '-'
    await expect(
      page
        .getByRole('region', { name: /^Withdraw/ })
        .getByRole('link', { name: email })
        .first()
        .getAttribute('href'),
    ).resolves.toBe(`mailto:${email}`)
    await page.getByRole('link', { name: `Back to ${config.site.name}` }).click()
    await page.waitForURL(`${e2e.server.url}/`)
    await page.close()
  })

  it("is linked beside the form's consent note, inline and in the dialog", async () => {
    const page = await openPage(e2e.browser, `${e2e.server.url}/`, {
      dialog: 'expect-open',
      viewport: { width: 390, height: 900 },
    })
    const dialogLink = page
      .getByRole('dialog')
      .getByText(config.form.consent)
      .getByRole('link', { name: label, exact: true })
    await expect(dialogLink.getAttribute('href')).resolves.toBe('/privacy')
    await page.keyboard.press('Escape')
    await expect.poll(() => page.getByRole('dialog').count()).toBe(0)
    const inline = inlineForm(page).getByText(config.form.consent).getByRole('link', { name: label, exact: true })
    await inline.click()
    await page.getByRole('heading', { level: 1, name: title }).waitFor()
    await page.close()
  })

  for (const width of [390, 1280]) {
    it(`has no axe violations at ${width} px`, async () => {
      const page = await open('/privacy', width)
      await page.getByRole('heading', { level: 1, name: title }).waitFor()
      expect(await violations(page)).toEqual([])
      // Nothing wider than the screen.
      await expect(page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).resolves.toBe(true)
      await page.close()
    })
  }
})
