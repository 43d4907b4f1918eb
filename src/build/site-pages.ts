import { existsSync, mkdirSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import type { PageConfig, ImageManifest } from '../../schema/page-config.ts'
import { checkDetailsPagePath, registeredPagePath } from '../../schema/registration-contract.ts'
import { privacyPagePath } from '../../schema/privacy.ts'
import { cspHashesOf, staticHostHeaders, styleHashesOf } from '../server/site/security-headers.ts'
import { phasePagesDir } from '../server/site/launch-version.ts'
import type { BuildSettings } from '../server/env.ts'
import { toClientConfig } from './client-config.ts'
import { fillTemplate, type PageKind } from './head.ts'
import { linkOrCopyFile, listFiles, type PageCode } from './page-code.ts'
import type { PhaseBuild } from './phase-pages.ts'

// The pages of one launch's build (src/cli/build.ts buildSite): every phase's prerendered pages, where they are
// written, and the files a static host needs beside them (_headers, robots.txt, sitemap.xml).

/** The prerendered pages of a launch: file, kind, and the path it is rendered at. */
export const sitePages: ReadonlyArray<readonly [string, PageKind, string]> = [
  ['index.html', 'home', '/'],
  ['404.html', 'not-found', '/404'],
  // Where a registration sent without JavaScript lands (the function redirects there).
  [registeredPagePath, 'registered', registeredPagePath],
  [checkDetailsPagePath, 'check-details', checkDetailsPagePath],
  ['privacy.html', 'privacy', privacyPagePath],
]

/** The page code's prerenderer module (src/build/prerender.tsx as built). */
export type PrerenderModule = typeof import('../build/prerender.tsx')

/** The sitemap of a one-page site. */
export function sitemapXml(canonicalUrl: string): string {
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">',
    `  <url><loc>${canonicalUrl}</loc><changefreq>weekly</changefreq></url>`,
    '</urlset>',
    '',
  ].join('\n')
}

/** robots.txt that allows everything and names the sitemap. */
export function robotsTxt(canonicalUrl: string): string {
  return `User-agent: *\nAllow: /\n\nSitemap: ${new URL('sitemap.xml', canonicalUrl).href}\n`
}

/**
 * Puts every file of `fromDir` at the same place under `toDir`: hard links (the page code's files never change), else
 * copies.
 */
export function linkTree(fromDir: string, toDir: string): void {
  for (const file of listFiles(fromDir)) {
    const target = path.join(toDir, path.relative(fromDir, file))
    mkdirSync(path.dirname(target), { recursive: true })
    linkOrCopyFile(file, target)
  }
}

// The prerenderer of a page code, loaded once per process; launches render one at a time (the form's validator is
// set on the shared module before each launch's pages).
const prerenderers = new Map<string, Promise<PrerenderModule>>()
let prerendering: Promise<unknown> = Promise.resolve()

/** The prerenderer module of a page code, loaded once per process. */
export function prerendererOf(code: PageCode): Promise<PrerenderModule> {
  let loaded = prerenderers.get(code.ssrEntry)
  if (!loaded) {
    loaded = import(pathToFileURL(code.ssrEntry).href) as Promise<PrerenderModule>
    prerenderers.set(code.ssrEntry, loaded)
  }
  return loaded
}

/** Each phase's pages (sitePages' order), prerendered with that phase's form validator; one launch at a time. */
export async function renderPhasePages(
  code: PageCode,
  phases: PhaseBuild[],
  phaseValidators: Array<{ code: string; file: string }>,
  imageVariants: ImageManifest,
): Promise<string[][]> {
  const prerenderer = await prerendererOf(code)
  const rendered = prerendering.then(async () => {
    const byPhase: string[][] = []
    for (const [index, phase] of phases.entries()) {
      const validator = phaseValidators[index]!
      await prerenderer.setFormValidator(
        (await import(`data:text/javascript;base64,${Buffer.from(validator.code).toString('base64')}`)) as Parameters<
          PrerenderModule['setFormValidator']
        >[0],
      )
      // The phase's validator is not among the boot's preloads (src/build/boot.ts): it loads with the form's code
      // after the page's load (src/form/LazyRegistrationForm.tsx), fetched beside the form's larger chunks, which
      // arrive after it anyway, so the page's first load holds only what runs before the visitor acts (issue 46: at
      // most 75 KiB).
      const clientConfig = toClientConfig(phase.config, imageVariants)
      const html: string[] = []
      for (const [, kind, pagePath] of sitePages) {
        html.push(
          fillTemplate(
            code.template,
            phase.config,
            kind,
            { appHtml: await prerenderer.renderPath(clientConfig, pagePath), formValidator: validator.file },
            imageVariants,
          ),
        )
      }
      byPhase.push(html)
    }
    return byPhase
  })
  prerendering = rendered.catch(() => {})
  return rendered
}

/** The index of the phase in force at the build's moment (what a static host serves until the next publish). */
export function liveIndex(phases: PhaseBuild[]): number {
  return phases.findIndex((phase) => phase.live)
}

/** Writes the phase in force at the top and each named phase in .phases/<name>/; the files written. */
export function writePhasePages(distDir: string, phases: PhaseBuild[], byPhase: string[][]): string[] {
  const written: string[] = []
  const writePages = (dir: string, pagesHtml: string[]) => {
    mkdirSync(dir, { recursive: true })
    sitePages.forEach(([file], index) => {
      writeFileSync(path.join(dir, file), pagesHtml[index]!)
      written.push(path.join(dir, file))
    })
  }
  writePages(distDir, byPhase[liveIndex(phases)]!)
  phases.forEach((phase, index) => {
    if (phase.name !== undefined) writePages(path.join(distDir, phasePagesDir, phase.name), byPhase[index]!)
  })
  return written
}

/** _headers (hashes from the home page), robots.txt unless public/ has one, and sitemap.xml; the files to compress. */
export async function writeStaticHostFiles(
  distDir: string,
  site: { config: PageConfig; publicDir: string; home: string; settings: BuildSettings },
): Promise<string[]> {
  const { config, publicDir, home, settings } = site
  const written: string[] = []
  const supabaseUrl = settings.supabaseUrl
  const headerOptions = {
    jsonLdHashes: await cspHashesOf(home),
    styleHashes: await styleHashesOf(home),
    https: true,
    tagManager: config.site.analytics !== undefined,
    ...(supabaseUrl ? { supabaseUrl } : {}),
  }
  writeFileSync(path.join(distDir, '_headers'), staticHostHeaders(headerOptions))
  if (!existsSync(path.join(publicDir, 'robots.txt'))) {
    writeFileSync(path.join(distDir, 'robots.txt'), robotsTxt(config.seo.canonicalUrl))
    written.push(path.join(distDir, 'robots.txt'))
  }
  writeFileSync(path.join(distDir, 'sitemap.xml'), sitemapXml(config.seo.canonicalUrl))
  written.push(path.join(distDir, 'sitemap.xml'))
  return written
}
