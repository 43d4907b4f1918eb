import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import sharp from 'sharp'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { checkPageConfigText } from '../../src/config/check-page-config.ts'
import { writeFileAtomically } from '../../src/config/config-file.ts'
import { createFilePublisher } from '../../src/studio/server/file-publisher.ts'
import { safeImageName, storeImage } from '../../src/studio/server/images.ts'
import { crossSiteRefusal, isAllowedHost, isPlainPath } from '../../src/studio/server/local.ts'
import { openSqliteStudioStore } from '../../src/studio/server/sqlite-store.ts'
import type { StudioStore } from '../../src/studio/server/store.ts'
import { createStudio, type Studio } from '../../src/studio/server/studio.ts'

// The studio in local mode (`npm run edit`), as its Hono app, on a copy of the config in a temp folder and a real
// SQLite store: the page's token instead of a sign-in, "publish" writing the file and building nothing.
const original = readFileSync('page.config.json', 'utf8')
const token = 'a-session-token-of-some-length'
const base = 'http://127.0.0.1:3030'
const slug = 'bramblewood-crossing'
let dir: string
let configFile: string
let store: StudioStore
let studio: Studio

beforeEach(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'vip-local-studio-'))
  cpSync('public', path.join(dir, 'public'), { recursive: true })
  cpSync('documents', path.join(dir, 'documents'), { recursive: true })
  configFile = path.join(dir, 'page.config.json')
  writeFileSync(configFile, original)
  store = openSqliteStudioStore(path.join(dir, 'studio.sqlite'))
  studio = createStudio({
    store,
    publisher: createFilePublisher([
      { slug, siteName: 'Bramblewood Crossing', configFile, localUrl: 'page.config.json' },
    ]),
    local: { token },
    secret: 'a-secret-of-some-length-for-tests',
    clientDir: path.join(dir, 'no-client'),
    secureCookies: false,
    clientAddress: () => '127.0.0.1',
    signInCounts: {
      addSignInFailure: async () => {},
      countSignInFailures: async () => [],
      saveSignInDevice: async () => {},
      isSignInDevice: async () => false,
    },
  })
  await studio.recordDiskVersions()
})
afterEach(() => {
  store.close()
  rmSync(dir, { recursive: true, force: true })
})

