import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { PageConfig } from '../../schema/page-config.ts'
import { localAnonKey } from '../../schema/local-defaults.ts'
import { buildSite } from '../../src/cli/build.ts'
import { readBuildSettings } from '../../src/server/env.ts'
import { openSqliteStore } from '../../src/server/store/sqlite/sqlite-store.ts'
import { readPageConfig } from '../server/support/fixtures.ts'
import { startTestSmtp, type TestSmtp } from '../server/support/smtp.ts'
import {
  fill,
  inlineForm,
  openPage,
  realtorAnswers,
  scaled,
  startServer,
  waitForToast,
  launchBrowser,
  type RunningServer,
} from './harness.ts'

// The default launch as it ships (its co-op desk, its realtors' reply), served with real SMTP on 127.0.0.1 and the
// sales team's NOTIFY_EMAIL set: a realtor's registration must reach the co-op desk, not the sales team.
const config: PageConfig = withDeskAndCoop(readPageConfig())
const coopDesk = config.launch.realtorEmail!
const realtorReply = config.reply!.realtor!
const messages = config.form.messages as Record<string, Record<string, string>>
const root = mkdtempSync(path.join(tmpdir(), 'vip-realtor-'))
const configFile = path.join(root, 'page.config.json')
let server: RunningServer
let smtp: TestSmtp
let browser: Browser

beforeAll(async () => {
  writeFileSync(configFile, JSON.stringify(config, null, 2))
  symlinkSync(path.resolve('public'), path.join(root, 'public'))
  symlinkSync(path.resolve('documents'), path.join(root, 'documents'))
  mkdirSync(path.join(root, 'dist'))
  await buildSite(configFile, path.join(root, 'dist', config.launch.slug), readBuildSettings({}), config)
  smtp = await startTestSmtp()
  server = await startServer({
    PAGE_CONFIG: configFile,
    DIST_DIR: path.join(root, 'dist'),
    SMTP_URL: `smtp://127.0.0.1:${smtp.port}`,
    PUBLIC_URL: 'http://localhost',
    MAIL_FROM: 'Bramblewood Crossing <vip@example.com>',
    NOTIFY_EMAIL: 'sales@example.com',
  })
  browser = await launchBrowser()
}, 300_000)

afterAll(async () => {
  await browser?.close()
  await server?.stop()
  await smtp?.stop()
  rmSync(root, { recursive: true, force: true })
})

/**
 * The shipped config with two more optional fields a realtor's answer brings: a select and a yes/no box (the shipped
 * form has neither inside a branch), so the pages without JavaScript are seen drawing each widget the uiSchema names.
 */
function withDeskAndCoop(shipped: PageConfig): PageConfig {
  const copy = structuredClone(shipped)
  const schema = copy.form.schema as unknown as { allOf: Array<{ then: { properties: Record<string, unknown> } }> }
  Object.assign(schema.allOf[0]!.then.properties, {
    desk: { type: 'string', enum: ['new-homes', 'resale'] },
    coop: { type: 'boolean' },
  })
  Object.assign(copy.form.uiSchema as Record<string, unknown>, {
    desk: { 'ui:title': 'Your desk', 'ui:widget': 'select', 'ui:enumNames': ['New homes', 'Resale'] },
    coop: { 'ui:title': 'I am the co-operating agent' },
  })
  return copy
}

/** The stored fields of the lead named `name`. */
async function storedFieldsOf(name: string): Promise<Record<string, unknown> | undefined> {
  const store = openSqliteStore(path.join(server.dataDir, 'leads.sqlite'), {
    defaultLaunch: config.launch.slug,
    readonly: true,
  })
  try {
    return (await store.listLeads(0, 50)).find((lead) => lead.fields.name === name)?.fields
  } finally {
    await store.close()
  }
}

