import { readFileSync } from 'node:fs'
import path from 'node:path'
import Database from 'better-sqlite3'
import type { Locator, Page, Request } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import type { PageConfig } from '../../schema/page-config.ts'
import {
  fill,
  inlineForm,
  openPage,
  scrollThroughPage,
  snoozeDialog,
  useServerAndBrowser,
  waitForDialog,
  waitForHydration,
  waitForToast,
} from './harness.ts'

const config = JSON.parse(readFileSync('page.config.json', 'utf8')) as PageConfig
const { messages, toasts, submitLabel, submittingLabel, consent } = config.form
const functionPath = '/functions/v1/send-contact-email'

const e2e = useServerAndBrowser()

type Visit = { page: Page; calls: Request[]; consoleErrors: string[] }

/**
 * A visit by someone who closed the dialog before (it stays shut until the test opens it), with a log of function
 * calls.
 */
async function visit(path = '/', width = 1280): Promise<Visit> {
  const calls: Request[] = []
  const consoleErrors: string[] = []
  const page = await openPage(e2e.browser, e2e.server.url + path, {
    dialog: 'snoozed',
    viewport: { width, height: 900 },
    before: (page) => {
      page.on('request', (request) => {
        if (request.url().includes(functionPath) && request.method() === 'POST') calls.push(request)
      })
      page.on('console', (message) => {
        if (message.type() === 'error') consoleErrors.push(message.text())
      })
    },
  })
  await inlineForm(page).getByRole('button', { name: submitLabel }).and(page.locator(':enabled')).waitFor()
  return { page, calls, consoleErrors }
}

function storedLeads(): Array<{
  fields: Record<string, string>
  utm: Record<string, string>
  page_url: string
  consent_text: string
  submission_id: string
}> {
  const db = new Database(path.join(e2e.server.dataDir, 'leads.sqlite'), { readonly: true })
  try {
    const rows = db
      .prepare('SELECT fields, utm, page_url, consent_text, submission_id FROM leads ORDER BY id')
      .all() as Array<Record<string, string>>
    return rows.map((row) => ({
      fields: JSON.parse(row.fields as string),
      utm: JSON.parse(row.utm as string),
      page_url: row.page_url as string,
      consent_text: row.consent_text as string,
      submission_id: row.submission_id as string,
    }))
  } finally {
    db.close()
  }
}

/** Opens the dialog as a visitor does, with a Register button, and waits until it is ready. */
async function openDialog(page: Page): Promise<Locator> {
  await page.getByRole('link', { name: 'Register for VIP Access' }).click()
  await waitForDialog(page)
  return page.getByRole('dialog', { name: config.modal.title })
}

