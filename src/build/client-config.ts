import type { ClientPageConfig, ImageManifest, PageConfig } from '../../schema/page-config.ts'
import { privacyPageOf, privacyPagePath } from '../../schema/privacy.ts'
import { configScriptId, type IslandsConfig } from '../page/client-config.ts'

/**
 * What the browser needs of the config: not the head tags (prerendered into the HTML) nor the form's schema,
 * layout and messages (they travel with the form's lazily loaded code), and of the launch only its slug (never the
 * notification address or the other origins).
 */
export function toClientConfig(
  config: PageConfig & { banner?: string },
  imageVariants: ImageManifest = {},
): ClientPageConfig {
  // Never the phases: a page is built for one phase (schema/phase-apply.ts), and the others' words are not for it.
  // Never the documents: a document has no public address, and the page has no business naming its file.
  // Never the worksheets' words: they are the realtors' page's and e-mails', not the launch page's.
  const {
    seo: _seo,
    form,
    launch,
    privacy: _privacy,
    phases: _phases,
    documents: _documents,
    worksheets: _worksheets,
    ...rest
  } = config
  const privacy = privacyPageOf(config)
  return {
    ...rest,
    launch: { slug: launch.slug, ...(launch.countVisits === false ? { countVisits: false } : {}) },
    form: {
      consent: form.consent,
      toasts: form.toasts,
      ...(form.noScript ? { noScript: form.noScript } : {}),
      privacyLink: { label: privacy.linkLabel, href: privacyPagePath },
    },
    privacy,
    imageVariants,
  }
}

/**
 * What a prerendered page's islands read from its data block (src/page/client-config.ts). The rest of the config
 * (the sections' copy, header, footer, the reply e-mail) is in the HTML or stays on the server: ~13 KB of JSON
 * less in every page, which keeps the home page's HTML inside the first round trip of a new connection.
 */
export function toIslandsConfig(config: PageConfig, formValidator: string): IslandsConfig {
  const { form, launch, site } = toClientConfig(config)
  return {
    form,
    launch: { slug: launch.slug },
    site: site.analytics ? { analytics: site.analytics } : {},
    formValidator,
  }
}

function dataBlock(data: unknown): string {
  // "<" as \u003c keeps "</script>" inside a string from ending the element; JSON parsers read it back.
  return `<script type="application/json" id="${configScriptId}">${JSON.stringify(data).replace(/</g, '\\u003c')}</script>`
}

/**
 * The whole config as a JSON data block (never executed, so a Content-Security-Policy does not need to allow
 * it), for pages the browser renders whole: the dev server's and the editor's preview.
 */
export function clientConfigScript(
  config: PageConfig & { banner?: string },
  imageVariants: ImageManifest = {},
): string {
  return dataBlock(toClientConfig(config, imageVariants))
}

/**
 * The data block of a prerendered page: only what its islands read (`toIslandsConfig`), and where its form validator
 * is.
 */
export function islandsConfigScript(config: PageConfig, formValidator: string): string {
  return dataBlock(toIslandsConfig(config, formValidator))
}
