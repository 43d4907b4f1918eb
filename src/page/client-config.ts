import type { ClientPageConfig, PageConfig } from '../../schema/page-config.ts'
import type { ImageManifest } from './image-variants.ts'

/** The id of the JSON data block that carries the config into the page for hydration. */
export const configScriptId = 'page-config'

/**
 * What the browser needs of the config: not the head tags (prerendered into the HTML) nor the form's schema,
 * layout and messages (they travel with the form's lazily loaded code).
 */
export function toClientConfig(config: PageConfig, imageVariants: ImageManifest = {}): ClientPageConfig {
  const { seo: _seo, form, ...rest } = config
  return { ...rest, form: { consent: form.consent, toasts: form.toasts }, imageVariants }
}

/**
 * The config as a JSON data block (never executed, so a Content-Security-Policy does not need to allow it);
 * in the HTML, gzip shares its strings with the prerendered copy, so it costs little to send.
 */
export function clientConfigScript(config: PageConfig, imageVariants: ImageManifest = {}): string {
  const json = JSON.stringify(toClientConfig(config, imageVariants)).replace(/</g, '\\u003c')
  return `<script type="application/json" id="${configScriptId}">${json}</script>`
}

/** Reads the config the HTML carries; throws when the page was not built by this project's build. */
export function readClientConfig(doc: Document = document): ClientPageConfig {
  const text = doc.getElementById(configScriptId)?.textContent
  if (!text) throw new Error(`The page has no #${configScriptId} data block: serve the built dist/ or run npm run dev.`)
  return JSON.parse(text) as ClientPageConfig
}
