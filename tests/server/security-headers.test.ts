import { createHash } from 'node:crypto'
import { Hono } from 'hono'
import { describe, expect, it } from 'vitest'
import {
  cspHashesOf,
  secureHeadersMiddleware,
  securityHeaders,
  staticHostHeaders,
  staticImagePolicy,
  styleHashesOf,
} from '../../src/server/site/security-headers.ts'
import { imageContentSecurityPolicy } from '../../src/server/site/static-site.ts'

const jsonLd = '{"@context":"https://schema.org","@type":"RealEstateAgent","name":"Caf\u00e9 \\u003c Homes"}'
const page = `<!doctype html><html><head><title>t</title><script type="application/ld+json">${jsonLd}</script>
<script type="module" crossorigin src="/assets/index-abc.js"></script></head><body><script>alert(1)</script></body></html>`
const expectedHash = `sha256-${createHash('sha256').update(jsonLd, 'utf8').digest('base64')}`

/** The CSP as a map of directive → sources. */
function directives(csp: string): Map<string, string[]> {
  return new Map(
    csp
      .split(';')
      .map((part) => part.trim().split(/\s+/))
      .map(([name, ...sources]) => [name ?? '', sources]),
  )
}

describe('cspHashesOf', () => {
  it('hashes the exact text of each JSON-LD script, and only those', async () => {
    await expect(cspHashesOf(page)).resolves.toEqual([expectedHash])
  })

  it("hashes the build's inline boot module too, but no classic inline script and no data block", async () => {
    const boot = 'addEventListener("load",()=>import("/assets/index-abc.js"),{once:true});'
    const booted = page.replace(
      '<script type="module" crossorigin src="/assets/index-abc.js"></script>',
      () => `<script type="module">${boot}</script>`,
    )
    const withData = booted.replace(
      '</body>',
      '<script type="application/json" id="page-config">{"a":1}</script></body>',
    )
    const bootHash = `sha256-${createHash('sha256').update(boot, 'utf8').digest('base64')}`
    await expect(cspHashesOf(withData)).resolves.toEqual([expectedHash, bootHash])
  })

  it('lists a repeated block once and finds none in a page without JSON-LD', async () => {
    const twice = page.replace('</head>', () => `<script type="application/ld+json">${jsonLd}</script></head>`)
    await expect(cspHashesOf(twice)).resolves.toEqual([expectedHash])
    await expect(cspHashesOf('<!doctype html><title>404</title>')).resolves.toEqual([])
  })
})

describe('styleHashesOf', () => {
  it("hashes the inlined stylesheet, and the CSP allows exactly that style and the origin's", async () => {
    const css = '.a{color:red}'
    const hashes = await styleHashesOf(`<head><style>${css}</style></head><body><p style="x"></p></body>`)
    expect(hashes).toEqual([`sha256-${createHash('sha256').update(css, 'utf8').digest('base64')}`])
    const csp = directives(
      securityHeaders({ jsonLdHashes: [], styleHashes: hashes, https: false })['Content-Security-Policy'] ?? '',
    )
    expect(csp.get('style-src')).toEqual(["'self'", `'${hashes[0]}'`])
  })
})

