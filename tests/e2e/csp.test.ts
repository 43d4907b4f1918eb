import { readFileSync } from 'node:fs'
import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import type { PageConfig } from '../../schema/page-config.ts'
import { cspHashesOf } from '../../src/server/site/security-headers.ts'
import { openPage, useServerAndBrowser, waitForToast } from './harness.ts'

// The Content-Security-Policy the server sends, checked in Chromium against the real page in every state that
// runs code: hydration, the lazily loaded form, the dialog (react-modal), both toasts (react-toastify).

const config = JSON.parse(readFileSync('page.config.json', 'utf8')) as PageConfig

const e2e = useServerAndBrowser()

/**
 * A first visit that records every CSP violation, from the DOM event and from the console; returned with the dialog
 * open.
 */
async function watchedPage(): Promise<{ page: Page; violations: string[] }> {
  const violations: string[] = []
  const page = await openPage(e2e.browser, e2e.server.url + '/', {
    dialog: 'expect-open',
    before: async (page) => {
      await page.exposeFunction('reportCspViolation', (text: string) => violations.push(text))
      await page.addInitScript(() => {
        document.addEventListener('securitypolicyviolation', (event) => {
          const report = (window as unknown as { reportCspViolation: (text: string) => void }).reportCspViolation
          void report(
            `${event.violatedDirective} blocked ${event.blockedURI || 'inline'} (${event.sourceFile}:${event.lineNumber}) ${event.sample}`,
          )
        })
      })
      page.on('console', (message) => {
        if (/Content Security Policy/i.test(message.text())) violations.push(message.text())
      })
    },
  })
  return { page, violations }
}

describe('the Content-Security-Policy', () => {
  it('is sent with the page: no inline script but the JSON-LD and the boot module by hash, no eval, framing refused', async () => {
    const response = await fetch(e2e.server.url + '/')
    const csp = response.headers.get('content-security-policy') ?? ''
    const hashes = await cspHashesOf(await response.text())
    expect(hashes).toHaveLength(2)
    expect(csp).toMatch(
      new RegExp(`script-src 'self' ${hashes.map((hash) => `'${hash.replace(/[+/]/g, '\\$&')}'`).join(' ')}(;|$)`),
    )
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval/)
    expect(csp).toContain("frame-ancestors 'none'")
    expect(response.headers.get('x-content-type-options')).toBe('nosniff')
    expect(response.headers.get('referrer-policy')).toBe('strict-origin-when-cross-origin')
  })

  it('blocks nothing the page does: load, dialog, validation, success and error toasts', async () => {
    const { page, violations } = await watchedPage()
    const dialog = page.getByRole('dialog', { name: config.modal.title })

    await dialog.getByRole('button', { name: config.form.submitLabel }).click()
    await dialog.getByText(config.form.messages.name?.required as string).waitFor()
    await dialog.getByLabel('Full Name').fill('Policy Pat')
    await dialog.getByLabel('Email').fill('pat@example.com')
    await dialog.getByLabel('Phone').fill('555-555-0100')
    await dialog.getByRole('radio', { name: 'No' }).check()
    await dialog.getByRole('button', { name: config.form.submitLabel }).click()
    await waitForToast(page, config.form.toasts.success.title)
    await expect.poll(() => page.getByRole('dialog').count()).toBe(0)

    // The function failing: the error toast.
    await page.route('**/functions/v1/send-contact-email', (route) =>
      route.fulfill({ status: 500, json: { error: 'down' } }),
    )
    const form = page.locator('#register form')
    await form.getByLabel('Full Name').fill('Policy Pat')
    await form.getByLabel('Email').fill('pat@example.com')
    await form.getByLabel('Phone').fill('555-555-0100')
    await form.getByRole('radio', { name: 'No' }).check()
    await form.getByRole('button', { name: config.form.submitLabel }).click()
    await waitForToast(page, config.form.toasts.error.title)

    expect(violations).toEqual([])
    await page.context().close()
  })
})
