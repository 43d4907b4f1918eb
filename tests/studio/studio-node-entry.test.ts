import { execFile } from 'node:child_process'
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startServerProcess, writeDist, type ServerProcess } from '../server/support/node-server.ts'

const run = promisify(execFile)
const root = mkdtempSync(path.join(tmpdir(), 'vip-studio-node-'))
const dataDir = path.join(root, '.data')
const distDir = path.join(root, 'dist')
const configFile = path.join(root, 'page.config.json')
const original = readFileSync('page.config.json', 'utf8')
const password = 'correct horse battery staple'
let server: ServerProcess

beforeAll(async () => {
  cpSync('public', path.join(root, 'public'), { recursive: true })
  cpSync('documents', path.join(root, 'documents'), { recursive: true })
  writeFileSync(configFile, original)
  writeDist(distDir)
  mkdirSync(path.join(distDir, '_studio', 'assets'), { recursive: true })
  writeFileSync(
    path.join(distDir, '_studio', 'index.html'),
    '<!doctype html><title>Studio</title><div id="studio"></div>',
  )
  server = await startServerProcess({ DATA_DIR: dataDir, DIST_DIR: distDir, PAGE_CONFIG: configFile })
}, 60_000)
afterAll(async () => {
  await server?.stop()
  rmSync(root, { recursive: true, force: true })
})

describe('the studio in the Node server (npm start)', () => {
  it('is off until npm run studio:invite, then signs in and publishes to the file over real HTTP', async () => {
    expect((await fetch(`${server.url}/studio/sign-in`)).status).toBe(404)
    const { stdout } = await run(
      'npm',
      ['run', '-s', 'studio:invite', '--', '--email', 'owner@example.com', '--role', 'owner'],
      {
        env: {
          PATH: process.env.PATH!,
          HOME: process.env.HOME ?? root,
          DATA_DIR: dataDir,
          PORT: '4321',
          PAGE_CONFIG: configFile,
        },
      },
    )
    const link = /^(http:\/\/localhost:4321\/studio\/invite\/\S+)$/m.exec(stdout)?.[1]
    expect(link, stdout).toBeDefined()
    const origin = server.url
    const invitePath = new URL(link!).pathname
    const page = await fetch(`${server.url}${invitePath}`)
    expect(page.status).toBe(200)
    // The studio's own policy, not the launch page's.
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'self'")
    const set = await fetch(`${server.url}${invitePath}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { origin, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ password, confirm: password }),
    })
    expect(set.status).toBe(303)
    const cookie = set.headers
      .getSetCookie()
      .find((line) => line.startsWith('studio_session='))!
      .split(';')[0]!
    const shell = await fetch(`${server.url}/studio/`, { headers: { cookie } })
    const shellText = await shell.text()
    expect(shellText, shellText).toContain('<div id="studio">')

    const edited = original.replace('"heading": "Bramblewood Crossing"', '"heading": "Published from the studio"')
    const published = await fetch(`${server.url}/studio/api/launches/bramblewood-crossing/publish`, {
      method: 'POST',
      headers: { origin, cookie, 'content-type': 'application/json' },
      body: JSON.stringify({ text: edited, message: 'From the Node entry test' }),
    })
    expect(published.status).toBe(200)
    expect(await published.json()).toMatchObject({ version: 2 })
    expect(readFileSync(configFile, 'utf8')).toBe(edited)
    // The launch's own pages keep their policy.
    expect((await fetch(`${server.url}/`)).headers.get('content-security-policy')).toContain("frame-ancestors 'none'")
  }, 60_000)
})
