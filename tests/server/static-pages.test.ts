import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { Hono } from 'hono'
import { afterAll, describe, expect, it } from 'vitest'
import { createStaticSite } from '../../src/server/site/static-site.ts'

// The Node server serves a page's address without ".html" from its file, as static hosts do: /privacy is privacy.html.

const dist = mkdtempSync(path.join(tmpdir(), 'vip-static-pages-'))
afterAll(() => rmSync(dist, { recursive: true, force: true }))
for (const [file, text] of [
  ['index.html', 'home'],
  ['404.html', 'not found'],
  ['privacy.html', 'privacy page'],
  ['images/a', 'no extension'],
] as const) {
  mkdirSync(path.dirname(path.join(dist, file)), { recursive: true })
  writeFileSync(path.join(dist, file), text)
}
const app = new Hono().get('*', createStaticSite({ distDir: dist }))
const get = async (url: string) => {
  const res = await app.request(`http://site.test${url}`)
  return [res.status, await res.text(), res.headers.get('content-type')]
}

describe('the static site', () => {
  it('serves /privacy and /privacy.html from privacy.html, as HTML revalidated each time', async () => {
    expect(await get('/privacy')).toEqual([200, 'privacy page', 'text/html; charset=utf-8'])
    expect(await get('/privacy.html')).toEqual([200, 'privacy page', 'text/html; charset=utf-8'])
    expect((await app.request('http://site.test/privacy')).headers.get('cache-control')).toBe('no-cache')
  })

  it('keeps a file without an extension as it is, and answers 404 for what is not there', async () => {
    expect((await get('/images/a')).slice(0, 2)).toEqual([200, 'no extension'])
    expect((await get('/privacy/')).slice(0, 2)).toEqual([404, 'not found'])
    expect((await get('/no-such-page')).slice(0, 2)).toEqual([404, 'not found'])
    expect((await get('/..%2F..%2Fetc%2Fpasswd')).slice(0, 2)).toEqual([404, 'not found'])
  })
})
