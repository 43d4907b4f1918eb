import { request as httpRequest } from 'node:http'
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runStudioInvite } from '../../src/cli/studio-invite.ts'
import { startServerProcess, writeDist, type ServerProcess } from './support/node-server.ts'

// Issue 42, item 12: the studio and the leads page share the public site's origin, whose CSP admits whatever tag
// manager a launch's config names. With STUDIO_HOST they answer on that host alone, with cookies of their own.

const root = mkdtempSync(path.join(tmpdir(), 'vip-studio-host-'))
const dataDir = path.join(root, '.data')
const distDir = path.join(root, 'dist')
const configFile = path.join(root, 'page.config.json')
let server: ServerProcess

function get(url: string, host: string): Promise<{ status: number; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { headers: { host } }, (res) => {
      res.resume()
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers }))
    })
    req.on('error', reject)
    req.end()
  })
}

beforeAll(async () => {
  cpSync('public', path.join(root, 'public'), { recursive: true })
  cpSync('documents', path.join(root, 'documents'), { recursive: true })
  writeFileSync(configFile, readFileSync('page.config.json', 'utf8'))
  writeDist(distDir)
  mkdirSync(dataDir, { recursive: true })
  const quiet = () => {}
  const args = ['--email', 'owner@example.com', '--role', 'owner']
  expect(await runStudioInvite(args, { DATA_DIR: dataDir, PAGE_CONFIG: configFile }, root, quiet, quiet)).toBe(0)
  server = await startServerProcess({
    DATA_DIR: dataDir,
    DIST_DIR: distDir,
    PAGE_CONFIG: configFile,
    STUDIO_HOST: 'studio.localhost',
  })
}, 60_000)
afterAll(async () => {
  await server?.stop()
  rmSync(root, { recursive: true, force: true })
})

describe('STUDIO_HOST (issue 42, item 12)', () => {
  it("answers the studio and the leads page on STUDIO_HOST alone, never on the launch's own origin", async () => {
    const port = new URL(server.url).port
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `bramblewood-crossing.localhost:${port}`]) {
      expect((await get(`${server.url}/studio/sign-in`, host)).status, host).toBe(404)
      expect((await get(`${server.url}/leads`, host)).status, host).toBe(404)
      // The launch's page is still there for visitors.
      expect((await get(`${server.url}/`, host)).status, host).toBe(200)
    }
    const studioHost = `studio.localhost:${port}`
    expect((await get(`${server.url}/studio/sign-in`, studioHost)).status).toBe(200)
    expect((await get(`${server.url}/leads`, studioHost)).status).not.toBe(404)
  })
})
