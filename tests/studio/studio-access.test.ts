import { readdirSync, readFileSync } from 'node:fs'
import sharp from 'sharp'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import * as OTPAuth from 'otpauth'
import {
  originalText,
  personWithPassword,
  signIn,
  startStudioHarness,
  type StudioClient,
  type StudioHarness,
} from './support/studio-harness.ts'

const slug = 'bramblewood-crossing'
const password = 'correct horse battery staple'
const edited = originalText.replace('"heading": "Bramblewood Crossing"', '"heading": "Changed by someone who may not"')
let h: StudioHarness

beforeEach(async () => {
  h = await startStudioHarness({ mail: true })
})
afterEach(() => h.close())

/** A New launch that an owner would get made. */
const newLaunchRequest = {
  from: slug,
  name: 'Maple Ridge',
  phone: '(555) 555-0199',
  email: 'maple@example.org',
  address: 'Maple Line & Concession Road 4, Alderbrook, ON',
  domain: 'mapleridge.example.org',
  notifyEmail: 'leads@example.org',
  replyFrom: 'hello@example.org',
}

/** Every endpoint that changes something, with a body that would succeed for an owner. */
const writes: Array<[string, string, unknown]> = [
  ['PUT', `/studio/api/launches/${slug}/draft`, { text: edited }],
  ['DELETE', `/studio/api/launches/${slug}/draft`, undefined],
  ['POST', `/studio/api/launches/${slug}/check`, { text: edited }],
  ['POST', `/studio/api/launches/${slug}/publish`, { text: edited }],
  ['POST', `/studio/api/launches/${slug}/versions/1/restore`, {}],
  ['POST', `/studio/api/launches/${slug}/preview-link`, {}],
  ['POST', `/studio/api/people`, { email: 'new@example.com', role: 'editor' }],
  ['PUT', `/studio/api/people/owner%40example.com`, { role: 'sales' }],
  ['DELETE', `/studio/api/people/owner%40example.com`, undefined],
  ['POST', `/studio/api/people/owner%40example.com/reset-link`, {}],
  ['POST', `/studio/api/me/totp`, { secret: 'A'.repeat(32), code: '123456' }],
  ['POST', '/studio/api/launches', newLaunchRequest],
]

/** What a refused write must leave as it was. */
async function snapshot() {
  return {
    file: readFileSync(h.configFile, 'utf8'),
    draft: await h.store.getDraft(slug),
    versions: (await h.store.listVersions(slug)).length,
    people: (await h.store.listAccounts()).map((a) => `${a.email}:${a.role}`),
    folders: readdirSync(h.dir).sort(),
    audit: (await h.store.listAudit(1000)).filter((entry) => entry.action !== 'sign-in').length,
  }
}

async function statusesOf(client: StudioClient, origin?: string | null): Promise<number[]> {
  const statuses: number[] = []
  for (const [method, pathname, body] of writes)
    statuses.push((await client.json(pathname, method, body, origin)).status)
  return statuses
}

