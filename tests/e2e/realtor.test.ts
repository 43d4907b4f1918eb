import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import type { Browser } from 'playwright-core'
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
const config: PageConfig = readPageConfig()
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
