import { request as httpRequest } from 'node:http'
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { contactFunctionPath } from '../../schema/function-path.ts'
import { localAnonKey } from '../../schema/local-defaults.ts'
import { runStudioInvite } from '../../src/cli/studio-invite.ts'
import { readPageConfig, registration } from './support/fixtures.ts'
import { runServerExpectingExit, startServerProcess, writeDist, type ServerProcess } from './support/node-server.ts'
import { startTestSmtp, type TestSmtp } from './support/smtp.ts'

// Issue 42, item 1: every mailed link is built from configured addresses, never from the request's Host header. A
// browser at http://attacker.localhost:PORT reaches this server with that Host (FACTS.md), so a forged Host is a
// plain browser's attack, not only a script's.

const root = mkdtempSync(path.join(tmpdir(), 'vip-mailed-links-'))
const dataDir = path.join(root, '.data')
const distDir = path.join(root, 'dist')
const configFile = path.join(root, 'page.config.json')
const publicUrl = 'https://studio-home.example.com'
let smtp: TestSmtp
let server: ServerProcess

/** A request with the Host header the attacker chose (fetch cannot set Host; node:http can). */
function send(
  url: string,
  options: { method?: string; host: string; origin?: string; form?: Record<string, string> },
): Promise<{ status: number; body: string }> {
  const body = options.form ? new URLSearchParams(options.form).toString() : undefined
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      {
        method: options.method ?? 'GET',
        headers: {
          host: options.host,
          ...(options.origin ? { origin: options.origin } : {}),
          ...(body ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
        },
      },
      (res) => {
        let text = ''
        res.on('data', (chunk: Buffer) => (text += chunk.toString()))
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }))
      },
    )
    req.on('error', reject)
    req.end(body)
  })
}

const mailEnv = () => ({
  DATA_DIR: dataDir,
  DIST_DIR: distDir,
  PAGE_CONFIG: configFile,
  SMTP_URL: `smtp://127.0.0.1:${smtp.port}`,
  MAIL_FROM: 'Bramblewood Crossing <no-reply@example.com>',
})

beforeAll(async () => {
  cpSync('public', path.join(root, 'public'), { recursive: true })
  cpSync('documents', path.join(root, 'documents'), { recursive: true })
  // A roster of one, so each buyer's registration is mailed to its salesperson with a link to the lead.
  const config = readPageConfig()
  const roster = [{ name: 'Sam Rivera', email: 'sam@example.com' }]
  writeFileSync(configFile, JSON.stringify({ ...config, launch: { ...config.launch, roster } }, null, 2))
  writeDist(distDir)
  mkdirSync(dataDir, { recursive: true })
  smtp = await startTestSmtp()
  const quiet = () => {}
  const code = await runStudioInvite(
    ['--email', 'owner@example.com', '--role', 'owner'],
    { DATA_DIR: dataDir, PAGE_CONFIG: configFile, PUBLIC_URL: publicUrl },
    root,
    quiet,
    quiet,
  )
  expect(code).toBe(0)
}, 60_000)
afterAll(async () => {
  await server?.stop()
  await smtp?.stop()
  rmSync(root, { recursive: true, force: true })
})

describe('mailed links under a forged Host (issue 42, item 1)', () => {
  it('refuses to start with mail on and no PUBLIC_URL, naming it', async () => {
    const result = await runServerExpectingExit(mailEnv(), 20_000)
    expect(result.code).toBe(1)
    expect(result.stderr).toContain('PUBLIC_URL is missing: SMTP_URL is set')
    expect(result.stdout).not.toContain('Listening on')
  }, 30_000)

  it('mails no reset link naming attacker.localhost, and refuses the studio and the leads page on that host', async () => {
    server = await startServerProcess({ ...mailEnv(), PUBLIC_URL: publicUrl })
    const port = new URL(server.url).port
    const attacker = `attacker.localhost:${port}`
    const forged = await send(`${server.url}/studio/forgot-password`, {
      method: 'POST',
      host: attacker,
      origin: `http://${attacker}`,
      form: { email: 'owner@example.com' },
    })
    expect(forged.status).toBe(404)
    expect((await send(`${server.url}/leads`, { host: attacker })).status).toBe(404)
    expect((await send(`${server.url}/studio/sign-in`, { host: attacker })).status).toBe(404)

    // The same request at the studio's own address (behind its HTTPS proxy) is answered, its link PUBLIC_URL's.
    const own = new URL(publicUrl).host
    const asked = await send(`${server.url}/studio/forgot-password`, {
      method: 'POST',
      host: own,
      origin: publicUrl,
      form: { email: 'owner@example.com' },
    })
    expect(asked.status).toBe(200)
    const deadline = Date.now() + 10_000
    while (smtp.received.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100))
    expect(smtp.received).toHaveLength(1)
    const text = smtp.received[0]!.decoded
    expect(text).not.toContain('attacker.localhost')
    expect(text).toMatch(/https:\/\/studio-home\.example\.com\/studio\/invite\/[A-Za-z0-9_-]{43}/)
    expect((await send(`${server.url}/leads`, { host: own })).status).not.toBe(404)
  }, 60_000)

  it("links the assignee to the leads page's own address (PUBLIC_URL), not the launch's first address (issue 47, item 7)", async () => {
    server ??= await startServerProcess({ ...mailEnv(), PUBLIC_URL: publicUrl })
    const answer = await fetch(`${server.url}${contactFunctionPath}`, {
      method: 'POST',
      headers: { apikey: localAnonKey, 'content-type': 'application/json' },
      body: JSON.stringify(registration()),
    })
    expect(answer.status, await answer.clone().text()).toBe(200)
    const toSam = () => smtp.received.filter((mail) => mail.rcptTo.includes('sam@example.com'))
    const deadline = Date.now() + 20_000
    while (toSam().length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100))
    expect(toSam()).toHaveLength(1)
    const links = toSam()[0]!.decoded.match(/https?:\/\/[^\s"<>]+\/leads\/lead\/\d+/g) ?? []
    expect(links.length).toBeGreaterThan(0)
    for (const link of links) expect(link).toMatch(/^https:\/\/studio-home\.example\.com\/leads\/lead\/\d+$/)
  }, 60_000)
})