describe('who may change what in the studio', () => {
  it('refuses every write endpoint (403) to a sales account, and changes nothing', async () => {
    await personWithPassword(h, 'owner@example.com', 'owner', password)
    const sales = await personWithPassword(h, 'sales@example.com', 'sales', password)
    const before = await snapshot()
    const statuses = await statusesOf(sales)
    expect(statuses.slice(0, 7)).toEqual(Array(7).fill(403))
    // People and two-factor: owners only (sales is refused too).
    expect(statuses.slice(6, 10)).toEqual(Array(4).fill(403))
    expect(statuses.slice(10)).toEqual([403, 403])
    const upload = await sales.request(`/studio/api/launches/${slug}/images?name=photo.png`, {
      method: 'POST',
      body: new Uint8Array(8),
    })
    expect(upload.status).toBe(403)
    expect((await sales.request(`/studio/api/launches/${slug}`)).status).toBe(403)
    expect(await snapshot()).toEqual(before)
  })

  it('refuses requests without a session (401) or from another origin (403), and changes nothing', async () => {
    const owner = await personWithPassword(h, 'owner@example.com', 'owner', password)
    const before = await snapshot()
    expect(new Set(await statusesOf(h.client()))).toEqual(new Set([401]))
    expect(new Set(await statusesOf(owner, 'http://evil.localhost'))).toEqual(new Set([403]))
    expect(new Set(await statusesOf(owner, null))).toEqual(new Set([403]))
    expect((await owner.form('/studio/sign-out', {}, 'http://evil.localhost')).status).toBe(403)
    expect(await snapshot()).toEqual(before)
    // The same session from the studio's own origin does get through.
    expect((await owner.json(`/studio/api/launches/${slug}/draft`, 'PUT', { text: edited })).status).toBe(200)
  })

  it('ends sessions at once when the person is removed, or their role or password changes', async () => {
    const owner = await personWithPassword(h, 'owner@example.com', 'owner', password)
    const roleChanged = await personWithPassword(h, 'a@example.com', 'editor', password)
    const removed = await personWithPassword(h, 'b@example.com', 'editor', password)
    const passwordChanged = await personWithPassword(h, 'c@example.com', 'editor', password)
    const otherDevice = h.client('198.51.100.7')
    expect((await signIn(otherDevice, 'c@example.com', password)).status).toBe(303)

    expect(
      (await owner.json('/studio/api/people/a%40example.com', 'PUT', { role: 'editor', launches: [slug] })).status,
    ).toBe(200)
    expect((await owner.json('/studio/api/people/b%40example.com', 'DELETE')).status).toBe(200)
    const reset = (await (await owner.json('/studio/api/people/c%40example.com/reset-link', 'POST', {})).json()) as {
      link: string
      emailed: boolean
    }
    expect(reset.emailed).toBe(true)
    expect(h.mails.at(-1)).toMatchObject({ to: 'c@example.com' })
    expect(h.mails.at(-1)!.text).toContain(reset.link)
    // The person sets a new password on one device: the other device's session ends.
    expect(
      (
        await passwordChanged.form(new URL(reset.link).pathname, {
          password: 'another long password',
          confirm: 'another long password',
        })
      ).status,
    ).toBe(303)

    const before = await snapshot()
    for (const stale of [roleChanged, removed, otherDevice]) {
      expect((await stale.request('/studio/api/me')).status).toBe(401)
      expect((await stale.json(`/studio/api/launches/${slug}/draft`, 'PUT', { text: edited })).status).toBe(401)
      expect((await stale.request('/studio/')).status).toBe(303)
    }
    expect(await snapshot()).toEqual(before)
    // The removed person cannot sign in again; the others can with their current password.
    expect((await signIn(h.client('192.0.2.10'), 'b@example.com', password)).status).toBe(401)
    expect((await signIn(roleChanged, 'a@example.com', password)).status).toBe(303)
    expect((await signIn(h.client('192.0.2.11'), 'c@example.com', password)).status).toBe(401)
    expect((await passwordChanged.request('/studio/api/me')).status).toBe(200)
  })

  it('lets a launch-limited editor see and change only its launches', async () => {
    const editor = await personWithPassword(h, 'limited@example.com', 'editor', password, [slug])
    expect(((await (await editor.request('/studio/api/launches')).json()) as unknown[]).length).toBe(1)
    await h.store.changeAccess(
      (await h.store.findAccountByEmail('limited@example.com'))!.id,
      { role: 'editor', launches: ['another-launch'] },
      h.now,
    )
    expect((await signIn(editor, 'limited@example.com', password)).status).toBe(303)
    expect(await (await editor.request('/studio/api/launches')).json()).toEqual([])
    expect((await editor.json(`/studio/api/launches/${slug}/draft`, 'PUT', { text: edited })).status).toBe(403)
    expect((await editor.request(`/studio/api/launches/${slug}/preview`)).status).toBe(403)
  })
})

