import { describe, expect, it } from 'vitest'
import { localAnonKey } from '../../schema/local-defaults.ts'
import { openSqliteStudioStore } from '../../src/studio/server/sqlite-store.ts'
import { inviteAndSetPassword, scaled, useServerAndBrowser } from './harness.ts'
import path from 'node:path'

// The leads page under the studio's sign-in, in Chromium against the real Node server (no LEADS_PASSWORD): a
// salesperson invited with `npm run studio:invite` chooses a password, signs in at /studio and reads the leads.

const e2e = useServerAndBrowser({})
const password = 'correct horse battery staple'
const registrant = { name: 'Odile Vantongeren', email: 'odile.vantongeren@example.org', phone: '905-555-0144' }

describe('the leads page for a studio account', () => {
  it(
    'invites a sales account, which chooses a password, signs in at /studio, reaches /leads and sees a lead',
    async () => {
      const registered = await fetch(`${e2e.server.url}/functions/v1/send-contact-email`, {
        method: 'POST',
        headers: { apikey: localAnonKey, 'content-type': 'application/json' },
        body: JSON.stringify({ ...registrant, isRealtor: 'no' }),
      })
      expect(registered.status).toBe(200)

      const { context, page } = await inviteAndSetPassword(e2e.browser, e2e.server, {
        email: 'sol.sales@example.com',
        role: 'sales',
        password,
        viewport: { width: 1280, height: 900 },
      })
      // A sales account lands on the leads page, with no second password.
      await page.getByRole('heading', { name: 'Registrations' }).waitFor()
      expect(new URL(page.url()).pathname).toBe('/leads')

      // Out (on the leads page), and in again at the studio's own sign-in.
      await page.getByRole('button', { name: 'Sign out' }).click()
      await page.getByText('You are signed out.').waitFor()
      await page.goto(`${e2e.server.url}/studio/`)
      await page.getByLabel('Email').fill('sol.sales@example.com')
      await page.getByLabel('Password').fill(password)
      await page.getByRole('button', { name: 'Sign in' }).click()
      await page.getByRole('heading', { name: 'Registrations' }).waitFor()
      expect(new URL(page.url()).pathname).toBe('/leads')

      // The lead, in the list and on its own page.
      const card = page.getByRole('link', { name: registrant.name }).first()
      await card.waitFor()
      await card.click()
      await page.getByRole('heading', { name: registrant.name, level: 1 }).waitFor()
      await expect(page.getByRole('link', { name: registrant.email }).isVisible()).resolves.toBe(true)
      expect(new URL(page.url()).pathname).toMatch(/^\/leads\/lead\/\d+$/)

      // The studio itself shows a sales account only the way to the leads page.
      await page.goto(`${e2e.server.url}/studio/`)
      await page.getByRole('link', { name: 'Open the leads page' }).click()
      await page.getByRole('heading', { name: 'Registrations' }).waitFor()
      await context.close()

      // Every look went into the studio's audit log, under the account's address and without the registrant.
      const store = openSqliteStudioStore(path.join(e2e.server.dataDir, 'studio.sqlite'))
      const log = (await store.listAudit(100)).reverse()
      store.close()
      const looks = log.filter(
        (entry) =>
          entry.who === 'sol.sales@example.com' &&
          !['accepted invitation', 'sign-in', 'sign-out'].includes(entry.action),
      )
      expect(looks.map((entry) => [entry.who, entry.action])).toEqual([
        ['sol.sales@example.com', 'viewed the leads list'],
        ['sol.sales@example.com', 'viewed the leads list'],
        ['sol.sales@example.com', 'viewed a lead'],
        ['sol.sales@example.com', 'viewed the leads list'],
      ])
      for (const value of Object.values(registrant)) expect(JSON.stringify(log)).not.toContain(value)
    },
    scaled(120_000),
  )
})
