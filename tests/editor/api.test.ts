import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import sharp from 'sharp'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { checkPageConfigText } from '../../src/config/check-page-config.ts'
import { createEditorApi, type EditorSession } from '../../src/editor/api.ts'
import { versionOf, writeFileAtomically } from '../../src/editor/config-file.ts'
import { isAllowedHost } from '../../src/editor/server.ts'
import { safeImageName, storeImage } from '../../src/editor/images.ts'

const original = readFileSync('page.config.json', 'utf8')
const token = 'a-session-token-of-some-length'
let dir: string
let configFile: string
let session: EditorSession

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'vip-editor-api-'))
  cpSync('public', path.join(dir, 'public'), { recursive: true })
  configFile = path.join(dir, 'page.config.json')
  writeFileSync(configFile, original)
  session = { configFile, token }
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

function post(pathname: string, body: unknown, headers: Record<string, string> = { 'x-editor-token': token }) {
  return createEditorApi(session).request(pathname, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  })
}

describe('the editor API', () => {
  it('checks a text with the same problems, in the same words, as npm run validate', async () => {
    const broken = original.replace('"type": "hero"', '"type": "hero2"')
    const response = await post('/api/check', { text: broken })
    expect(response.status).toBe(200)
    const { problems, preview } = (await response.json()) as { problems: { line: number; message: string; fix: string }[]; preview?: unknown }
    const expected = checkPageConfigText(broken, configFile, path.join(dir, 'public'))
    expect(problems.map((p) => [p.line, p.message, p.fix])).toEqual(expected.map((p) => [p.line, p.message, p.fix]))
    expect(problems[0]?.message).toMatch(/'hero2' is not a section type; did you mean 'hero'\?/)
    expect(preview).toBeUndefined()
  })

  it('gives the page to preview for a text without problems, and asks frames to reload only when the form changed', async () => {
    const first = (await (await post('/api/check', { text: original })).json()) as { preview: { reload: boolean; config: { sections: unknown[] } } }
    expect(first.preview.config.sections.length).toBeGreaterThan(3)
    expect(first.preview.reload).toBe(true)
    const same = (await (await post('/api/check', { text: original.replace('Bramblewood Crossing",\n      "tagline"', 'Elsewhere",\n      "tagline"') })).json()) as { preview: { reload: boolean } }
    expect(same.preview.reload).toBe(false)
    const newForm = (await (await post('/api/check', { text: original.replace('"maxLength": 100', '"maxLength": 90') })).json()) as { preview: { reload: boolean } }
    expect(newForm.preview.reload).toBe(true)
  })

  it('saves exactly the text it is sent, even with problems, and says what is wrong with it', async () => {
    const text = original.replace('"$schema"', '"$comment": "kept as written",\n  "$schema"').replace(/\n/g, '\r\n')
    const response = await post('/api/save', { text, baseVersion: versionOf(original) })
    expect(response.status).toBe(200)
    expect(readFileSync(configFile, 'utf8')).toBe(text)
    const broken = text.replace('"openDelayMs": 1000,', '"openDelayMs": 1000')
    const again = await post('/api/save', { text: broken, baseVersion: versionOf(text) })
    expect(((await again.json()) as { problems: unknown[] }).problems).toHaveLength(1)
    expect(readFileSync(configFile, 'utf8')).toBe(broken)
    expect(readdirSync(dir).filter((name) => name.endsWith('.tmp'))).toEqual([])
  })

  it('refuses to save over a file that changed since the text was loaded (409), with the file’s text', async () => {
    writeFileSync(configFile, `${original}\n`)
    const response = await post('/api/save', { text: '{}', baseVersion: versionOf(original) })
    expect(response.status).toBe(409)
    expect(((await response.json()) as { text: string }).text).toBe(`${original}\n`)
    expect(readFileSync(configFile, 'utf8')).toBe(`${original}\n`)
  })

  it('refuses every request without the session token, and changes nothing', async () => {
    const attempts: Record<string, string>[] = [{}, { 'x-editor-token': 'wrong' }, { 'x-editor-token': `${token}x` }]
    for (const headers of attempts) {
      expect((await post('/api/save', { text: '{}', baseVersion: versionOf(original) }, headers)).status).toBe(403)
      expect((await post('/api/check', { text: '{}' }, headers)).status).toBe(403)
      expect((await createEditorApi(session).request('/api/state', { headers })).status).toBe(403)
    }
    const image = await createEditorApi(session).request('/api/images', { method: 'POST', headers: { 'x-file-name': 'a.svg' }, body: '<svg xmlns="http://www.w3.org/2000/svg" width="2" height="2"/>' })
    expect(image.status).toBe(403)
    expect(existsSync(path.join(dir, 'public/images/a.svg'))).toBe(false)
    expect(readFileSync(configFile, 'utf8')).toBe(original)
  })

  it('stores a dropped picture and answers with its path and size; refuses what is not a picture', async () => {
    const jpeg = await sharp({ create: { width: 300, height: 200, channels: 3, background: '#abc' } }).jpeg().toBuffer()
    const api = createEditorApi(session)
    const send = (name: string, body: Buffer | string) =>
      api.request('/api/images', { method: 'POST', headers: { 'x-editor-token': token, 'x-file-name': encodeURIComponent(name) }, body: typeof body === 'string' ? body : new Blob([new Uint8Array(body)]) })
    const stored = await send('Façade Été.JPG', jpeg)
    expect(await stored.json()).toEqual({ src: '/images/facade-ete.jpg', width: 300, height: 200 })
    const refused = await send('notes.txt', 'hello')
    expect(refused.status).toBe(415)
    expect(((await refused.json()) as { error: string }).error).toMatch(/not a picture the page can show/)
    const disguised = await send('photo.png', jpeg)
    expect(disguised.status).toBe(415)
  })
})