describe('securityHeaders', () => {
  it('allows scripts from the origin and the JSON-LD hash, never inline code or eval', () => {
    const csp = directives(
      securityHeaders({ jsonLdHashes: [expectedHash], https: false })['Content-Security-Policy'] ?? '',
    )
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
    const csp = securityHeaders({ jsonLdHashes: [], https: true, supabaseUrl: 'https://abc.supabase.co/' })[
      'Content-Security-Policy'
    ]
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
    expect(all).toContain(
      `Content-Security-Policy: ${securityHeaders({ jsonLdHashes: [expectedHash], https: true })['Content-Security-Policy']}`,
    )
    expect(all).toContain('X-Content-Type-Options: nosniff')
    expect(all.some((line) => line.startsWith('Strict-Transport-Security:'))).toBe(true)
    expect(parsed.get('/assets/*')).toEqual(['Cache-Control: public, max-age=31536000, immutable'])
    for (const html of ['/', '/index.html', '/404.html'])
      expect(parsed.get(html)).toEqual(['Cache-Control: public, max-age=0, must-revalidate'])
    // Hosts join a header set by two matching rules: Cache-Control must come from one rule only.
    expect(all.some((line) => line.startsWith('Cache-Control'))).toBe(false)
  })

  /**
   * The `_headers` file read as the hosts read it: a path line at the start of a line, then its indented lines, each
   * `Name: value` or (Cloudflare) `! Name` to detach a header an earlier matching rule set.
   */
  type Rule = { pattern: RegExp; set: [string, string][]; detach: string[] }
  function readRules(text: string): Rule[] {
    const out: Rule[] = []
    for (const line of text.split('\n')) {
      if (!line.trim() || line.startsWith('#')) continue
      if (/^\//.test(line)) {
        const pattern = new RegExp(
          `^${line
            .trim()
            .split('*')
            .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
            .join('.*')}$`,
        )
        out.push({ pattern, set: [], detach: [] })
        continue
      }
      const rule = out.at(-1)
      if (!rule || !/^\s+\S/.test(line)) throw new Error(`not a line either host reads: ${JSON.stringify(line)}`)
      const detach = /^\s+!\s*(\S+)$/.exec(line)
      const header = /^\s+([A-Za-z-]+):\s*(.+)$/.exec(line)
      if (detach) rule.detach.push(detach[1]!)
      else if (header) rule.set.push([header[1]!, header[2]!])
      else throw new Error(`not a header line: ${JSON.stringify(line)}`)
    }
    return out
  }
  /** Cloudflare Pages: matching rules in order; a detach deletes, a header set by an earlier rule is appended to. */
  function cloudflare(rules: Rule[], path: string): Headers {
    const headers = new Headers()
    const set = new Set<string>()
    for (const rule of rules.filter((r) => r.pattern.test(path))) {
      for (const name of rule.detach) headers.delete(name)
      for (const [name, value] of rule.set) {
        if (set.has(name.toLowerCase())) headers.append(name, value)
        else headers.set(name, value)
        set.add(name.toLowerCase())
      }
    }
    return headers
  }
  /** Netlify: lines without a colon skipped; the later matching rule's value of a header wins. */
  function netlify(rules: Rule[], path: string): Headers {
    const values: Record<string, string> = {}
    for (const rule of rules.filter((r) => r.pattern.test(path))) {
      const own: Record<string, string> = {}
      for (const [name, value] of rule.set) own[name] = own[name] === undefined ? value : `${own[name]}, ${value}`
      Object.assign(values, own)
    }
    return new Headers(values)
  }

  it('serves images with the image policy and nosniff on both hosts, as the Node server does, and pages with the page policy', () => {
    const options = { jsonLdHashes: [expectedHash], https: true }
    const rules = readRules(staticHostHeaders(options))
    const site = securityHeaders(options)
    // One policy, in one place for the Node server and the static hosts.
    expect(staticImagePolicy).toBe(imageContentSecurityPolicy)
    const images = [
      '/images/hero.svg',
      '/images/_v/hero-640w-1a2b3c4d.webp',
      '/images/og-image.png',
      '/favicon.svg',
      '/favicon.png',
      '/apple-touch-icon.png',
    ]
    for (const host of [cloudflare, netlify]) {
      for (const image of images) {
        const headers = host(rules, image)
        expect([host.name, image, headers.get('content-security-policy')]).toEqual([
          host.name,
          image,
          "default-src 'none'; style-src 'unsafe-inline'",
        ])
        expect(headers.get('x-content-type-options')).toBe('nosniff')
        expect(headers.get('x-frame-options')).toBe('DENY')
      }
      for (const page of ['/', '/index.html', '/registered.html', '/assets/index-abc.js']) {
        expect([host.name, page, host(rules, page).get('content-security-policy')]).toEqual([
          host.name,
          page,
          site['Content-Security-Policy'],
        ])
      }
      expect(host(rules, '/assets/index-abc.js').get('cache-control')).toBe('public, max-age=31536000, immutable')
    }
  })
})
