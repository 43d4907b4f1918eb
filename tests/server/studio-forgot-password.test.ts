import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runStudioInvite } from '../../src/cli/studio-invite.ts'
import { openSqliteStore } from '../../src/server/store/sqlite/sqlite-store.ts'
import { httpClient } from '../studio/support/http-client.ts'
import { startServerProcess, writeDist, type ServerProcess } from './support/node-server.ts'
import { startTestSmtp, type TestSmtp } from './support/smtp.ts'

// Issue 42, item 6, through the real Node server and a real SMTP server: forgot-password answered faster for unknown
// addresses (the mail went inline only for real accounts), allowed 10 reset mails a minute to one person, and left
// earlier links valid. Now it answers at once, sends at most 3 an hour per account, and each new link voids the last.

const root = mkdtempSync(path.join(tmpdir(), 'vip-forgot-'))
const dataDir = path.join(root, '.data')
const distDir = path.join(root, 'dist')
const configFile = path.join(root, 'page.config.json')
let smtp: TestSmtp
let server: ServerProcess

beforeAll(async () => {
  cpSync('public', path.join(root, 'public'), { recursive: true })
  cpSync('documents', path.join(root, 'documents'), { recursive: true })
  writeFileSync(configFile, readFileSync('page.config.json', 'utf8'))
  writeDist(distDir)
  mkdirSync(dataDir, { recursive: true })
  const quiet = () => {}
  const args = ['--email', 'owner@example.com', '--role', 'owner']
  expect(await runStudioInvite(args, { DATA_DIR: dataDir, PAGE_CONFIG: configFile }, root, quiet, quiet)).toBe(0)
  smtp = await startTestSmtp()
  server = await startServerProcess({
    DATA_DIR: dataDir,
    DIST_DIR: distDir,
    PAGE_CONFIG: configFile,
    SMTP_URL: `smtp://127.0.0.1:${smtp.port}`,
    MAIL_FROM: 'Studio <no-reply@example.com>',
    PUBLIC_URL: 'http://localhost',
    MAIL_RETRY_MIN_SECONDS: '1',
    MAIL_RETRY_MAX_SECONDS: '1',
  })
}, 60_000)
afterAll(async () => {
  await server?.stop()
  await smtp?.stop()
  rmSync(root, { recursive: true, force: true })
})

const linksTo = (email: string) =>
  smtp.received
    .filter((mail) => mail.rcptTo.includes(email))
    .map((mail) => new URL(/(http:\/\/\S+\/studio\/invite\/[A-Za-z0-9_-]{43})/.exec(mail.decoded)![1]!).pathname)

describe('forgot-password (issue 42, item 6)', () => {
  it('answers at once, mails at most 3 links an hour to one person, and each new link voids the one before', async () => {
    // A slow mail server: an answer that waited for the mail would take seconds, and tell who has an account.
    smtp.delayEach(2_500)
    const asks: number[] = []
    for (let i = 1; i <= 5; i++) {
      const browser = httpClient(
        () => server.url,
        () => server.url,
        `198.51.100.${i}`,
      )
      const started = Date.now()
      const answer = await browser.send('/studio/forgot-password', { form: { email: 'owner@example.com' } })
      asks.push(Date.now() - started)
      expect(answer.status).toBe(200)
    }
    expect(Math.max(...asks)).toBeLessThan(1_500)
    const deadline = Date.now() + 20_000
    while (linksTo('owner@example.com').length < 3 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 100))
    // Time for a fourth and fifth, were they to be sent.
    await new Promise((r) => setTimeout(r, 6_000))
    const links = linksTo('owner@example.com')
    expect(links).toHaveLength(3)
    // Only the newest link works. The outbox sends side by side, so the mails may arrive in another order.
    const status = async (link: string) => (await fetch(`${server.url}${link}`)).status
    expect((await Promise.all(links.map(status))).sort()).toEqual([200, 404, 404])
  }, 90_000)

  it('keeps a reset link in the outbox while the mail server refuses it, and sends it once it accepts', async () => {
    await runStudioInvite(
      ['--email', 'second@example.com', '--role', 'editor'],
      {
        DATA_DIR: dataDir,
        PAGE_CONFIG: configFile,
      },
      root,
      () => {},
      () => {},
    )
    smtp.delayEach(0)
    smtp.refuseAll(451)
    const browser = httpClient(
      () => server.url,
      () => server.url,
      '198.51.100.40',
    )
    const answer = await browser.send('/studio/forgot-password', { form: { email: 'second@example.com' } })
    expect(answer.status).toBe(200)
    // Refused twice at least (a retry a second), then accepted: the link was kept, not lost with the first try.
    await new Promise((r) => setTimeout(r, 3_000))
    expect(linksTo('second@example.com')).toHaveLength(0)
    smtp.refuseAll(undefined)
    const deadline = Date.now() + 20_000
    while (linksTo('second@example.com').length === 0 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 100))
    expect(linksTo('second@example.com')).toHaveLength(1)
    // It went as the outbox's message of no lead (kind 'account'), retried and marked sent like any other (sent
    // messages are marked in groups, a moment after the SMTP server took them).
    const store = openSqliteStore(path.join(dataDir, 'leads.sqlite'), { defaultLaunch: 'default', readonly: true })
    try {
      const lastAccountMessage = async () =>
        (await store.listMessages({ limit: 100 })).filter((m) => m.kind === 'account').at(-1)
      await expect.poll(async () => (await lastAccountMessage())?.status, { timeout: 20_000 }).toBe('sent')
      const account = (await store.listMessages({ limit: 100 })).filter((m) => m.kind === 'account')
      expect(account.length).toBeGreaterThanOrEqual(4)
      // Sent after the refusals (451: the worker slowed down and put it off, never failed or lost).
      expect(account.at(-1)).toMatchObject({ leadId: null, status: 'sent', lastError: null })
    } finally {
      await store.close()
    }
  }, 90_000)
})