describe('the editor’s files', () => {
  it('names pictures safely: lower case, a-z 0-9 and dashes, accents folded, no folders', () => {
    expect(safeImageName('Front Porch (2).JPEG')).toEqual({ stem: 'front-porch-2', extension: 'jpeg' })
    expect(safeImageName('../../etc/Évier.png')).toEqual({ stem: 'evier', extension: 'png' })
    expect(safeImageName('..\\..\\x.png')).toEqual({ stem: 'x', extension: 'png' })
    expect(safeImageName('___.webp')).toEqual({ stem: 'image', extension: 'webp' })
    expect(() => safeImageName('page.config.json')).toThrow(/not a picture/)
  })

  it('refuses an SVG picture (it can carry script), whatever its name says, and stores nothing', async () => {
    const api = createEditorApi(session)
    const images = path.join(dir, 'public/images')
    const before = readdirSync(images)
    const svg = '<svg xmlns="http://www.w3.org/2000/svg" width="2" height="2"><script>alert(document.domain)</script></svg>'
    for (const name of ['logo.svg', 'LOGO.SVG', 'map.svgz']) {
      const answer = await api.request('/api/images', { method: 'POST', headers: { 'x-editor-token': token, 'x-file-name': name }, body: svg })
      expect(answer.status, name).toBe(415)
      expect(((await answer.json()) as { error: string }).error).toMatch(/SVG drawing.*PNG or WebP/)
    }
    // Named as a picture the page can show, an SVG is still refused: its bytes are not that picture.
    const disguised = await api.request('/api/images', { method: 'POST', headers: { 'x-editor-token': token, 'x-file-name': 'logo.png' }, body: svg })
    expect(disguised.status).toBe(415)
    expect(readdirSync(images)).toEqual(before)
  })

  it('never overwrites a picture: photo.png, photo-2.png, photo-3.png', async () => {
    const png = await sharp({ create: { width: 4, height: 3, channels: 3, background: '#000' } }).png().toBuffer()
    const images = path.join(dir, 'fresh/images')
    const names = []
    for (let i = 0; i < 3; i++) names.push((await storeImage(images, 'Photo.png', png)).src)
    expect(names).toEqual(['/images/photo.png', '/images/photo-2.png', '/images/photo-3.png'])
  })

  it('writes a file atomically: the exact text, its mode kept, no temporary file left', () => {
    const file = path.join(dir, 'x.json')
    writeFileSync(file, 'old', { mode: 0o600 })
    writeFileAtomically(file, '{ "a": 1 }\r\n')
    expect(readFileSync(file, 'utf8')).toBe('{ "a": 1 }\r\n')
    expect(readdirSync(dir).filter((n) => n.includes('.tmp'))).toEqual([])
    expect(statSync(file).mode & 0o777).toBe(0o600)
  })

  it('accepts only its own host names on its own port', () => {
    expect(isAllowedHost('127.0.0.1:3030', 3030)).toBe(true)
    expect(isAllowedHost('localhost:3030', 3030)).toBe(true)
    expect(isAllowedHost('127.0.0.1:3031', 3030)).toBe(false)
    expect(isAllowedHost('evil.example:3030', 3030)).toBe(false)
    expect(isAllowedHost('127.0.0.1', 3030)).toBe(false)
    expect(isAllowedHost(undefined, 3030)).toBe(false)
  })
})
