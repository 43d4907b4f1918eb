import { noScriptPageDefaults } from '../../schema/no-script-pages.ts'
import type { ImageManifest, PageConfig } from '../../schema/page-config.ts'
import { privacyPageOf, privacyPagePath } from '../../schema/privacy.ts'
import { escapeHtml } from '../server/delivery/escape-html.ts'
import { clientConfigScript, islandsConfigScript } from './client-config.ts'

/** Which prerendered page the head is for. */
export type PageKind = 'home' | 'not-found' | 'registered' | 'check-details' | 'privacy'

/** The JSON-LD script body exactly as written into the page (its CSP hash is taken of this text). */
export function jsonLdText(config: PageConfig): string {
  // "<" as \u003c keeps "</script>" inside a string from ending the element; JSON parsers read it back.
  return JSON.stringify(config.seo.jsonLd).replace(/</g, '\\u003c')
}

function absolute(url: string, base: string): string {
  return new URL(url, base).href
}

/** The <head> tags of a page (title, description, canonical, Open Graph, icons, JSON-LD), as HTML. */
export function renderHeadTags(config: PageConfig, kind: PageKind): string {
  const { seo, site } = config
  const tags: string[] = []
  const meta = (attr: 'name' | 'property', key: string, content: string) =>
    tags.push(`<meta ${attr}="${key}" content="${escapeHtml(content)}" />`)
  if (kind !== 'home') {
    const title = {
      'not-found': config.notFound.title,
      registered: config.form.toasts.success.title,
      'check-details': config.form.noScript?.checkTitle ?? noScriptPageDefaults.checkTitle,
      privacy: privacyPageOf(config).title,
    }[kind]
    tags.push(`<title>${escapeHtml(`${title} | ${site.name}`)}</title>`)
    if (kind === 'privacy')
      tags.push(`<link rel="canonical" href="${escapeHtml(absolute(privacyPagePath, seo.canonicalUrl))}" />`)
    else meta('name', 'robots', 'noindex')
  } else {
    tags.push(`<title>${escapeHtml(seo.title)}</title>`)
    meta('name', 'description', seo.description)
    tags.push(`<link rel="canonical" href="${escapeHtml(seo.canonicalUrl)}" />`)
    meta('property', 'og:type', 'website')
    meta('property', 'og:site_name', site.name)
    meta('property', 'og:locale', site.lang.replace('-', '_'))
    meta('property', 'og:title', seo.title)
    meta('property', 'og:description', seo.description)
    meta('property', 'og:url', seo.canonicalUrl)
    meta('property', 'og:image', absolute(seo.ogImage.src, seo.canonicalUrl))
    meta('property', 'og:image:width', String(seo.ogImage.width))
    meta('property', 'og:image:height', String(seo.ogImage.height))
    meta('property', 'og:image:alt', seo.ogImage.alt)
    meta('name', 'twitter:card', 'summary_large_image')
  }
  if (site.themeColor) meta('name', 'theme-color', site.themeColor)
  tags.push('<link rel="icon" href="/favicon.svg" type="image/svg+xml" />')
  tags.push('<link rel="icon" href="/favicon.png" type="image/png" sizes="32x32" />')
  tags.push('<link rel="apple-touch-icon" href="/apple-touch-icon.png" />')
  if (kind === 'home') tags.push(`<script type="application/ld+json">${jsonLdText(config)}</script>`)
  return tags.join('\n    ')
}

const prerenderedRoot = '<div id="root"><!--app-html-->'

/** A prerendered page's app markup and where its form validator is (the data block names it). */
export type Prerendered = { appHtml: string; formValidator: string }

/**
 * Fills the template's placeholders: language, head tags, the config data block and (prerendered) the app markup.
 * A prerendered page hydrates only its islands and gets their part of the config; without it (the dev server) the
 * browser renders the whole page and gets the whole config.
 */
export function fillTemplate(
  template: string,
  config: PageConfig & { banner?: string },
  kind: PageKind,
  prerendered?: Prerendered,
  imageVariants: ImageManifest = {},
): string {
  const appHtml = prerendered?.appHtml ?? ''
  if (appHtml && !template.includes(prerenderedRoot))
    throw new Error(`index.html must hold the app in ${prerenderedRoot}: the build fills it there.`)
  return (
    template
      .replace('<!--app-lang-->', () => escapeHtml(config.site.lang))
      .replace('<!--app-head-->', () => renderHeadTags(config, kind))
      // The stylesheet defers the rendering of far sections only in prerendered pages (src/styles.css).
      .replace(prerenderedRoot, () => (appHtml ? `<div id="root" data-prerendered>${appHtml}` : prerenderedRoot))
      .replace('<!--app-data-->', () =>
        prerendered
          ? islandsConfigScript(config, prerendered.formValidator)
          : clientConfigScript(config, imageVariants),
      )
  )
}
