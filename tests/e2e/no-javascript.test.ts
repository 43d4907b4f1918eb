import { spawnSync } from 'node:child_process'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import type { Page } from 'playwright-core'
import { parse } from 'csv-parse/sync'
import { describe, expect, it } from 'vitest'
import type { PageConfig } from '../../schema/page-config.ts'
import { openSqliteStore } from '../../src/server/store/sqlite/sqlite-store.ts'
import {
  fill,
  inlineForm,
  installPausedClock,
  scaled,
  scrollThroughPage,
  snoozeDialog,
  useServerAndBrowser,
  waitForHydration,
  waitForToast,
} from './harness.ts'

// Issue 12: a registration that cannot fail. Without JavaScript, with the form's code blocked, after a lost answer.
const config = JSON.parse(readFileSync('page.config.json', 'utf8')) as PageConfig
const { messages, toasts, submitLabel } = config.form
const functionPath = '/functions/v1/send-contact-email'

const e2e = useServerAndBrowser()

/** Every lead as `npm run leads:export` writes it, as rows of column → value. */
function exportedLeads(): Array<Record<string, string>> {
  const result = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/leads-export.ts'], {
    // DATA_DIR, not a PostgreSQL the environment may name for other tests.
    env: { ...process.env, DATABASE_URL: '', DATA_DIR: e2e.server.dataDir },
    encoding: 'utf8',
  })
  if (result.status !== 0) throw new Error(`leads:export failed:\n${result.stderr}`)
  return parse<Record<string, string>>(result.stdout, { columns: true, bom: true })
}

/** The notification .eml files the server wrote so far, as text. */
function notifications(): string[] {
  const dir = path.join(e2e.server.dataDir, 'outbox')
  if (!existsSync(dir)) return []
  return readdirSync(dir)
    .filter((f) => f.endsWith('.eml'))
    .map((f) => readFileSync(path.join(dir, f), 'utf8'))
}

