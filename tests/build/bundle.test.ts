import { readdirSync, readFileSync, statSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import type { PageConfig } from '../../schema/page-config.ts'
import { compileHint } from '../../src/build/vite-config.ts'
import { measureBundle } from '../../bench/bundle.ts'

// The default launch's site, which npm test built into dist/<slug>/ (tests/run.ts builds before the tests run).
const distDir = path.resolve(
  process.env.DIST_DIR || 'dist',
  (JSON.parse(readFileSync('page.config.json', 'utf8')) as { launch: { slug: string } }).launch.slug,
)
const assets = readdirSync(path.join(distDir, 'assets')).filter((name) => name.endsWith('.js'))
const indexHtml = readFileSync(path.join(distDir, 'index.html'), 'utf8')
const config = JSON.parse(readFileSync('page.config.json', 'utf8')) as PageConfig
// The inline starter module (src/build/boot.ts), the boot file it imports, and the entry that imports.
const starterCode = /<script type="module">([\s\S]*?)<\/script>/.exec(indexHtml)?.[1] ?? ''
const bootFile = /import\("\/assets\/(boot-[\w-]+\.js)"\)/.exec(starterCode)?.[1] ?? ''
const bootCode = bootFile ? readFileSync(path.join(distDir, 'assets', bootFile), 'utf8') : ''
const entry = /entry="\/assets\/([^"]+)"/.exec(bootCode)?.[1] ?? ''
// The chunks it evaluates before the entry, each in a task of its own (React DOM's).
const first = (JSON.parse(/first=(\[[^\]]*\])/.exec(bootCode)?.[1] ?? '[]') as string[]).map((href) =>
  href.replace('/assets/', ''),
)

