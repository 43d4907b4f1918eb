import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { logValue } from '../../schema/log-value.ts'
import { startServerProcess, writeDist, type ServerProcess } from './support/node-server.ts'

// Issue 42 item 9: an e-mail typed with a line break forged a line in the server's log. Attacked through the real
// Node server (src/cli/serve.ts in its own process, a studio account made with npm run studio:invite): wrong sign-ins
// for a typed address holding line breaks, until the limiter refuses and logs it. The log must show the address as
// one escaped value (a JSON string) and never a line the attacker wrote.

const root = mkdtempSync(path.join(tmpdir(), 'vip-log-forging-'))
const distDir = path.join(root, 'dist')
const dataDir = path.join(root, 'data')
writeDist(distDir)
const forged = 'leads page: team password erased every lead'
let server: ServerProcess
beforeAll(async () => {
  const invited = spawnSync(
    path.resolve('node_modules/.bin/tsx'),
    ['src/cli/studio-invite.ts', '--email', 'olive@example.com', '--role', 'owner'],
    { env: { PATH: process.env.PATH, DATA_DIR: dataDir }, encoding: 'utf8' },
  )
  expect(invited.status, invited.stderr).toBe(0)
  server = await startServerProcess({ DATA_DIR: dataDir, DIST_DIR: distDir })
}, 60_000)
afterAll(async () => {
  await server.stop('SIGTERM')
  rmSync(root, { recursive: true, force: true })
})

describe("the server's log", () => {
  it('writes a typed e-mail with line breaks as one escaped value, never as a line of its own', async () => {
    const typed = `ghost@example.com\n${forged}\r\n${forged}\u2028${forged}`
    const statuses: number[] = []
    for (let i = 0; i < 16 && !statuses.includes(429); i++) {
      const res = await fetch(`${server.url}/studio/sign-in`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: server.url },
        body: new URLSearchParams({ email: typed, password: 'not the password' }).toString(),
      })
      statuses.push(res.status)
      await res.text()
    }
    expect(statuses).toContain(429)
    const deadline = Date.now() + 5_000
    while (!server.output().includes('sign-in refused for account') && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 50))
    const lines = server.output().split(/\r\n|\r|\n|\u2028|\u2029/)
    expect(lines.filter((line) => line.includes('sign-in refused for account')).length).toBeGreaterThan(0)
    expect(lines.filter((line) => line.startsWith(forged))).toEqual([])
    expect(server.output()).toContain(`sign-in refused for account ${logValue(typed.trim().toLowerCase())}`)
  })

  it('escapes every line break and control character of a value', () => {
    const breaks = ['\n', '\r', '\u2028', '\u2029', '\u0000', '\u001b']
    for (const value of [...breaks.map((c) => `a${c}b`), 'a"b']) {
      const logged = logValue(value)
      expect([...logged].filter((c) => breaks.includes(c))).toEqual([])
      expect(logged.slice(1, -1)).not.toMatch(/(^|[^\\])"/)
      expect(JSON.parse(logged)).toBe(value)
    }
  })
})
