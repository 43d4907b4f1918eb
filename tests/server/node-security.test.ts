import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readPageConfig } from './support/fixtures.ts'
import { startServerProcess, writeDist, type ServerProcess } from './support/node-server.ts'

// Issue 21's probes against the real Node server (src/cli/serve.ts in its own process): what the site serves.

const root = mkdtempSync(path.join(tmpdir(), 'vip-node-security-'))
const distDir = path.join(root, 'dist')
writeDist(distDir)
const slug = readPageConfig().launch.slug
writeFileSync(path.join(distDir, slug, 'plan.svg'), '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>')
afterAll(() => rmSync(root, { recursive: true, force: true }))

let server: ServerProcess
beforeAll(async () => {
  server = await startServerProcess({ DATA_DIR: path.join(root, 'data'), DIST_DIR: distDir })
})
afterAll(async () => {
  await server.stop('SIGTERM')
})

describe('node server: images (issue 21, item 9)', () => {
  it('serves an image with a CSP that lets it run and load nothing, and nosniff', async () => {
    const svg = await fetch(`${server.url}/plan.svg`)
    expect(svg.status).toBe(200)
    expect(svg.headers.get('content-type')).toBe('image/svg+xml')
    expect(svg.headers.get('content-security-policy')).toBe("default-src 'none'; style-src 'unsafe-inline'")
    expect(svg.headers.get('x-content-type-options')).toBe('nosniff')
    // Pages keep the site's policy.
    const home = await fetch(`${server.url}/`)
    expect(home.headers.get('content-security-policy')).toContain("default-src 'self'")
  })
})

describe('node server: the unsubscribe page (issue 21, item 10)', () => {
  it("keeps its own Referrer-Policy: no-referrer, since its address carries the link's signature", async () => {
    for (const query of ['', `?id=${crypto.randomUUID()}&sig=forged`]) {
      const page = await fetch(`${server.url}/functions/v1/send-contact-email/unsubscribe${query}`)
      expect(page.headers.get('content-type')).toMatch(/^text\/html/)
      expect(page.headers.get('referrer-policy')).toBe('no-referrer')
      // The site's other headers are still there.
      expect(page.headers.get('x-frame-options')).toBe('DENY')
    }
    expect((await fetch(`${server.url}/`)).headers.get('referrer-policy')).toBe('strict-origin-when-cross-origin')
  })
})
