import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'

// The site npm test built into dist/ (tests/run.ts builds before the tests run).
const distDir = path.resolve(process.env.DIST_DIR || 'dist')
const assets = readdirSync(path.join(distDir, 'assets')).filter((name) => name.endsWith('.js'))
const indexHtml = readFileSync(path.join(distDir, 'index.html'), 'utf8')

describe('the built bundle', () => {
  it('compiles no code at run time: no Function constructor anywhere (CSP without unsafe-eval)', () => {
    expect(assets.length).toBeGreaterThan(0)
    for (const name of assets) {
      const code = readFileSync(path.join(distDir, 'assets', name), 'utf8')
      expect(code, name).not.toMatch(/new Function\s*\(|[^.\w$]Function\s*\(/)
    }
  })

  it('keeps the form, its validator, the dialog, toasts and supabase-js out of the initial script', () => {
    const entry = /<script type="module"[^>]*src="\/assets\/([^"]+)"/.exec(indexHtml)?.[1]
    expect(entry).toBeTruthy()
    const code = readFileSync(path.join(distDir, 'assets', entry as string), 'utf8')
    expect(code).not.toContain('ReactModal__')
    expect(code).not.toContain('functions/v1')
    expect(code).not.toMatch(/must NOT have more than/) // Ajv messages travel with the form chunk only
    expect(indexHtml).not.toMatch(/rel="modulepreload"[^>]*RegistrationForm/)
  })

  it('inlines no script but the JSON-LD and the config data block', () => {
    const inline = [...indexHtml.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)].filter(([, , body]) => body?.trim())
    expect(inline.map(([, attributes]) => attributes?.trim())).toEqual(['type="application/ld+json"', 'type="application/json" id="page-config"'])
  })
})
