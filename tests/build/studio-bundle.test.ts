import { existsSync, readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'

// The studio's browser part, which `npm run build` writes into dist/_studio/ beside the launches (tests/run.ts builds
// before the tests run). Its code must never reach a launch's bundle: the public page's figures stay as they are.

const distRoot = path.resolve(process.env.DIST_DIR || 'dist')
const studioDir = path.join(distRoot, '_studio')
const launchDirs = readdirSync(distRoot, { withFileTypes: true })
  .filter(
    (entry) =>
      entry.isDirectory() && entry.name !== '_studio' && existsSync(path.join(distRoot, entry.name, 'index.html')),
  )
  .map((entry) => path.join(distRoot, entry.name))

const textFiles = (dir: string) =>
  readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((name) => /\.(js|css|html)$/.test(name))
    .map((name) => ({ name, text: readFileSync(path.join(dir, name), 'utf8') }))

// Strings only the studio's modules write: its API's path, its root element, the preview link's meta name, the
// preview round trip's outline, its own stylesheet's class names and CodeMirror's.
const studioMarkers = [
  '/studio/api',
  'studio-root',
  'studio-preview-token',
  'data-editor-current',
  'launch-card',
  'cm-editor',
]

describe('the studio build', () => {
  it('writes the app shell and the preview frame, their code under /studio/assets/', () => {
    for (const page of ['index.html', 'preview.html']) {
      const html = readFileSync(path.join(studioDir, page), 'utf8')
      const urls = [...html.matchAll(/(?:src|href)="([^"]+)"/g)]
        .map((m) => m[1]!)
        .filter((url) => !url.startsWith('data:'))
      expect(urls.length, page).toBeGreaterThan(0)
      for (const url of urls) {
        expect(url, `${page} names ${url}`).toMatch(/^\/studio\/assets\/[\w.-]+\.(js|css)$/)
        expect(existsSync(path.join(studioDir, url.slice('/studio/'.length))), `${url} is missing`).toBe(true)
      }
      // A strict CSP (script-src 'self') runs no inline script.
      expect(html, page).not.toMatch(/<script(?![^>]*\ssrc=)[^>]*>/)
    }
  })

  it('has each marker the next test looks for, so that test can fail', () => {
    const code = textFiles(studioDir)
      .map((file) => file.text)
      .join('\n')
    for (const marker of studioMarkers) expect(code, marker).toContain(marker)
  })

  it("puts none of the studio's code into any launch's bundle", () => {
    expect(launchDirs.length).toBeGreaterThan(0)
    for (const dir of launchDirs) {
      for (const file of textFiles(dir)) {
        for (const marker of studioMarkers)
          expect(file.text.includes(marker), `${path.basename(dir)}/${file.name} holds "${marker}"`).toBe(false)
      }
    }
  })
})