describe('the registration form', () => {
  it('renders the labels, the Yes/No radios with nothing chosen, and the consent note', async () => {
    const { page } = await visit()
    const form = inlineForm(page)
    for (const label of ['Full Name', 'Email', 'Phone'])
      await expect(form.getByLabel(label, { exact: true }).inputValue()).resolves.toBe('')
    const group = form.getByRole('group', { name: 'Are You A Realtor? *' })
    await expect(group.getByRole('radio', { name: 'Yes' }).isChecked()).resolves.toBe(false)
    await expect(group.getByRole('radio', { name: 'No' }).isChecked()).resolves.toBe(false)
    await expect(form.getByLabel('Phone').getAttribute('type')).resolves.toBe('tel')
    await expect(form.getByLabel('Email').getAttribute('autocomplete')).resolves.toBe('email')
    await expect(form.getByText(consent).isVisible()).resolves.toBe(true)
    await page.context().close()
  })

  it('shares one state between the inline form and the dialog', async () => {
    const { page } = await visit()
    await fill(inlineForm(page), { name: 'Jordan Lee', phone: '555 555 0199' })
    const dialog = await openDialog(page)
    await expect(dialog.getByLabel('Full Name').inputValue()).resolves.toBe('Jordan Lee')
    await dialog.getByLabel('Email').fill('jordan@example.com')
    await dialog.getByRole('radio', { name: 'Yes' }).check()
    await dialog.getByRole('button', { name: config.modal.closeLabel }).click()
    await page.getByRole('dialog').waitFor({ state: 'detached' })
    const form = inlineForm(page)
    await expect(form.getByLabel('Email').inputValue()).resolves.toBe('jordan@example.com')
    await expect(form.getByLabel('Phone').inputValue()).resolves.toBe('555 555 0199')
    await expect(
      form
        .getByRole('group', { name: /Are You A Realtor/ })
        .getByRole('radio', { name: 'Yes' })
        .isChecked(),
    ).resolves.toBe(true)
    await page.context().close()
  })

  it('shows every message under its field, tied to the input, and calls nothing while invalid', async () => {
    const { page, calls } = await visit()
    const form = inlineForm(page)
    await form.getByRole('button', { name: submitLabel }).click()
    await form.getByText(messages.name?.required ?? '-').waitFor()
    const expected = {
      'Full Name': messages.name?.required,
      Email: messages.email?.format,
      Phone: messages.phone?.minLength,
    }
    for (const [label, message] of Object.entries(expected)) {
      const input = form.getByLabel(label, { exact: true })
      await expect(input.getAttribute('aria-invalid')).resolves.toBe('true')
      const describedBy = (await input.getAttribute('aria-describedby')) ?? ''
      const described = await page.evaluate(
        (ids) =>
          ids
            .split(' ')
            .map((id) => document.getElementById(id)?.textContent ?? '')
            .join(''),
        describedBy,
      )
      expect(described).toBe(message)
    }
    await expect(form.getByText(messages.isRealtor?.required ?? '-').isVisible()).resolves.toBe(true)
    // The first invalid field gets focus, so a screen reader reads its label and message.
    await expect(page.evaluate(() => document.activeElement?.id)).resolves.toBe('inline_name')

    await fill(form, { name: '   ', email: 'not-an-email', phone: ' 12345 ', realtor: 'No' })
    await form.getByRole('button', { name: submitLabel }).click()
    await expect(form.getByText(messages.name?.required ?? '-').isVisible()).resolves.toBe(true)
    await expect(form.getByText(messages.email?.format ?? '-').isVisible()).resolves.toBe(true)
    await expect(form.getByText(messages.phone?.minLength ?? '-').isVisible()).resolves.toBe(true)

    await fill(form, { name: 'n'.repeat(101), email: `${'e'.repeat(250)}@x.com`, phone: '5'.repeat(21) })
    await form.getByRole('button', { name: submitLabel }).click()
    await expect(form.getByText(messages.name?.maxLength ?? '-').isVisible()).resolves.toBe(true)
    await expect(form.getByText(messages.email?.maxLength ?? '-').isVisible()).resolves.toBe(true)
    await expect(form.getByText(messages.phone?.maxLength ?? '-').isVisible()).resolves.toBe(true)
    expect(calls).toHaveLength(0)
    await page.context().close()
  })

  it('registers against the real local backend: submitting state, one call, toast, reset, stored with attribution', async () => {
    const before = storedLeads().length
    const { page, calls } = await visit('/?utm_source=newsletter&utm_campaign=fall-launch')
    // Hold the answer so the submitting state can be seen, then let the real server answer.
    let release: () => void = () => undefined
    const held = new Promise<void>((resolve) => (release = resolve))
    await page.route(`**${functionPath}`, async (route) => {
      await held
      await route.continue()
    })
    const form = inlineForm(page)
    await fill(form, {
      name: '  Morgan Dufresne ',
      email: ' morgan@example.com',
      phone: ' 555-555-0123 ',
      realtor: 'Yes',
    })
    await form.getByRole('button', { name: submitLabel }).click()
    const busy = form.getByRole('button', { name: submittingLabel })
    await busy.waitFor()
    await expect(busy.isDisabled()).resolves.toBe(true)
    await busy.click({ force: true }) // a second click while submitting sends nothing
    release()
    await waitForToast(page, toasts.success.title)
    await expect(page.getByText(toasts.success.text).isVisible()).resolves.toBe(true)
    await expect(form.getByLabel('Full Name').inputValue()).resolves.toBe('')
    await expect(form.getByRole('button', { name: submitLabel }).isEnabled()).resolves.toBe(true)
    expect(calls).toHaveLength(1)

    const body = calls[0]?.postDataJSON() as Record<string, unknown>
    expect(body).toMatchObject({
      name: 'Morgan Dufresne',
      email: 'morgan@example.com',
      phone: '555-555-0123',
      isRealtor: 'yes',
      launch: 'bramblewood-crossing',
      consentText: consent,
      utm: { utm_source: 'newsletter', utm_campaign: 'fall-launch' },
    })
    expect(body.pageUrl).toContain('utm_source=newsletter')
    expect(typeof body.submissionId).toBe('string')

    const leads = storedLeads()
    expect(leads).toHaveLength(before + 1)
    expect(leads.at(-1)).toMatchObject({
      fields: { name: 'Morgan Dufresne', email: 'morgan@example.com', phone: '555-555-0123', isRealtor: 'yes' },
      utm: { utm_source: 'newsletter', utm_campaign: 'fall-launch' },
      consent_text: consent,
    })
    await expect(page.evaluate(() => 'dataLayer' in window)).resolves.toBe(config.site.analytics !== undefined)
    await page.context().close()
  })

  it('closes the dialog after a successful registration from it', async () => {
    const { page } = await visit('/', 375)
    const dialog = await openDialog(page)
    await fill(dialog, { name: 'Sam Okafor', email: 'sam@example.com', phone: '5555550142', realtor: 'No' })
    await dialog.getByRole('button', { name: submitLabel }).click()
    await waitForToast(page, toasts.success.title)
    await expect.poll(() => page.getByRole('dialog').count()).toBe(0)
    await expect(inlineForm(page).getByLabel('Full Name').inputValue()).resolves.toBe('')
    await page.context().close()
  })

  it('keeps every value and shows the destructive toast when the function fails', async () => {
    const { page, calls, consoleErrors } = await visit()
    await page.route(`**${functionPath}`, (route) =>
      route.fulfill({ status: 500, contentType: 'application/json', body: '{"error":"boom"}' }),
    )
    const form = inlineForm(page)
    await fill(form, { name: 'Riley Chen', email: 'riley@example.com', phone: '555-555-0111', realtor: 'No' })
    await form.getByRole('button', { name: submitLabel }).click()
    await waitForToast(page, toasts.error.title)
    await expect(page.getByText(toasts.error.text).isVisible()).resolves.toBe(true)
    await expect(form.getByLabel('Full Name').inputValue()).resolves.toBe('Riley Chen')
    await expect(form.getByLabel('Email').inputValue()).resolves.toBe('riley@example.com')
    await expect(form.getByRole('radio', { name: 'No' }).isChecked()).resolves.toBe(true)
    await expect(form.getByRole('button', { name: submitLabel }).isEnabled()).resolves.toBe(true)
    expect(consoleErrors.some((e) => e.includes('Registration failed'))).toBe(true)

    // A retry after the failure carries the same submission id, so the server stores it once.
    await page.unroute(`**${functionPath}`)
    await form.getByRole('button', { name: submitLabel }).click()
    await waitForToast(page, toasts.success.title)
    expect(calls).toHaveLength(2)
    expect(calls[0]?.postDataJSON().submissionId).toBe(calls[1]?.postDataJSON().submissionId)
    await page.context().close()
  })

  it("shows the server's field messages under the fields when it answers 400", async () => {
    const { page } = await visit()
    await page.route(`**${functionPath}`, (route) =>
      route.fulfill({
        status: 400,
        contentType: 'application/json',
        body: JSON.stringify({ error: 'invalid', errors: { email: 'Enter a valid email' } }),
      }),
    )
    const form = inlineForm(page)
    await fill(form, { name: 'Alex Martin', email: 'alex@example.com', phone: '555-555-0177', realtor: 'No' })
    await form.getByRole('button', { name: submitLabel }).click()
    await waitForToast(page, toasts.error.title)
    await expect(form.getByText('Enter a valid email').isVisible()).resolves.toBe(true)
    await page.context().close()
  })

  it('keeps a half-filled registration across a reload of the tab, and forgets it once sent', async () => {
    const { page } = await visit()
    await fill(inlineForm(page), { name: 'Dana Whitfield', email: 'dana@example.com', realtor: 'Yes' })
    await page.reload({ waitUntil: 'load' })
    await waitForHydration(page)
    await scrollThroughPage(page)
    const form = inlineForm(page)
    await expect.poll(() => form.getByLabel('Full Name').inputValue()).toBe('Dana Whitfield')
    await expect(form.getByLabel('Email').inputValue()).resolves.toBe('dana@example.com')
    await expect(
      form
        .getByRole('group', { name: /Are You A Realtor/ })
        .getByRole('radio', { name: 'Yes' })
        .isChecked(),
    ).resolves.toBe(true)
    await fill(form, { phone: '555-555-0190' })
    await form.getByRole('button', { name: submitLabel }).click()
    await waitForToast(page, toasts.success.title)
    await page.reload({ waitUntil: 'load' })
    await waitForHydration(page)
    await inlineForm(page).getByRole('button', { name: submitLabel }).and(page.locator(':enabled')).waitFor()
    await expect(inlineForm(page).getByLabel('Full Name').inputValue()).resolves.toBe('')
    await page.context().close()
  })

  it('keeps what a visitor typed before the form code arrived', async () => {
    const context = await e2e.browser.newContext()
    const page = await context.newPage()
    await snoozeDialog(page) // the dialog stays shut
    let release: () => void = () => undefined
    const held = new Promise<void>((resolve) => (release = resolve))
    await page.route('**/assets/RegistrationForm-*.js', async (route) => {
      await held
      await route.continue()
    })
    await page.goto(e2e.server.url + '/', { waitUntil: 'domcontentloaded' })
    const form = inlineForm(page)
    await form.locator('#inline_name').fill('Early Typist')
    await form.locator('#inline_phone').fill('555-555-0100')
    release()
    await waitForHydration(page)
    await scrollThroughPage(page)
    await fill(form, { email: 'early@example.com', realtor: 'No' })
    await form.getByRole('button', { name: submitLabel }).click()
    await waitForToast(page, toasts.success.title)
    expect(
      storedLeads().some((lead) => lead.fields.name === 'Early Typist' && lead.fields.phone === '555-555-0100'),
    ).toBe(true)
    await context.close()
  })
})