describe('the studio sign-in limits', () => {
  it('refuses the 11th wrong password in a minute with 429 and Retry-After', async () => {
    await personWithPassword(h, 'owner@example.com', 'owner', password)
    const attacker = h.client('203.0.113.9')
    for (let i = 1; i <= 10; i++)
      expect((await signIn(attacker, 'owner@example.com', `wrong password ${i}`)).status, `try ${i}`).toBe(401)
    const eleventh = await signIn(attacker, 'owner@example.com', 'wrong password 11')
    expect(eleventh.status).toBe(429)
    expect(Number(eleventh.headers.get('retry-after'))).toBeGreaterThan(0)
    // Even the right password waits: the address is out of tries for this minute.
    expect((await signIn(attacker, 'owner@example.com', password)).status).toBe(429)
    h.advance(61_000)
    expect((await signIn(attacker, 'owner@example.com', password)).status).toBe(303)
  })

  it('counts one /48 together and one account over all clients, but lets a device that signed in before through', async () => {
    await personWithPassword(h, 'owner@example.com', 'owner', password)
    const device = h.client('2001:db8:1:ff::1')
    expect((await signIn(device, 'owner@example.com', password)).status).toBe(303)
    expect(device.cookies.has('studio_device')).toBe(true)
    // Twelve /64s of one /48, one wrong password each: the account's budget (10) runs out first.
    const statuses: number[] = []
    for (let i = 0; i < 12; i++)
      statuses.push(
        (await signIn(h.client(`2001:db8:1:${i.toString(16)}::1`), 'owner@example.com', 'wrong password')).status,
      )
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(401))
    expect(statuses.slice(10)).toEqual([429, 429])
    // The owner's own browser, from the same /48, still signs in.
    expect((await signIn(device, 'owner@example.com', password)).status).toBe(303)
    // A new browser does not.
    expect((await signIn(h.client('2001:db8:1:99::1'), 'owner@example.com', password)).status).toBe(429)
  })

  it("signs in and out through the studio page's JSON call with the same limits and cookies", async () => {
    await personWithPassword(h, 'owner@example.com', 'owner', password)
    const page = h.client('192.0.2.40')
    expect(
      (
        await page.json(
          '/studio/api/session',
          'POST',
          { email: 'owner@example.com', password },
          'http://evil.localhost',
        )
      ).status,
    ).toBe(403)
    const wrong = await page.json('/studio/api/session', 'POST', {
      email: 'owner@example.com',
      password: 'not the password',
    })
    expect(wrong.status).toBe(401)
    expect(((await wrong.json()) as { error: string }).error).toContain('do not match')
    expect((await page.json('/studio/api/session', 'POST', { email: 'owner@example.com', password })).status).toBe(200)
    expect((await page.request('/studio/api/me')).status).toBe(200)
    expect((await page.json('/studio/api/session', 'DELETE')).status).toBe(200)
    expect((await page.request('/studio/api/me')).status).toBe(401)
  })

  it('refuses a 31st failure from one IPv6 /48 spread over many /64s and accounts, and no other /48', async () => {
    await personWithPassword(h, 'owner@example.com', 'owner', password)
    // Thirty /64s of one /48, each trying another account once: no address or account budget is near its 10.
    for (let i = 0; i < 30; i++) {
      const response = await signIn(
        h.client(`2001:db8:2:${i.toString(16)}::1`),
        `user${i}@example.com`,
        'wrong password',
      )
      expect(response.status, `try ${i + 1}`).toBe(401)
    }
    const next = await signIn(h.client('2001:db8:2:ffff::1'), 'other@example.com', 'wrong password')
    expect(next.status).toBe(429)
    expect(Number(next.headers.get('retry-after'))).toBeGreaterThan(0)
    // The /48's budget holds the right password back too, for a browser that never signed in here.
    expect((await signIn(h.client('2001:db8:2:fffe::1'), 'owner@example.com', password)).status).toBe(429)
    // Another /48 is not counted with it.
    expect((await signIn(h.client('2001:db8:3::1'), 'owner@example.com', password)).status).toBe(303)
    h.advance(61_000)
    expect((await signIn(h.client('2001:db8:2:fffe::1'), 'owner@example.com', password)).status).toBe(303)
  })

  it('asks owners with two-factor sign-in on for a code, and refuses a wrong one', async () => {
    const owner = await personWithPassword(h, 'owner@example.com', 'owner', password)
    const { secret } = (await (await owner.json('/studio/api/me/totp/setup', 'POST', {})).json()) as { secret: string }
    const totp = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret) })
    expect(
      (
        await owner.json('/studio/api/me/totp', 'POST', {
          secret,
          code: '000000' === totp.generate({ timestamp: h.now.getTime() }) ? '111111' : '000000',
        })
      ).status,
    ).toBe(400)
    expect(
      (await owner.json('/studio/api/me/totp', 'POST', { secret, code: totp.generate({ timestamp: h.now.getTime() }) }))
        .status,
    ).toBe(200)
    const browser = h.client('192.0.2.20')
    const asked = await signIn(browser, 'owner@example.com', password)
    expect(asked.status).toBe(401)
    expect(await asked.text()).toContain('<label for="code">Code</label>')
    expect((await signIn(browser, 'owner@example.com', password, '000001')).status).toBe(401)
    expect(
      (await signIn(browser, 'owner@example.com', password, totp.generate({ timestamp: h.now.getTime() }))).status,
    ).toBe(303)
  })
})