describe('registering without JavaScript', () => {
  it('shows the four messages on the answer to an empty form, keeps values, then thanks on a page in the site look; stored and notified', async () => {
    const context = await e2e.browser.newContext({ javaScriptEnabled: false })
    const page = await context.newPage()
    page.setDefaultTimeout(scaled(10_000))
    await page.goto(`${e2e.server.url}/?utm_source=flyer&gclid=GCLID-nojs`)
    let form = inlineForm(page)
    await expect(form.getAttribute('method')).resolves.toBe('post')
    await expect(form.getAttribute('action')).resolves.toBe(functionPath)
    const button = form.getByRole('button', { name: submitLabel })
    await expect(button.isEnabled()).resolves.toBe(true)
    // A realtor's fields are there from the start (no script can show them on "Yes"), under their heading, and
    // required of no one: this buyer leaves them empty.
    const realtorFields = form.getByRole('group', { name: config.form.noScript?.branchHeadings?.['isRealtor=yes'] })
    await expect(realtorFields.getByLabel('Brokerage', { exact: true }).isVisible()).resolves.toBe(true)
    await expect(realtorFields.locator('[required], [aria-required="true"]').count()).resolves.toBe(0)

    const [answer] = await Promise.all([page.waitForNavigation(), button.click()])
    expect(answer?.request().method()).toBe('POST')
    expect(answer?.status()).toBe(400)
    form = inlineForm(page)
    for (const message of [
      messages.name?.required,
      messages.email?.required,
      messages.phone?.required,
      messages.isRealtor?.required,
    ]) {
      await expect(form.getByText(message ?? '-', { exact: true }).isVisible()).resolves.toBe(true)
    }
    await expect(form.getByLabel('Full Name').getAttribute('aria-invalid')).resolves.toBe('true')
    // The first field to correct has focus, so the visitor lands on it.
    await expect(page.evaluate(() => document.activeElement?.getAttribute('name'))).resolves.toBe('name')

    await fill(form, { name: 'Noscript Visitor', email: 'nojs@example', phone: '555-555-0142', realtor: 'No' })
    await Promise.all([page.waitForNavigation(), form.getByRole('button', { name: submitLabel }).click()])
    form = inlineForm(page)
    await expect(form.getByText(messages.email?.format ?? '-').isVisible()).resolves.toBe(true)
    await expect(form.getByLabel('Full Name').inputValue()).resolves.toBe('Noscript Visitor')
    const realtorChoice = form.getByRole('group', { name: /Are You A Realtor\?/ })
    await expect(realtorChoice.getByRole('radio', { name: 'No' }).isChecked()).resolves.toBe(true)
    await expect(form.getByText(messages.name?.required ?? '-').count()).resolves.toBe(0)

    await form.getByLabel('Email').fill('nojs@example.com')
    await Promise.all([page.waitForNavigation(), form.getByRole('button', { name: submitLabel }).click()])
    expect(new URL(page.url()).pathname).toBe('/registered.html')
    await expect(page.getByRole('heading', { level: 1, name: toasts.success.title }).isVisible()).resolves.toBe(true)
    await expect(page.getByText(toasts.success.text).isVisible()).resolves.toBe(true)
    await expect(
      page.getByRole('link', { name: config.form.noScript?.backLabel ?? 'Back to the page' }).getAttribute('href'),
    ).resolves.toBe('/')
    // In the site's look: the same inlined stylesheet as the home page.
    const styled = await page.evaluate(() => getComputedStyle(document.querySelector('h1')!).fontFamily)
    expect(styled).not.toBe('')
    expect(await page.locator('style').count()).toBeGreaterThan(0)

    const lead = exportedLeads().find((row) => row.name === 'Noscript Visitor')
    expect(lead).toMatchObject({
      email: 'nojs@example.com',
      phone: '555-555-0142',
      isRealtor: 'no',
      utm_source: 'flyer',
      gclid: 'GCLID-nojs',
      landing_page: '/',
      suspected_spam: '',
    })
    // Sent empty, a realtor's fields (and the agent's) are stored as nothing.
    const store = openSqliteStore(path.join(e2e.server.dataDir, 'leads.sqlite'), {
      defaultLaunch: config.launch.slug,
      readonly: true,
    })
    try {
      const stored = (await store.listLeads(0, 50)).find((row) => row.fields.name === 'Noscript Visitor')
      expect(stored?.fields).toEqual({
        name: 'Noscript Visitor',
        email: 'nojs@example.com',
        phone: '555-555-0142',
        isRealtor: 'no',
      })
    } finally {
      await store.close()
    }
    await expect
      .poll(() => notifications().some((mail) => mail.includes('Noscript Visitor')), { timeout: scaled(10_000) })
      .toBe(true)
    await context.close()
  })

  it('registers with JavaScript on but the form code blocked', async () => {
    const context = await e2e.browser.newContext()
    const page = await context.newPage()
    page.setDefaultTimeout(scaled(10_000))
    await page.route('**/assets/RegistrationForm-*.js', (route) => route.abort())
    await snoozeDialog(page) // the dialog stays shut
    await page.goto(`${e2e.server.url}/`, { waitUntil: 'networkidle' })
    const form = inlineForm(page)
    await fill(form, { name: 'Blocked Chunk', email: 'blocked@example.com', phone: '555-555-0143', realtor: 'No' })
    const [answer] = await Promise.all([
      page.waitForNavigation(),
      form.getByRole('button', { name: submitLabel }).click(),
    ])
    // The browser's own POST, answered 303: the details never travel in an address.
    expect(answer?.request().redirectedFrom()?.method()).toBe('POST')
    expect(answer?.request().redirectedFrom()?.url()).toBe(`${e2e.server.url}${functionPath}`)
    expect(new URL(page.url()).pathname).toBe('/registered.html')
    expect(page.url()).not.toContain('blocked')
    await expect(page.getByRole('heading', { level: 1, name: toasts.success.title }).isVisible()).resolves.toBe(true)
    expect(exportedLeads().filter((row) => row.name === 'Blocked Chunk')).toHaveLength(1)
    await context.close()
  })
})

