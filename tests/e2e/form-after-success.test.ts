import { readFileSync } from 'node:fs'
import type { Locator, Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import type { PageConfig } from '../../schema/page-config.ts'
import {
  fill,
  inlineForm,
  scaled,
  scrollThroughPage,
  useServerAndBrowser,
  waitForHydration,
  waitForToast,
} from './harness.ts'

const config = JSON.parse(readFileSync('page.config.json', 'utf8')) as PageConfig
const { messages, toasts, submitLabel } = config.form
const fieldMessages = [...new Set(Object.values(messages).flatMap((byKeyword) => Object.values(byKeyword ?? {})))]

const e2e = useServerAndBrowser()

/**
 * A visit whose dialog does not open by itself: the dialog's memory (src/page/dialog-memory.ts) says the visitor
 * closed it a moment ago, so the test opens it only through a button, never racing its timer.
 */
async function visit(width = 1280): Promise<Page> {
  const context = await e2e.browser.newContext({ viewport: { width, height: 900 } })
  await context.addInitScript(() =>
    localStorage.setItem('registration-dialog', JSON.stringify({ closedAt: Date.now() })),
  )
  const page = await context.newPage()
  page.setDefaultTimeout(scaled(10_000))
  await page.goto(e2e.server.url + '/', { waitUntil: 'networkidle' })
  await waitForHydration(page)
  await scrollThroughPage(page)
  await inlineForm(page).getByRole('button', { name: submitLabel }).and(page.locator(':enabled')).waitFor()
  return page
}

/** Opens the registration dialog with the first button that opens it. */
async function openDialog(page: Page): Promise<Locator> {
  await page.locator('a[aria-haspopup="dialog"]').first().click()
  const dialog = page.getByRole('dialog', { name: config.modal.title })
  await dialog.getByRole('button', { name: submitLabel }).waitFor()
  return dialog
}

/** What a form shows as wrong: its visible field messages and its inputs marked invalid. */
async function shownProblems(form: Locator): Promise<string[]> {
  const problems: string[] = []
  for (const message of fieldMessages) {
    if (await form.getByText(message, { exact: true }).isVisible()) problems.push(message)
  }
  const invalid = await form
    .locator('[aria-invalid="true"]')
    .evaluateAll((inputs) => inputs.map((input) => `aria-invalid: ${input.id}`))
  return [...problems, ...invalid]
}

/** Expects a form to be empty and show nothing wrong. */
async function expectCleanAndEmpty(form: Locator) {
  expect(await shownProblems(form)).toEqual([])
  for (const label of ['Full Name', 'Email', 'Phone'])
    await expect(form.getByLabel(label, { exact: true }).inputValue()).resolves.toBe('')
  for (const radio of await form.getByRole('radio').all()) await expect(radio.isChecked()).resolves.toBe(false)
}

describe('the registration forms after a successful registration', () => {
  it('are empty and show no message after a registration through the inline form', async () => {
    const page = await visit()
    const form = inlineForm(page)
    // A first try with a mistake, as a visitor makes one: the messages show, then the fix is sent.
    await fill(form, { name: 'Morgan Dufresne', email: 'morgan@example', phone: '555-555-0123', realtor: 'Yes' })
    await form.getByRole('button', { name: submitLabel }).click()
    await form.getByText(messages.email?.format ?? '-').waitFor()
    await fill(form, { email: 'morgan@example.com' })
    await form.getByRole('button', { name: submitLabel }).click()
    await page.getByText(toasts.success.title).waitFor()
    // A check that nothing happens: any late re-validation would have shown by now (longer when the CPU is slowed).
    await page.waitForTimeout(scaled(300))
    await expectCleanAndEmpty(form)
    await expectCleanAndEmpty(await openDialog(page))

    // Until the visitor submits again: then the messages are back.
    const dialog = page.getByRole('dialog', { name: config.modal.title })
    await dialog.getByRole('button', { name: submitLabel }).click()
    await dialog.getByText(messages.name?.required ?? '-').waitFor()
    await page.context().close()
  })

  it('are empty and show no message after a registration through the dialog', async () => {
    const page = await visit()
    // The inline form was tried first, empty: its messages show.
    await inlineForm(page).getByRole('button', { name: submitLabel }).click()
    await inlineForm(page)
      .getByText(messages.name?.required ?? '-')
      .waitFor()
    const dialog = await openDialog(page)
    await fill(dialog, { name: 'Sam Okafor', email: 'sam@example.com', phone: '5555550142', realtor: 'No' })
    await dialog.getByRole('button', { name: submitLabel }).click()
    await page.getByText(toasts.success.title).waitFor()
    await page.getByRole('dialog').waitFor({ state: 'detached' })
    await page.waitForTimeout(scaled(300)) // nothing happens: as above
    await expectCleanAndEmpty(inlineForm(page))
    await expectCleanAndEmpty(await openDialog(page))

    // Until the visitor edits again: a wrong email shows its message as it is typed once they submit.
    await page.getByRole('dialog').getByRole('button', { name: config.modal.closeLabel }).click()
    await inlineForm(page).getByLabel('Email').fill('sam@')
    await inlineForm(page).getByRole('button', { name: submitLabel }).click()
    await inlineForm(page)
      .getByText(messages.email?.format ?? '-')
      .waitFor()
    await page.context().close()
  })

  it.each([375, 1280])(
    'at %i px: the key figures line up on one line each, and the notice leaves the header uncovered',
    async (width) => {
      const page = await visit(width)
      const figures = await page.locator('dl dd').evaluateAll((values) =>
        values.map((value) => ({
          top: Math.round(value.getBoundingClientRect().top),
          lines: Math.round(value.getBoundingClientRect().height / parseFloat(getComputedStyle(value).lineHeight)),
        })),
      )
      expect(figures.length).toBeGreaterThan(1)
      expect(new Set(figures.map((figure) => figure.top)).size).toBe(1)
      expect(figures.every((figure) => figure.lines === 1)).toBe(true)

      const form = inlineForm(page)
      await fill(form, { name: 'Ari Novak', email: `ari${width}@example.com`, phone: '555-555-0150', realtor: 'No' })
      await form.getByRole('button', { name: submitLabel }).click()
      const notice = await waitForToast(page, toasts.success.title) // in place: its entrance animation has ended
      const headerBottom = await page.locator('header').evaluate((header) => header.getBoundingClientRect().bottom)
      const noticeTop = await notice.evaluate((toast) => toast.getBoundingClientRect().top)
      expect(noticeTop).toBeGreaterThanOrEqual(Math.floor(headerBottom))
      await page.context().close()
    },
  )
})