describe('studio previews and pictures', () => {
  it('gives a preview link that works without an account; a forged or expired one is refused', async () => {
    const owner = await personWithPassword(h, 'owner@example.com', 'owner', password)
    await owner.json(`/studio/api/launches/${slug}/draft`, 'PUT', { text: edited })
    const { url, expiresAt } = (await (
      await owner.json(`/studio/api/launches/${slug}/preview-link`, 'POST', {})
    ).json()) as { url: string; expiresAt: string }
    expect(Date.parse(expiresAt) - h.now.getTime()).toBe(7 * 86_400_000)
    const token = new URL(url).pathname.split('/').pop()!
    const stranger = h.client('192.0.2.30')
    const page = await stranger.request(new URL(url).pathname)
    expect(page.status).toBe(200)
    expect(page.headers.get('x-robots-tag')).toContain('noindex')
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'self'")
    expect(await page.text()).toContain(`<meta name="studio-preview-token" content="${token}">`)
    const data = (await (await stranger.request(`/studio/api/preview/${token}`)).json()) as {
      config: { sections: Array<{ heading?: string }> }
      validatorUrl: string
    }
    expect(JSON.stringify(data.config)).toContain('Changed by someone who may not')
    expect(JSON.stringify(data.config)).not.toContain('notifyEmail')
    // The validator is one ES module with nothing to resolve: a browser (or Node) imports it as it is.
    const code = await (await stranger.request(data.validatorUrl)).text()
    expect(code).not.toMatch(/(^|[;}])\s*import[\s{*]/)
    const module = (await import(`data:text/javascript,${encodeURIComponent(code)}`)) as {
      validators: Record<string, (data: unknown) => boolean>
    }
    expect(typeof module.validators.registration).toBe('function')
    expect(module.validators.registration!({})).toBe(false)

    const forged = `${token.slice(0, -2)}${token.endsWith('AA') ? 'BB' : 'AA'}`
    expect((await stranger.request(`/studio/api/preview/${forged}`)).status).toBe(404)
    expect((await stranger.request(`/studio/preview/${forged}`)).status).toBe(404)
    h.advance(7 * 86_400_000 + 1)
    expect((await stranger.request(`/studio/api/preview/${token}`)).status).toBe(404)
    expect((await stranger.request(new URL(url).pathname)).status).toBe(404)
  })

  it('stores an uploaded picture under a safe name, serves it with a closed CSP, and refuses SVG', async () => {
    const owner = await personWithPassword(h, 'owner@example.com', 'owner', password)
    const png = await sharp({ create: { width: 4, height: 3, channels: 3, background: '#336699' } })
      .png()
      .toBuffer()
    const stored = await owner.request(
      `/studio/api/launches/${slug}/images?name=${encodeURIComponent('Façade Été.PNG')}`,
      { method: 'POST', body: new Uint8Array(png) },
    )
    expect(await stored.json()).toEqual({ src: '/images/facade-ete.png', width: 4, height: 3 })
    const served = await owner.request(`/studio/api/launches/${slug}/images/facade-ete.png`)
    expect(served.headers.get('content-security-policy')).toBe("default-src 'none'; style-src 'unsafe-inline'")
    expect(Buffer.from(await served.arrayBuffer())).toEqual(png)
    const svg = await owner.request(`/studio/api/launches/${slug}/images?name=logo.svg`, {
      method: 'POST',
      body: '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>',
    })
    expect(svg.status).toBe(415)
    expect((await owner.request(`/studio/api/launches/${slug}/images/..%2Fpage.config.json`)).status).toBe(404)
  })

  it('serves the built client: assets immutable, the app only when signed in', async () => {
    const asset = await h.client().request('/studio/assets/app-abc123.js')
    expect(asset.status).toBe(404) // off: no account yet
    await personWithPassword(h, 'owner@example.com', 'owner', password)
    const served = await h.client().request('/studio/assets/app-abc123.js')
    expect(served.headers.get('cache-control')).toContain('immutable')
    const anonymous = await h.client().request('/studio/')
    expect(anonymous.status).toBe(303)
    expect(anonymous.headers.get('location')).toBe('/studio/sign-in')
    expect((await h.client().request('/studio/preview-frame')).status).toBe(303)
  })
})
