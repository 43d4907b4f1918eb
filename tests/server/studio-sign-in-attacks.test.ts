import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import * as OTPAuth from 'otpauth'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runStudioInvite } from '../../src/cli/studio-invite.ts'
import { httpClient } from '../studio/support/http-client.ts'
import { startServerProcess, writeDist, type ServerProcess } from './support/node-server.ts'
import { startTestSmtp, type TestSmtp } from './support/smtp.ts'

// Issue 42, items 2, 5 and 10, attacked through the real Node server over HTTP, with real mail and real TOTP codes.
// TRUST_PROXY=1 from loopback: X-Forwarded-For is each request's client, so one test plays many addresses.

const root = mkdtempSync(path.join(tmpdir(), 'vip-sign-in-attacks-'))
const dataDir = path.join(root, '.data')
const distDir = path.join(root, 'dist')
const configFile = path.join(root, 'page.config.json')
const password = 'correct horse battery staple'
let smtp: TestSmtp
let server: ServerProcess
let origin: string

const client = (address: string) =>
  httpClient(
    () => server.url,
    () => origin,
    address,
  )

async function inviteLink(email: string): Promise<string> {
  let printed = ''
  const code = await runStudioInvite(
    ['--email', email, '--role', 'owner'],
    { DATA_DIR: dataDir, PAGE_CONFIG: configFile },
    root,
    (line: string) => void (printed += `${line}\n`),
    () => {},
  )
  expect(code).toBe(0)
  return new URL(/(http:\/\/\S+\/studio\/invite\/\S+)/.exec(printed)![1]!).pathname
}

async function mailedLinkTo(email: string, count: number): Promise<string> {
  const mails = () => smtp.received.filter((mail) => mail.rcptTo.includes(email))
  const deadline = Date.now() + 15_000
  while (mails().length < count && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100))
  expect(mails()).toHaveLength(count)
  return new URL(/(https:\/\/\S+\/studio\/invite\/[A-Za-z0-9_-]{43})/.exec(mails()[count - 1]!.decoded)![1]!).pathname
}

beforeAll(async () => {
  cpSync('public', path.join(root, 'public'), { recursive: true })
  cpSync('documents', path.join(root, 'documents'), { recursive: true })
  writeFileSync(configFile, readFileSync('page.config.json', 'utf8'))
  writeDist(distDir)
  mkdirSync(dataDir, { recursive: true })
  smtp = await startTestSmtp()
  server = await startServerProcess({
    DATA_DIR: dataDir,
    DIST_DIR: distDir,
    PAGE_CONFIG: configFile,
    SMTP_URL: `smtp://127.0.0.1:${smtp.port}`,
    MAIL_FROM: 'Studio <no-reply@example.com>',
    PUBLIC_URL: 'https://studio.example.com',
    TRUST_PROXY: '1',
  })
  // Behind an HTTPS proxy: the studio's own origin is https.
  origin = `https://${new URL(server.url).host}`
}, 60_000)
afterAll(async () => {
  await server?.stop()
  await smtp?.stop()
  rmSync(root, { recursive: true, force: true })
})

describe('the studio sign-in under attack (issue 42)', () => {
  it('item 10: gives the device cookie with an accepted invitation, so a lock-out attack does not lock its person out', async () => {
    const person = client('198.51.100.7')
    const accepted = await person.send(await inviteLink('ana@example.com'), { form: { password, confirm: password } })
    expect(accepted.status).toBe(303)
    expect(person.cookies.has('studio_device')).toBe(true)
    await person.send('/studio/api/session', { method: 'DELETE' })
    // An attacker spends the account's budget with wrong passwords from many addresses.
    const took: number[] = []
    for (let i = 1; i <= 13; i++) {
      const wrong = client(`203.0.113.${i}`)
      const started = Date.now()
      await wrong.send('/studio/sign-in', { form: { email: 'ana@example.com', password: `wrong guess ${i}` } })
      took.push(Date.now() - started)
    }
    // Growing delays before the hard stop: the seventh answer waits 2 seconds more than the first two (each of which
    // costs one scrypt comparison, as every attempt does).
    expect(took[6]! - Math.min(took[0]!, took[1]!)).toBeGreaterThanOrEqual(1_500)
    const stranger = client('192.0.2.99')
    const locked = await stranger.send('/studio/sign-in', { form: { email: 'ana@example.com', password } })
    expect(locked.status).toBe(429)
    // The person, on the browser that accepted the invitation, still signs in.
    const back = await person.send('/studio/sign-in', { form: { email: 'ana@example.com', password } })
    expect(back.status).toBe(303)
  }, 60_000)

  let totp: OTPAuth.TOTP

  it('item 5: a TOTP code signs in once, even within its 30 seconds', async () => {
    const owner = client('198.51.100.20')
    await owner.send(await inviteLink('olu@example.com'), { form: { password, confirm: password } })
    const { secret } = (await (await owner.send('/studio/api/me/totp/setup', { json: {} })).json()) as {
      secret: string
    }
    totp = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret) })
    const on = await owner.send('/studio/api/me/totp', { json: { secret, code: totp.generate() } })
    expect(on.status).toBe(200)
    const code = totp.generate()
    const first = client('198.51.100.21')
    const signedIn = await first.send('/studio/sign-in', { form: { email: 'olu@example.com', password, code } })
    expect(signedIn.status).toBe(303)
    // Someone who saw the code (over a shoulder, in a proxy's log) sends it again from elsewhere.
    const replay = client('203.0.113.51')
    const replayed = await replay.send('/studio/sign-in', { form: { email: 'olu@example.com', password, code } })
    expect(replayed.status).toBe(401)
    expect(replay.cookies.has('studio_session')).toBe(false)
  }, 60_000)

  it('item 2: a reset link for an account with two-factor starts no session without a current code', async () => {
    // Someone who holds the mailbox (or a scanner that opened the link) resets the password.
    const attacker = client('203.0.113.50')
    expect((await attacker.send('/studio/forgot-password', { form: { email: 'olu@example.com' } })).status).toBe(200)
    const reset = await mailedLinkTo('olu@example.com', 1)
    const newPassword = 'another long passphrase here'
    const set = await attacker.send(reset, { form: { password: newPassword, confirm: newPassword } })
    expect(attacker.cookies.has('studio_session')).toBe(false)
    expect(set.status).toBe(200)
    expect(await set.text()).toContain('authenticator app')
    expect((await attacker.send('/studio/api/me')).status).toBe(401)
    // The person signs in with the new password and a current code.
    await new Promise((r) => setTimeout(r, 30_000 - (Date.now() % 30_000) + 50))
    const owner = client('198.51.100.22')
    const code = totp.generate()
    const back = await owner.send('/studio/sign-in', {
      form: { email: 'olu@example.com', password: newPassword, code },
    })
    expect(back.status).toBe(303)
  }, 90_000)
})