describe('a lost answer', () => {
  it('stores the corrected registration once, as a new submission, and shows success', async () => {
    const context = await e2e.browser.newContext()
    const page = await context.newPage()
    page.setDefaultTimeout(scaled(10_000))
    await snoozeDialog(page) // the dialog stays shut
    await page.goto(`${e2e.server.url}/`, { waitUntil: 'load' })
    await waitForHydration(page)
    await scrollThroughPage(page)
    const bodies: Array<Record<string, unknown>> = []
    let first = true
    await page.route(`**${functionPath}`, async (route) => {
      if (route.request().method() === 'POST') bodies.push(route.request().postDataJSON() as Record<string, unknown>)
      if (first && route.request().method() === 'POST') {
        first = false
        await route.fetch() // the server stores it …
        await route.abort('connectionreset') // … and the browser never hears back
        return
      }
      await route.continue()
    })
    const form = inlineForm(page)
    await form.getByRole('button', { name: submitLabel }).and(page.locator(':enabled')).waitFor()
    await fill(form, { name: 'Lost Answer', email: 'lost@example.com', phone: '555-555-0150', realtor: 'No' })
    await form.getByRole('button', { name: submitLabel }).click()
    await waitForToast(page, toasts.error.title)
    await fill(form, { phone: '555-555-0151' })
    await form.getByRole('button', { name: submitLabel }).click()
    await waitForToast(page, toasts.success.title)

    expect(bodies).toHaveLength(2)
    expect(bodies[1]?.submissionId).not.toBe(bodies[0]?.submissionId)
    const phones = exportedLeads()
      .filter((row) => row.name === 'Lost Answer')
      .map((row) => row.phone)
    expect(phones.sort()).toEqual(['555-555-0150', '555-555-0151'])
    await context.close()
  })
})

describe('the dialog knows the visitor', () => {
  async function load(page: Page) {
    await installPausedClock(page, new Date('2026-01-01T00:00:01Z'))
    await page.goto(`${e2e.server.url}/`, { waitUntil: 'networkidle' })
    await inlineForm(page).getByRole('button', { name: submitLabel }).waitFor()
    await page.clock.runFor(config.modal.openDelayMs + 10)
    await page.clock.resume()
  }
  const dialogs = (page: Page) => page.getByRole('dialog', { name: config.modal.title })

  it('opens by itself for a new visitor, not after a registration, and not after a close (for modal.snoozeDays)', async () => {
    expect(config.modal.snoozeDays).toBe(7)
    const registering = await e2e.browser.newContext()
    let page = await registering.newPage()
    page.setDefaultTimeout(scaled(10_000))
    await load(page)
    const dialog = dialogs(page)
    await dialog.waitFor()
    await fill(dialog, { name: 'Dialog Memory', email: 'memory@example.com', phone: '555-555-0160', realtor: 'No' })
    await dialog.getByRole('button', { name: submitLabel }).click()
    await waitForToast(page, toasts.success.title)
    await page.close()
    page = await registering.newPage()
    await load(page)
    // The page hydrated and its clock moved past the delay: an open would have begun. A check that nothing happens
    // can only wait (longer when the CPU is slowed).
    await waitForHydration(page)
    await page.waitForTimeout(scaled(300))
    await expect(dialogs(page).count()).resolves.toBe(0)
    // A Register button still opens it.
    await page.getByRole('link', { name: 'Register for VIP Access' }).click()
    await dialogs(page).waitFor()
    await registering.close()

    const closing = await e2e.browser.newContext()
    page = await closing.newPage()
    page.setDefaultTimeout(scaled(10_000))
    await load(page)
    await dialogs(page).waitFor()
    await dialogs(page).getByRole('button', { name: config.modal.closeLabel }).click()
    await page.reload({ waitUntil: 'networkidle' })
    await waitForHydration(page)
    await page.clock.runFor(config.modal.openDelayMs + 10)
    await page.waitForTimeout(scaled(300)) // nothing happens: as above
    await expect(dialogs(page).count()).resolves.toBe(0)
    // Eight days on, it opens by itself again.
    await page.clock.setSystemTime(new Date('2026-01-09T00:00:00Z'))
    await page.reload({ waitUntil: 'networkidle' })
    await page.clock.runFor(config.modal.openDelayMs + 10)
    await dialogs(page).waitFor()
    await closing.close()

    const newcomer = await e2e.browser.newContext()
    page = await newcomer.newPage()
    page.setDefaultTimeout(scaled(10_000))
    await installPausedClock(page, new Date('2026-01-01T00:00:01Z'))
    await page.goto(`${e2e.server.url}/`, { waitUntil: 'networkidle' })
    await page.clock.runFor(config.modal.openDelayMs - 50)
    await expect(dialogs(page).count()).resolves.toBe(0)
    await page.clock.runFor(60)
    await page.clock.resume()
    await dialogs(page).waitFor()
    await newcomer.close()
  })
})