describe('the built bundle', () => {
  it('compiles no code at run time: no Function constructor anywhere (CSP without unsafe-eval)', () => {
    expect(assets.length).toBeGreaterThan(0)
    for (const name of assets) {
      const code = readFileSync(path.join(distDir, 'assets', name), 'utf8')
      expect(code, name).not.toMatch(/new Function\s*\(|[^.\w$]Function\s*\(/)
    }
  })

  it('starts the app from an inline module after the load event and the first contentful paint, keeping the form, dialog, toasts and supabase-js out of it', () => {
    expect(starterCode).toContain('addEventListener("load"')
    expect(starterCode).toContain('"first-contentful-paint"')
    expect(bootFile).toMatch(/^boot-/)
    // The boot's code is a file: the HTML holds only the starter (issue 46: every byte inline is one of the HTML's).
    expect(starterCode.length).toBeLessThan(600)
    expect(entry).toMatch(/^index-.+\.js$/)
    const code = readFileSync(path.join(distDir, 'assets', entry), 'utf8')
    expect(code).not.toContain('ReactModal__')
    expect(code).not.toContain('functions/v1')
    expect(code).not.toMatch(/must NOT have more than/) // Ajv messages travel with the form chunk only
    // Nothing of the app is fetched before the first paint: no script file, no modulepreload in the HTML.
    expect(indexHtml).not.toMatch(/<script[^>]*\ssrc=/)
    expect(indexHtml).not.toMatch(/rel="modulepreload"/)
  })

  it('evaluates React DOM in a task of its own: its chunk is imported before the entry, and awaits a new task after it', () => {
    expect(first).toHaveLength(1)
    const reactDomChunk = readFileSync(path.join(distDir, 'assets', first[0]!), 'utf8')
    const code = readFileSync(path.join(distDir, 'assets', entry), 'utf8')
    // React DOM's client module is in its own chunk, and none of the app's island code; the entry has the app, not
    // React DOM.
    const reactDom = reactDomChunk.lastIndexOf('__REACT_DEVTOOLS_GLOBAL_HOOK__')
    expect(reactDom).toBeGreaterThan(0)
    expect(reactDomChunk).not.toContain('data-island')
    expect(code).toContain('data-island')
    expect(code).not.toContain('__REACT_DEVTOOLS_GLOBAL_HOOK__')
    // src/page/react-dom-first.ts: a top-level await of a new task after React DOM's module, in the same chunk.
    expect(reactDomChunk.slice(reactDom)).toMatch(/[;}]await [\w$]+\(\);/)
    // The boot imports it first, then the entry, each after its file has arrived.
    expect(bootCode).toMatch(/first\.reduce\(.*\)\.then\(\(\)=>run\(entry\)\)/)
  })

  it('asks V8 to compile the code the load runs as it streams in: the hint tops every chunk but the ones loaded on demand', () => {
    const code = (name: string) => readFileSync(path.join(distDir, 'assets', name), 'utf8')
    const hinted = (name: string) => code(name).startsWith(`${compileHint}\n`)
    // What runs as the page loads: the entry (React DOM), the form's chunk (RJSF), the dialog's (react-modal).
    const atLoad = [
      entry,
      ...assets.filter((name) => name.startsWith('RegistrationForm-') || name.startsWith('RegistrationDialog-')),
    ]
    expect(atLoad).toHaveLength(3)
    for (const name of atLoad) expect(hinted(name), name).toBe(true)
    // Loaded on demand: supabase-js at the first submit, the Markdown parser for a field that asks for it.
    const onDemand = assets.filter((name) => code(name).includes('supabase-js') || code(name).includes('forceBlock'))
    expect(onDemand).toHaveLength(2)
    for (const name of onDemand) expect(hinted(name), name).toBe(false)
  })

  it("restyles nothing of the page when the toasts' stylesheet arrives: every rule of it is on the toasts' container", () => {
    const sheets = readdirSync(path.join(distDir, 'assets')).filter((name) => name.endsWith('.css'))
    const toastSheet = sheets
      .map((name) => readFileSync(path.join(distDir, 'assets', name), 'utf8'))
      .find((css) => css.includes('.Toastify__toast'))
    expect(toastSheet, 'no stylesheet with the toasts in dist/assets').toBeTruthy()
    // A rule for :root, html or body arriving after the page makes the browser restyle every element of it.
    expect(toastSheet).not.toMatch(/(^|[},\s]):root\b|(^|[},])\s*(html|body)\b/)
    expect(toastSheet).toContain(':where(.Toastify){--toastify-')
  })

  it('carries none of the editor: no CodeMirror, no schema completion, no editor page code', () => {
    const files = readdirSync(distDir, { recursive: true, encoding: 'utf8' }).filter((name) =>
      /\.(js|css|html)$/.test(name),
    )
    expect(files.length).toBeGreaterThan(0)
    for (const name of files) {
      const code = readFileSync(path.join(distDir, name), 'utf8')
      expect(code, name).not.toMatch(
        /@codemirror|codemirror-json-schema|\bcm-editor\b|\bcm-content\b|json-schema-library|editor-token/,
      )
    }
  })

  it('ships no code of a static section: its markup is in the HTML, its component in no chunk', () => {
    // A class string only each section's component writes: found in the prerendered page, so the check can fail.
    for (const file of ['src/sections/DriveTimes.tsx', 'src/sections/Highlights.tsx', 'src/sections/Checklist.tsx']) {
      const source = readFileSync(file, 'utf8')
      const marker = [...source.matchAll(/className="([^"]{30,})"/g)]
        .map((m) => m[1] as string)
        .find((c) => indexHtml.includes(`class="${c}"`))
      expect(marker, `${file}: no class string of it in dist/index.html`).toBeTruthy()
      for (const name of assets)
        expect(readFileSync(path.join(distDir, 'assets', name), 'utf8'), `${name} holds ${file}`).not.toContain(marker)
    }
  })

  it('hydrates islands only: the client entry holds no section registry, header or footer', () => {
    const code = readFileSync(path.join(distDir, 'assets', entry), 'utf8')
    expect(code).toContain('data-island')
    for (const marker of ['section-heading', 'aria-labelledby', 'divide-y']) expect(code).not.toContain(marker)
  })

  it("keeps markdown-to-jsx out of the form's chunk: it loads only for a field that asks for Markdown", () => {
    const form = assets.find((name) => name.startsWith('RegistrationForm-'))
    expect(form).toBeTruthy()
    // An option name of markdown-to-jsx's parser, which RJSF's own code does not use.
    expect(readFileSync(path.join(distDir, 'assets', form as string), 'utf8')).not.toContain('forceBlock')
    expect(assets.some((name) => readFileSync(path.join(distDir, 'assets', name), 'utf8').includes('forceBlock'))).toBe(
      true,
    )
  })

  it('loads at most 75 KiB of JavaScript (gzip) before the visitor acts: the boot file, the entry and its preloads', () => {
    const { initialJs, totals } = measureBundle(distDir)
    const files = initialJs.map((asset) => asset.file)
    expect(files).toContain(`assets/${bootFile}`)
    expect(files).toContain(`assets/${entry}`)
    expect(totals.initialJsGzip).toBeLessThanOrEqual(75 * 1024)
  })

  it("fits the home page into a new connection's first round trip: 14,600 bytes with about 1 KB of headers", () => {
    // 10 TCP segments of 1,460 bytes (Lighthouse's simulation too): a byte more costs a whole round trip before the
    // first paint (150 ms on Lighthouse's phone). The Node server's headers (the CSP and the rest) are about 950 bytes.
    expect(statSync(path.join(distDir, 'index.html.br')).size).toBeLessThanOrEqual(13_600)
  })

  it('inlines the stylesheet: no render-blocking request before the first paint', () => {
    expect(indexHtml).not.toMatch(/<link rel="stylesheet"/)
    expect(indexHtml).toMatch(/<style>[^<]*tailwindcss/)
  })

  it('inlines no script but the JSON-LD, the boot module and the config data block', () => {
    const inline = [...indexHtml.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)].filter(([, , body]) => body?.trim())
    expect(inline.map(([, attributes]) => attributes?.trim())).toEqual([
      'type="application/ld+json"',
      'type="module"',
      'type="application/json" id="page-config"',
    ])
  })

  it("leaves the form's validator out of the boot's preloads: it loads with the form's code, after the page's load", () => {
    expect(bootCode).toMatch(/\/assets\/react-dom-[\w-]+\.js/)
    expect(bootCode).not.toMatch(/form-validator-[0-9a-f]{10}\.js/)
  })

  it("loads no schema's words before the visitor acts: the config's schema stays with the build and the editor", () => {
    // A page module that imports a value from a schema module (not its own small module of defaults) drags the whole
    // schema, descriptions and all, into the first load: issue 46's 75 KiB went that way once.
    const first = [...new Set(bootCode.match(/\/assets\/[\w.-]+\.js/g) ?? [])]
    expect(first.length).toBeGreaterThan(2)
    for (const file of first) {
      const code = readFileSync(path.join(distDir, file), 'utf8')
      expect(code, file).not.toMatch(/description:`|description:"|"description":/)
    }
  })

  it("sends in the data block only what the islands read: no section's copy, no reply e-mail, no notification address", () => {
    const block = /<script type="application\/json" id="page-config">([\s\S]*?)<\/script>/.exec(indexHtml)?.[1]
    const data = JSON.parse(block ?? 'null') as Record<string, unknown>
    expect(Object.keys(data).sort()).toEqual(['form', 'formValidator', 'launch', 'site'])
    expect(data.launch).toEqual({ slug: config.launch.slug })
    // The launch's own validator module (the page code is every launch's): a file of this build.
    expect(data.formValidator).toMatch(/^\/assets\/form-validator-[0-9a-f]{10}\.js$/)
    expect(readFileSync(path.join(distDir, data.formValidator as string), 'utf8')).toContain('export')
    expect(data.form).toEqual({
      consent: config.form.consent,
      toasts: config.form.toasts,
      ...(config.form.noScript ? { noScript: config.form.noScript } : {}),
      privacyLink: { label: config.privacy?.linkLabel, href: '/privacy' },
    })
    // The sections' copy is in the HTML once (prerendered), not a second time in the data block.
    const words = (config.sections.find((section) => section.type === 'hero')?.intro as string).slice(0, 30)
    expect(indexHtml.split(words)).toHaveLength(2)
  })
})
