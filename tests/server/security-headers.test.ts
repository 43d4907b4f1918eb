import { createHash } from 'node:crypto'
import { Hono } from 'hono'
import { describe, expect, it } from 'vitest'
import { cspHashesOf, secureHeadersMiddleware, securityHeaders, staticHostHeaders, styleHashesOf } from '../../src/server/site/security-headers.ts'

const jsonLd = '{"@context":"https://schema.org","@type":"RealEstateAgent","name":"Caf\u00e9 \\u003c Homes"}'
const page = `<!doctype html><html><head><title>t</title><script type="application/ld+json">${jsonLd}</script>
<script type="module" crossorigin src="/assets/index-abc.js"></script></head><body><script>alert(1)</script></body></html>`
const expectedHash = `sha256-${createHash('sha256').update(jsonLd, 'utf8').digest('base64')}`

/** The CSP as a map of directive → sources. */
function directives(csp: string): Map<string, string[]> {
  return new Map(csp.split(';').map((part) => part.trim().split(/\s+/)).map(([name, ...sources]) => [name ?? '', sources]))
}

describe('cspHashesOf', () => {
  it('hashes the exact text of each JSON-LD script, and only those', async () => {
    await expect(cspHashesOf(page)).resolves.toEqual([expectedHash])
  })

  it("hashes the build's inline boot module too, but no classic inline script and no data block", async () => {
    const boot = 'addEventListener("load",()=>import("/assets/index-abc.js"),{once:true});'
    const booted = page.replace('<script type="module" crossorigin src="/assets/index-abc.js"></script>', `<script type="module">${boot}</script>`)
    const withData = booted.replace('</body>', '<script type="application/json" id="page-config">{"a":1}</script></body>')
    const bootHash = `sha256-${createHash('sha256').update(boot, 'utf8').digest('base64')}`
    await expect(cspHashesOf(withData)).resolves.toEqual([expectedHash, bootHash])
  })

  it('lists a repeated block once and finds none in a page without JSON-LD', async () => {
    const twice = page.replace('</head>', `<script type="application/ld+json">${jsonLd}</script></head>`)
    await expect(cspHashesOf(twice)).resolves.toEqual([expectedHash])
    await expect(cspHashesOf('<!doctype html><title>404</title>')).resolves.toEqual([])
  })
})

describe('styleHashesOf', () => {
  it("hashes the inlined stylesheet, and the CSP allows exactly that style and the origin's", async () => {
    const css = '.a{color:red}'
    const hashes = await styleHashesOf(`<head><style>${css}</style></head><body><p style="x"></p></body>`)
    expect(hashes).toEqual([`sha256-${createHash('sha256').update(css, 'utf8').digest('base64')}`])
    const csp = directives(securityHeaders({ jsonLdHashes: [], styleHashes: hashes, https: false })['Content-Security-Policy'] ?? '')
    expect(csp.get('style-src')).toEqual(["'self'", `'${hashes[0]}'`])
  })
})

describe('securityHeaders', () => {
  it('allows scripts from the origin and the JSON-LD hash, never inline code or eval', () => {
    const csp = directives(securityHeaders({ jsonLdHashes: [expectedHash], https: false })['Content-Security-Policy'] ?? '')
    expect(csp.get('script-src')).toEqual(["'self'", `'${expectedHash}'`])
    expect(csp.get('style-src')).toEqual(["'self'"])
    expect(csp.get('default-src')).toEqual(["'self'"])
    expect(csp.get('img-src')).toEqual(["'self'", 'data:'])
    expect(csp.get('connect-src')).toEqual(["'self'"])
    expect(csp.get('frame-ancestors')).toEqual(["'none'"])
    expect(csp.get('object-src')).toEqual(["'none'"])
    expect(csp.get('base-uri')).toEqual(["'self'"])
    expect(csp.get('form-action')).toEqual(["'self'"])
    const all = [...csp.values()].flat()
    expect(all).not.toContain("'unsafe-inline'")
    expect(all).not.toContain("'unsafe-eval'")
  })

  it('lets the form reach a hosted Supabase project by its origin only, by script and as a plain form post', () => {
    const csp = securityHeaders({ jsonLdHashes: [], https: true, supabaseUrl: 'https://abc.supabase.co/' })['Content-Security-Policy']
    expect(directives(csp ?? '').get('connect-src')).toEqual(["'self'", 'https://abc.supabase.co'])
    expect(directives(csp ?? '').get('form-action')).toEqual(["'self'", 'https://abc.supabase.co'])
  })

  it('sends HSTS only over HTTPS, and the other headers always', () => {
    const plain = securityHeaders({ jsonLdHashes: [], https: false })
    expect(plain).not.toHaveProperty('Strict-Transport-Security')
    expect(plain).toMatchObject({
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': 'strict-origin-when-cross-origin',
      'X-Frame-Options': 'DENY',
    })
    expect(plain['Permissions-Policy']).toContain('camera=()')
    expect(securityHeaders({ jsonLdHashes: [], https: true })['Strict-Transport-Security']).toMatch(/^max-age=\d{8,}/)
  })
})

describe('secureHeadersMiddleware', () => {
  it('adds the headers to pages and to errors, keeping the handler’s own', async () => {
    const app = new Hono()
    app.use(secureHeadersMiddleware({ jsonLdHashes: [expectedHash], https: true }))
    app.get('/', (c) => c.html(page, 200, { 'cache-control': 'no-cache' }))
    const home = await app.request('/')
    expect(home.headers.get('content-security-policy')).toContain(`'${expectedHash}'`)
    expect(home.headers.get('strict-transport-security')).toBeTruthy()
    expect(home.headers.get('cache-control')).toBe('no-cache')
    const missing = await app.request('/nowhere')
    expect(missing.status).toBe(404)
    expect(missing.headers.get('x-content-type-options')).toBe('nosniff')
    expect(missing.headers.get('content-security-policy')).toContain("frame-ancestors 'none'")
  })
})

describe('staticHostHeaders', () => {
  /** The `_headers` rules: path → header lines. */
  function rules(text: string): Map<string, string[]> {
    const out = new Map<string, string[]>()
    let current: string[] = []
    for (const line of text.split('\n')) {
      if (!line.trim() || line.startsWith('#')) continue
      if (!line.startsWith(' ')) out.set(line, (current = []))
      else current.push(line.trim())
    }
    return out
  }

  it('writes the security headers for every path, immutable caching for assets, revalidation for HTML', () => {
    const text = staticHostHeaders({ jsonLdHashes: [expectedHash], https: true })
    const parsed = rules(text)
    const all = parsed.get('/*') ?? []
    expect(all).toContain(`Content-Security-Policy: ${securityHeaders({ jsonLdHashes: [expectedHash], https: true })['Content-Security-Policy']}`)
    expect(all).toContain('X-Content-Type-Options: nosniff')
    expect(all.some((line) => line.startsWith('Strict-Transport-Security:'))).toBe(true)
    expect(parsed.get('/assets/*')).toEqual(['Cache-Control: public, max-age=31536000, immutable'])
    for (const html of ['/', '/index.html', '/404.html']) expect(parsed.get(html)).toEqual(['Cache-Control: public, max-age=0, must-revalidate'])
    // Hosts join a header set by two matching rules: Cache-Control must come from one rule only.
    expect(all.some((line) => line.startsWith('Cache-Control'))).toBe(false)
  })
})