describe('the honeypot', () => {
  // Names and label words browsers' autofill matches; a honeypot named like one gets filled for real visitors.
  const autofillProne =
    /name|mail|phone|tel|address|street|city|zip|postal|company|organi[sz]ation|website|url|country|birth|card/i

  it('is out of sight, out of the tab order, named and labelled like no field autofill knows; the real fields say what they are', async () => {
    const context = await e2e.browser.newContext({ javaScriptEnabled: false })
    const page = await context.newPage()
    await page.goto(`${e2e.server.url}/`)
    const form = inlineForm(page)
    const audit = await form.locator('input').evaluateAll((inputs) =>
      inputs.map((input) => ({
        name: input.getAttribute('name') ?? '',
        type: input.getAttribute('type') ?? '',
        autocomplete: input.getAttribute('autocomplete'),
        tabindex: input.getAttribute('tabindex'),
        hidden: Boolean(input.closest('[aria-hidden="true"]')),
        label: (input as HTMLInputElement).labels?.[0]?.textContent ?? '',
        id: input.id,
      })),
    )
    const honeypots = audit.filter((input) => input.hidden)
    expect(honeypots).toHaveLength(1)
    const [honeypot] = honeypots
    expect(honeypot).toMatchObject({ autocomplete: 'off', tabindex: '-1' })
    expect(honeypot!.name).not.toMatch(autofillProne)
    expect(honeypot!.id).not.toMatch(autofillProne)
    expect(honeypot!.label).not.toMatch(autofillProne)
    const visible = Object.fromEntries(
      audit
        .filter((input) => !input.hidden && !['radio', 'hidden', 'checkbox'].includes(input.type))
        .map((input) => [input.name, input.autocomplete]),
    )
    // Then, without JavaScript, the fields of an answer (a realtor's, a buyer's agent): theirs, never autofill's guess.
    expect(visible).toEqual({
      name: 'name',
      email: 'email',
      phone: 'tel',
      brokerage: 'organization',
      recoNumber: null,
      agent: null,
    })
    // The updates box (express consent, CASL) is there, unticked, labelled by the config's words.
    const updates = form.getByRole('checkbox', {
      name: 'Send me news and VIP updates about Bramblewood Crossing (optional)',
    })
    await expect(updates.isChecked()).resolves.toBe(false)
    // The one hidden input says which launch the post is for.
    expect(audit.filter((input) => input.type === 'hidden').map((input) => input.name)).toEqual(['launch'])
    expect(await form.locator('input[type="hidden"][name="launch"]').getAttribute('value')).toBe('bramblewood-crossing')
    await context.close()
  })
})