/** Posts a registration straight to the function, as any caller could. */
async function post(
  fields: Record<string, unknown>,
): Promise<{ status: number; body: { errors?: Record<string, string> } }> {
  const response = await fetch(`${server.url}/functions/v1/send-contact-email`, {
    method: 'POST',
    headers: { apikey: localAnonKey, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Rita Agent', email: 'rita@agents.example.com', phone: '416-555-0150', ...fields }),
  })
  return { status: response.status, body: (await response.json()) as { errors?: Record<string, string> } }
}

describe("the realtors' path in Chromium", () => {
  it("asks a realtor for the brokerage and RECO number (Yes shows them, No hides them), refuses one without a brokerage in the config's words, then stores, notifies the co-op desk and answers with the realtors' reply", async () => {
    const page = await openPage(browser, `${server.url}/`, { dialog: 'snoozed' })
    page.setDefaultTimeout(scaled(10_000))
    const form = inlineForm(page)
    const realtor = form.getByRole('group', { name: /Are You A Realtor\?/ })
    const brokerage = form.getByLabel('Brokerage', { exact: true })
    const reco = form.getByLabel('RECO registration number', { exact: true })
    const agent = form.getByLabel(/agent's name or e-mail/)
    await expect(brokerage.count()).resolves.toBe(0)

    await realtor.getByRole('radio', { name: 'Yes' }).check()
    await brokerage.waitFor()
    await expect(reco.isVisible()).resolves.toBe(true)
    await expect(agent.count()).resolves.toBe(0)
    await realtor.getByRole('radio', { name: 'No' }).check()
    await brokerage.waitFor({ state: 'detached' })
    await expect(reco.count()).resolves.toBe(0)
    await expect(agent.isVisible()).resolves.toBe(true)

    // Yes again, everything but the brokerage: refused in the browser, with the config's message under the field.
    await fill(form, {
      name: 'Rita Agent',
      email: 'rita@agents.example.com',
      phone: '416-555-0150',
      realtor: 'Yes',
      realtorFields: false,
    })
    await reco.fill(realtorAnswers.reco)
    await form
      .getByRole('group', { name: /on behalf of a client/ })
      .getByRole('radio', { name: 'Yes' })
      .check()
    let posts = 0
    page.on('request', (request) => {
      if (request.method() === 'POST' && request.url().includes('/functions/v1/send-contact-email')) posts += 1
    })
    await form.getByRole('button', { name: config.form.submitLabel }).click()
    await expect(form.getByText(messages.brokerage!.required!).isVisible()).resolves.toBe(true)
    const describedBy = await brokerage.getAttribute('aria-describedby')
    await expect(page.locator(`[id="${describedBy?.split(' ')[0]}"]`).innerText()).resolves.toBe(
      messages.brokerage!.required,
    )
    expect(posts).toBe(0)

    await brokerage.fill(realtorAnswers.brokerage)
    await form.getByRole('button', { name: config.form.submitLabel }).click()
    await waitForToast(page, config.form.toasts.success.title)
    expect(posts).toBe(1)

    const store = openSqliteStore(path.join(server.dataDir, 'leads.sqlite'), {
      defaultLaunch: config.launch.slug,
      readonly: true,
    })
    try {
      const leads = await store.listLeads(0, 10)
      expect(leads.map((lead) => lead.fields)).toEqual([
        {
          name: 'Rita Agent',
          email: 'rita@agents.example.com',
          phone: '416-555-0150',
          isRealtor: 'yes',
          brokerage: realtorAnswers.brokerage,
          recoNumber: realtorAnswers.reco,
          forClient: 'yes',
        },
      ])
      expect(leads[0]!.firstRegisteredAt).toBe(leads[0]!.createdAt)
    } finally {
      await store.close()
    }

    await expect.poll(() => smtp.received.length, { timeout: scaled(20_000) }).toBe(2)
    const notification = smtp.received.find((mail) => mail.headers.get('subject')?.[0]?.startsWith('New registration'))!
    expect(notification.rcptTo).toEqual([coopDesk])
    expect(notification.decoded).toContain('New realtor registration for Bramblewood Crossing')
    expect(notification.decoded).toContain(`Brokerage: ${realtorAnswers.brokerage}`)
    expect(notification.decoded).toContain(`RECO registration number: ${realtorAnswers.reco}`)
    const reply = smtp.received.find((mail) => mail !== notification)!
    expect(reply.rcptTo).toEqual(['rita@agents.example.com'])
    expect(reply.headers.get('subject')).toEqual([realtorReply.subject.replace('{site}', () => config.site.name)])
    expect(reply.decoded).toContain(realtorReply.cooperation)
    for (const document of realtorReply.documents!) expect(reply.decoded).toContain(document.url)
    expect(reply.decoded).not.toContain(config.reply!.paragraphs[0])
    // What the realtor typed never reaches the message sent to the address they typed.
    expect(reply.decoded).not.toContain(realtorAnswers.brokerage)
    await page.context().close()
  }, 180_000)

  it("refuses a realtor's registration without a brokerage when posted straight to the function, in the config's words, and stores nothing", async () => {
    const before = smtp.received.length
    const refused = await post({ isRealtor: 'yes', recoNumber: '5550123', forClient: 'no', brokerage: '   ' })
    expect(refused.status).toBe(400)
    expect(refused.body.errors).toEqual({ brokerage: messages.brokerage!.required })
    // A buyer needs none of it, and may name their agent.
    const buyer = await post({ name: 'Ben Buyer', email: 'ben@example.com', isRealtor: 'no', agent: 'Rita Agent' })
    expect(buyer.status, server.output()).toBe(200)
    const store = openSqliteStore(path.join(server.dataDir, 'leads.sqlite'), {
      defaultLaunch: config.launch.slug,
      readonly: true,
    })
    try {
      const leads = await store.listLeads(0, 10)
      expect(leads.map((lead) => lead.fields.name)).toEqual(['Rita Agent', 'Ben Buyer'])
      const agentLink = await store.agentRegistrationOf(leads[1]!.id)
      expect(agentLink).toMatchObject({ id: leads[0]!.id, name: 'Rita Agent', brokerage: realtorAnswers.brokerage })
    } finally {
      await store.close()
    }
    await expect.poll(() => smtp.received.length, { timeout: scaled(20_000) }).toBe(before + 2)
    expect(
      smtp.received
        .slice(before)
        .map((mail) => mail.rcptTo[0])
        .sort(),
    ).toEqual(['ben@example.com', 'sales@example.com'])
  }, 60_000)
})

describe('a realtor without JavaScript (issue 47)', () => {
  const send = async (page: Page) => {
    const [answer] = await Promise.all([
      page.waitForNavigation(),
      inlineForm(page).getByRole('button', { name: config.form.submitLabel }).click(),
    ])
    return answer
  }

  it("registers in one send from the first page, whose realtor's fields stand under their heading and are required of no one", async () => {
    const context = await browser.newContext({ javaScriptEnabled: false })
    const page = await context.newPage()
    page.setDefaultTimeout(scaled(10_000))
    await page.goto(`${server.url}/`)
    const form = inlineForm(page)
    const group = form.getByRole('group', { name: config.form.noScript!.branchHeadings!['isRealtor=yes'] })
    await expect(group.isVisible()).resolves.toBe(true)
    await expect(group.getByLabel('Brokerage', { exact: true }).isVisible()).resolves.toBe(true)
    const onBehalf = group.getByRole('group', { name: /on behalf of a client/ })
    await expect(onBehalf.getByRole('radio').count()).resolves.toBe(2)
    await expect(group.locator('[required], [aria-required="true"]').count()).resolves.toBe(0)

    await fill(form, { name: 'Nora Noscript', email: 'nora@agents.example.com', phone: '416-555-0170', realtor: 'Yes' })
    await send(page)
    expect(new URL(page.url()).pathname).toBe('/registered.html')
    await expect(storedFieldsOf('Nora Noscript')).resolves.toEqual({
      name: 'Nora Noscript',
      email: 'nora@agents.example.com',
      phone: '416-555-0170',
      isRealtor: 'yes',
      brokerage: realtorAnswers.brokerage,
      recoNumber: realtorAnswers.reco,
      forClient: 'no',
    })
    await context.close()
  }, 60_000)

  it('answers a refused send with the form page: radios, select and box as the uiSchema names them, every value kept, the message tied to its field; corrected, it registers', async () => {
    const context = await browser.newContext({ javaScriptEnabled: false })
    const page = await context.newPage()
    page.setDefaultTimeout(scaled(10_000))
    await page.goto(`${server.url}/`)
    let form = inlineForm(page)
    await fill(form, {
      name: 'Omar Offline',
      email: 'omar@agents.example.com',
      phone: '416-555-0171',
      realtor: 'Yes',
      realtorFields: false,
    })
    await form.getByLabel('Brokerage', { exact: true }).fill(realtorAnswers.brokerage)
    await form.getByLabel('RECO registration number').fill('12')
    await form.getByLabel('Your desk').selectOption({ label: 'Resale' })
    await form.getByRole('checkbox', { name: 'I am the co-operating agent' }).check()
    await form
      .getByRole('group', { name: /on behalf of a client/ })
      .getByRole('radio', { name: 'No' })
      .check()
    expect((await send(page))?.status()).toBe(400)

    form = inlineForm(page)
    const onBehalf = form.getByRole('group', { name: /on behalf of a client/ })
    await expect(onBehalf.getByRole('radio', { name: 'No' }).isChecked()).resolves.toBe(true)
    await expect(form.getByRole('textbox', { name: /on behalf of a client/ }).count()).resolves.toBe(0)
    await expect(form.getByLabel('Brokerage', { exact: true }).inputValue()).resolves.toBe(realtorAnswers.brokerage)
    await expect(form.getByRole('combobox', { name: 'Your desk' }).inputValue()).resolves.toBe('resale')
    const coop = form.getByRole('checkbox', { name: 'I am the co-operating agent' })
    await expect(coop.isChecked()).resolves.toBe(true)
    await expect(form.getByRole('checkbox', { name: /Send me news/ }).isChecked()).resolves.toBe(false)
    await expect(form.getByLabel('Full Name').inputValue()).resolves.toBe('Omar Offline')
    await expect(
      form
        .getByRole('group', { name: /Are You A Realtor/ })
        .getByRole('radio', { name: 'Yes' })
        .isChecked(),
    ).resolves.toBe(true)
    const reco = form.getByLabel('RECO registration number')
    await expect(reco.inputValue()).resolves.toBe('12')
    await expect(reco.getAttribute('aria-invalid')).resolves.toBe('true')
    const describedBy = (await reco.getAttribute('aria-describedby'))!.split(' ')[0]!
    await expect(page.locator(`[id="${describedBy}"]`).innerText()).resolves.toBe(messages.recoNumber!.pattern)
    await expect(page.evaluate(() => document.activeElement?.getAttribute('name'))).resolves.toBe('recoNumber')

    await reco.fill(realtorAnswers.reco)
    await send(page)
    expect(new URL(page.url()).pathname).toBe('/registered.html')
    await expect(storedFieldsOf('Omar Offline')).resolves.toMatchObject({
      isRealtor: 'yes',
      brokerage: realtorAnswers.brokerage,
      recoNumber: realtorAnswers.reco,
      forClient: 'no',
      desk: 'resale',
      coop: true,
    })
    await context.close()
  }, 60_000)
})
