import type { ClientPageConfig, ImageManifest, PageConfig } from '../../schema/page-config.ts'
import { configScriptId } from '../page/client-config.ts'

/**
 * What the browser needs of the config: not the head tags (prerendered into the HTML) nor the form's schema,
 * layout and messages (they travel with the form's lazily loaded code), and of the launch only its slug (never the
 * notification address or the other origins).
 */
export function toClientConfig(config: PageConfig, imageVariants: ImageManifest = {}): ClientPageConfig {
  const { seo: _seo, form, launch, ...rest } = config
  return {
    ...rest,
    launch: { slug: launch.slug },
    form: { consent: form.consent, toasts: form.toasts, ...(form.noScript ? { noScript: form.noScript } : {}) },
    imageVariants,
  }
}

/**
 * The config as a JSON data block (never executed, so a Content-Security-Policy does not need to allow it);
 * in the HTML, gzip shares its strings with the prerendered copy, so it costs little to send.
 */
export function clientConfigScript(config: PageConfig, imageVariants: ImageManifest = {}): string {
  const json = JSON.stringify(toClientConfig(config, imageVariants)).replace(/</g, '\\u003c')
  return `<script type="application/json" id="${configScriptId}">${json}</script>`
}