function call(
  method: string,
  pathname: string,
  body?: unknown,
  headers: Record<string, string> = { 'x-editor-token': token },
) {
  return studio.app.request(`${base}/studio/api${pathname}`, {
    method,
    headers: { origin: base, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })
}

describe('the studio in local mode', () => {
  it('is one owner on this computer, with no account and no sign-in', async () => {
    const me = await call('GET', '/me')
    expect(me.status).toBe(200)
    expect(await me.json()).toMatchObject({ role: 'owner', local: true })
    expect(await store.countAccounts()).toBe(0)
    expect((await studio.app.request(`${base}/studio/sign-in`)).status).toBe(404)
  })

  it('checks a text with the same problems, in the same words, as npm run validate', async () => {
    const broken = original.replace('"type": "hero"', '"type": "hero2"')
    const response = await call('POST', `/launches/${slug}/check`, { text: broken })
    expect(response.status).toBe(200)
    const { problems } = (await response.json()) as { problems: { line: number; message: string; fix: string }[] }
    const expected = checkPageConfigText(broken, configFile, path.join(dir, 'public'))
    expect(problems.map((p) => [p.line, p.message, p.fix])).toEqual(expected.map((p) => [p.line, p.message, p.fix]))
    expect(problems[0]?.message).toMatch(/'hero2' is not a section type; did you mean 'hero'\?/)
  })

  it('saves to the file exactly the text it is sent, as a new version in History; a text with problems is kept as a draft only', async () => {
    const text = original
      .replace('"heading": "Bramblewood Crossing"', '"heading":   "Bramblewood Crossing Village"')
      .replace(/\n/g, '\r\n')
    const saved = await call('POST', `/launches/${slug}/publish`, { text, message: 'CRLF' })
    expect(saved.status).toBe(200)
    expect(readFileSync(configFile, 'utf8')).toBe(text)
    expect(readdirSync(dir).filter((name) => name.endsWith('.tmp'))).toEqual([])
    const versions = (await (await call('GET', `/launches/${slug}/versions`)).json()) as {
      version: number
      fromDisk: boolean
      message?: string
    }[]
    expect(versions.map((v) => [v.version, v.fromDisk, v.message])).toEqual([
      [2, false, 'CRLF'],
      [1, true, undefined],
    ])

    const broken = text.replace('"openDelayMs": 1000,', '"openDelayMs": 1000')
    expect((await call('PUT', `/launches/${slug}/draft`, { text: broken })).status).toBe(200)
    const refused = await call('POST', `/launches/${slug}/publish`, {})
    expect(refused.status).toBe(422)
    expect(((await refused.json()) as { problems: unknown[] }).problems).toHaveLength(1)
    expect(readFileSync(configFile, 'utf8')).toBe(text)

    const restored = await call('POST', `/launches/${slug}/versions/1/restore`, {})
    expect(restored.status).toBe(200)
    expect(readFileSync(configFile, 'utf8')).toBe(original)
  })

  it('refuses every API request without the page’s token, or from another origin, and changes nothing', async () => {
    const attempts: Record<string, string>[] = [{}, { 'x-editor-token': 'wrong' }, { 'x-editor-token': `${token}x` }]
    for (const headers of attempts) {
      expect((await call('POST', `/launches/${slug}/publish`, { text: '{}' }, headers)).status).toBe(403)
      expect((await call('PUT', `/launches/${slug}/draft`, { text: '{}' }, headers)).status).toBe(403)
      expect((await call('GET', `/launches/${slug}`, undefined, headers)).status).toBe(403)
      expect((await call('GET', '/me', undefined, headers)).status).toBe(403)
    }
    const foreign = await call(
      'POST',
      `/launches/${slug}/publish`,
      { text: '{}' },
      { 'x-editor-token': token, origin: 'http://evil.localhost' },
    )
    expect(foreign.status).toBe(403)
    const image = await call('POST', `/launches/${slug}/images?name=a.png`, undefined, {})
    expect(image.status).toBe(403)
    expect(readFileSync(configFile, 'utf8')).toBe(original)
    expect(await store.getDraft(slug)).toBeUndefined()
  })

  it('serves none of the hosted studio’s people, sign-in, preview links or audit', async () => {
    for (const [method, pathname] of [
      ['GET', '/people'],
      ['POST', '/people'],
      ['GET', '/audit'],
      ['POST', '/session'],
      ['POST', `/launches/${slug}/preview-link`],
      ['POST', '/me/totp/setup'],
    ] as const) {
      const answer = await call(method, pathname, method === 'GET' ? undefined : {})
      expect(answer.status, `${method} ${pathname}`).toBe(404)
    }
    for (const page of ['/studio/sign-in', '/studio/forgot-password', '/studio/invite/x', '/studio/preview/x']) {
      expect((await studio.app.request(`${base}${page}`)).status, page).toBe(404)
    }
  })

  it('stores an uploaded picture under a safe name and refuses an SVG, whatever its name says', async () => {
    const jpeg = await sharp({ create: { width: 300, height: 200, channels: 3, background: '#abc' } })
      .jpeg()
      .toBuffer()
    const upload = (name: string, body: Buffer | string) =>
      studio.app.request(`${base}/studio/api/launches/${slug}/images?name=${encodeURIComponent(name)}`, {
        method: 'POST',
        headers: { origin: base, 'x-editor-token': token },
        body: typeof body === 'string' ? body : new Blob([new Uint8Array(body)]),
      })
    const stored = await upload('Façade Été.JPG', jpeg)
    expect(await stored.json()).toEqual({ src: '/images/facade-ete.jpg', width: 300, height: 200 })
    const images = path.join(dir, 'public/images')
    const before = readdirSync(images)
    const svg =
      '<svg xmlns="http://www.w3.org/2000/svg" width="2" height="2"><script>alert(document.domain)</script></svg>'
    for (const name of ['logo.svg', 'LOGO.SVG', 'logo.png']) expect((await upload(name, svg)).status, name).toBe(415)
    expect(readdirSync(images)).toEqual(before)
  })
})

describe('the local studio’s rules and files', () => {
  it('names pictures safely: lower case, a-z 0-9 and dashes, accents folded, no folders', () => {
    expect(safeImageName('Front Porch (2).JPEG')).toEqual({ stem: 'front-porch-2', extension: 'jpeg' })
    expect(safeImageName('../../etc/Évier.png')).toEqual({ stem: 'evier', extension: 'png' })
    expect(safeImageName('..\\..\\x.png')).toEqual({ stem: 'x', extension: 'png' })
    expect(safeImageName('___.webp')).toEqual({ stem: 'image', extension: 'webp' })
    expect(() => safeImageName('page.config.json')).toThrow(/not a picture/)
  })

  it('never overwrites a picture: photo.png, photo-2.png, photo-3.png', async () => {
    const png = await sharp({ create: { width: 4, height: 3, channels: 3, background: '#000' } })
      .png()
      .toBuffer()
    const images = path.join(dir, 'fresh/images')
    const names = []
    for (let i = 0; i < 3; i++) names.push((await storeImage(images, 'Photo.png', png)).src)
    expect(names).toEqual(['/images/photo.png', '/images/photo-2.png', '/images/photo-3.png'])
    expect(existsSync(path.join(images, 'photo-3.png'))).toBe(true)
  })

  it('writes a file atomically: the exact text, its mode kept, no temporary file left', () => {
    const file = path.join(dir, 'x.json')
    writeFileSync(file, 'old', { mode: 0o600 })
    writeFileAtomically(file, '{ "a": 1 }\r\n')
    expect(readFileSync(file, 'utf8')).toBe('{ "a": 1 }\r\n')
    expect(readdirSync(dir).filter((n) => n.includes('.tmp'))).toEqual([])
    expect(statSync(file).mode & 0o777).toBe(0o600)
  })

  it('accepts only its own host names on its own port, plain paths, and its own origin', () => {
    expect(isAllowedHost('127.0.0.1:3030', 3030)).toBe(true)
    expect(isAllowedHost('localhost:3030', 3030)).toBe(true)
    expect(isAllowedHost('127.0.0.1:3031', 3030)).toBe(false)
    expect(isAllowedHost('evil.example:3030', 3030)).toBe(false)
    expect(isAllowedHost(undefined, 3030)).toBe(false)
    expect(isPlainPath('/studio/launches/maple-ridge')).toBe(true)
    for (const bad of [
      '/studio/../.env',
      '/studio/%2e%2e/.env',
      '/.data/leads.sqlite',
      '/studio/..%2f.env',
      '/studio\\x',
    ])
      expect(isPlainPath(bad), bad).toBe(false)
    const host = '127.0.0.1:3030'
    expect(crossSiteRefusal('GET', '/studio/api/me', { host, origin: 'http://evil.localhost' })).toBeDefined()
    expect(
      crossSiteRefusal('GET', '/studio/', {
        host,
        'sec-fetch-site': 'same-site',
        'sec-fetch-mode': 'no-cors',
        'sec-fetch-dest': 'empty',
      }),
    ).toBeDefined()
    expect(
      crossSiteRefusal('GET', '/studio/', {
        host,
        'sec-fetch-site': 'cross-site',
        'sec-fetch-mode': 'navigate',
        'sec-fetch-dest': 'document',
      }),
    ).toBeUndefined()
    expect(
      crossSiteRefusal('GET', '/studio/api/me', {
        host,
        'sec-fetch-site': 'cross-site',
        'sec-fetch-mode': 'navigate',
        'sec-fetch-dest': 'document',
      }),
    ).toBeDefined()
    expect(
      crossSiteRefusal('POST', '/studio/api/me', { host, origin: `http://${host}`, 'sec-fetch-site': 'same-origin' }),
    ).toBeUndefined()
  })
})
