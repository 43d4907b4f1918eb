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
writeFileSync(
  path.join(distDir, slug, 'plan.svg'),
  '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>',
)
afterAll(() => rmSync(root, { recursive: true, force: true }))

const password = 'correct horse battery staple'
let server: ServerProcess
beforeAll(async () => {
  // One proxy in front, on loopback: the test names each client in X-Forwarded-For, as the proxy would.
  server = await startServerProcess({
    DATA_DIR: path.join(root, 'data'),
    DIST_DIR: distDir,
    LEADS_PASSWORD: password,
    TRUST_PROXY: '1',
  })
})

/** A sign-in to the leads page from `client` (the address the proxy saw), as the page's own form sends it. */
function signIn(client: string, typed: string, cookie?: string) {
  const host = new URL(server.url).host
  return fetch(`${server.url}/leads/sign-in`, {
    method: 'POST',
    redirect: 'manual',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      origin: `http://${host}`,
      'x-forwarded-for': client,
      ...(cookie ? { cookie } : {}),
    },
    body: new URLSearchParams({ password: typed }).toString(),
  })
}
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

describe('node server: the leads page sign-in limits (issue 21, item 3)', () => {
  it('refuses twelve wrong passwords from twelve /64s of one /48 by the twelfth, and still lets in a device that signed in before', async () => {
    // The team signed in earlier from the office: that browser holds a device cookie.
    const earlier = await signIn('198.51.100.20', password)
    expect(earlier.status).toBe(303)
    const device = earlier.headers
      .getSetCookie()
      .map((c) => c.split(';')[0]!)
      .find((c) => c.startsWith('leads_device='))
    expect(device).toMatch(/^leads_device=[\w-]{40,}$/)

    const statuses: number[] = []
    for (let i = 1; i <= 12; i++) {
      const attempt = await signIn(`2001:db8:77:${i.toString(16)}::1`, 'not the password')
      statuses.push(attempt.status)
      if (attempt.status === 429) expect(Number(attempt.headers.get('retry-after'))).toBeGreaterThan(0)
    }
    expect(statuses[11]).toBe(429)
    expect(statuses.filter((s) => s === 401).length).toBeLessThanOrEqual(10)
    expect(server.output()).toMatch(
      /sign-in refused for account "leads-page": the (network|account) budget is spent \(client "2001:db8:77:c::1"\)/,
    )

    // Another client without the cookie is refused too (the account's budget is spent) ...
    expect((await signIn('192.0.2.44', password)).status).toBe(429)
    // ... but the team's browser still signs in, during the attack.
    const during = await signIn('198.51.100.20', password, device)
    expect(during.status).toBe(303)
    expect(during.headers.get('location')).toBe('/leads')
  })
})

describe('node server: a new LEADS_PASSWORD (issue 21, item 5)', () => {
  it('ends every session made with the old password', async () => {
    const dataDir = path.join(root, 'password-change')
    const host = (url: string) => new URL(url).host
    const signInTo = (url: string, typed: string) =>
      fetch(`${url}/leads/sign-in`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: `http://${host(url)}` },
        body: new URLSearchParams({ password: typed }).toString(),
      })
    const sessionOf = (response: Response) =>
      response.headers
        .getSetCookie()
        .find((c) => c.startsWith('leads_session='))!
        .split(';')[0]!

    const before = await startServerProcess({
      DATA_DIR: dataDir,
      DIST_DIR: distDir,
      LEADS_PASSWORD: 'the old team password',
    })
    let cookie: string
    try {
      cookie = sessionOf(await signInTo(before.url, 'the old team password'))
      expect(await (await fetch(`${before.url}/leads`, { headers: { cookie } })).text()).toContain('Registrations')
    } finally {
      await before.stop('SIGTERM')
    }
    // The same password again: the session lives on (a restart alone signs nobody out).
    const same = await startServerProcess({
      DATA_DIR: dataDir,
      DIST_DIR: distDir,
      LEADS_PASSWORD: 'the old team password',
    })
    try {
      expect(await (await fetch(`${same.url}/leads`, { headers: { cookie } })).text()).toContain('Registrations')
    } finally {
      await same.stop('SIGTERM')
    }
    const after = await startServerProcess({
      DATA_DIR: dataDir,
      DIST_DIR: distDir,
      LEADS_PASSWORD: 'a brand new team password',
    })
    try {
      expect(await (await fetch(`${after.url}/leads`, { headers: { cookie } })).text()).toContain(
        'Sign in with the team',
      )
      expect((await fetch(`${after.url}/leads/leads.csv`, { headers: { cookie }, redirect: 'manual' })).status).toBe(
        303,
      )
    } finally {
      await after.stop('SIGTERM')
    }
  }, 90_000)
})

describe('node server: X-Forwarded-Host and -Proto behind TRUST_PROXY (issue 21, item 6)', () => {
  /** A leads-page form post claiming to come from `site`, with these forwarded headers. */
  const postFrom = (url: string, site: string, forwarded: Record<string, string>) =>
    fetch(`${url}/leads/sign-in`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: site, ...forwarded },
      body: new URLSearchParams({ password: 'not the password' }).toString(),
    })

  it('believes them from the trusted proxy only for a host a launch declares', async () => {
    const canonical = new URL(readPageConfig().seo.canonicalUrl)
    // The launch's own host, forwarded by the proxy: the page is this site's (the sign-in itself is then judged).
    expect(
      (
        await postFrom(server.url, canonical.origin, {
          'x-forwarded-host': canonical.host,
          'x-forwarded-proto': canonical.protocol.slice(0, -1),
        })
      ).status,
    ).not.toBe(403)
    // Any other host is not believed, so a page of that host is another site's.
    expect(
      (
        await postFrom(server.url, 'https://evil.example', {
          'x-forwarded-host': 'evil.example',
          'x-forwarded-proto': 'https',
        })
      ).status,
    ).toBe(403)
  })

  it('ignores them from a peer that is not one of TRUSTED_PROXIES', async () => {
    const direct = await startServerProcess({
      DATA_DIR: path.join(root, 'untrusted-peer'),
      DIST_DIR: distDir,
      LEADS_PASSWORD: password,
      TRUST_PROXY: '1',
      // The proxy connects from elsewhere: this test's loopback connection is a client reaching the port directly.
      TRUSTED_PROXIES: '192.0.2.1',
    })
    try {
      const canonical = new URL(readPageConfig().seo.canonicalUrl)
      expect(
        (
          await postFrom(direct.url, canonical.origin, {
            'x-forwarded-host': canonical.host,
            'x-forwarded-proto': canonical.protocol.slice(0, -1),
          })
        ).status,
      ).toBe(403)
    } finally {
      await direct.stop('SIGTERM')
    }
  }, 60_000)
})
