import { readFileSync } from 'node:fs'
import path from 'node:path'
import Database from 'better-sqlite3'
import { expect, it } from 'vitest'
import type { PageConfig } from '../../schema/page-config.ts'
import { fill, inlineForm, openPage, scaled, useServerAndBrowser, waitForToast } from './harness.ts'

// The updates box in Chromium (CASL): unticked when the page loads; a visitor who ticks it is stored with express
// consent, one who does not with consent implied by the inquiry.

const config = JSON.parse(readFileSync('page.config.json', 'utf8')) as PageConfig
const e2e = useServerAndBrowser()
const boxLabel = 'Send me news and VIP updates about Bramblewood Crossing (optional)'

function consentOf(email: string): string | undefined {
  const db = new Database(path.join(e2e.server.dataDir, 'leads.sqlite'), { readonly: true })
  try {
    return (
      db.prepare(`SELECT consent_kind FROM leads WHERE json_extract(fields, '$.email') = ?`).get(email) as
        { consent_kind: string } | undefined
    )?.consent_kind
  } finally {
    db.close()
  }
}

it(
  'stores express consent when the visitor ticks the updates box, implied when not',
  async () => {
    for (const [email, tick] of [
      ['ticks.the.box@example.com', true],
      ['leaves.it@example.com', false],
    ] as const) {
      const page = await openPage(e2e.browser, `${e2e.server.url}/`, {
        dialog: 'snoozed',
        viewport: { width: 390, height: 844 },
      })
      const form = inlineForm(page)
      await form.getByRole('button', { name: config.form.submitLabel }).and(page.locator(':enabled')).waitFor()
      const box = form.getByRole('checkbox', { name: boxLabel })
      await expect(box.isChecked()).resolves.toBe(false)
      await fill(form, { name: 'Morgan Dufresne', email, phone: '555-555-0123', realtor: 'No' })
      if (tick) await box.check()
      await form.getByRole('button', { name: config.form.submitLabel }).click()
      await waitForToast(page, config.form.toasts.success.title)
      expect(consentOf(email)).toBe(tick ? 'express' : 'implied')
      await page.context().close()
    }
  },
  scaled(120_000),
)
