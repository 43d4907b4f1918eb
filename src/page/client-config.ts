import type { ClientPageConfig } from '../../schema/page-config.ts'

/** The id of the JSON data block that carries the config into the page for hydration. */
export const configScriptId = 'page-config'

/**
 * What a prerendered page's data block carries: only what its islands read beside their own props (the form's
 * texts for the shared registration state, the analytics container, the launch). The sections' copy is in the
 * HTML already and in the islands' props where a button or the dialog needs it.
 */
export type IslandsConfig = Pick<ClientPageConfig, 'form'> & {
  launch: Pick<ClientPageConfig['launch'], 'slug'>
  site: Pick<ClientPageConfig['site'], 'analytics'>
  /** The address of the launch's form validator module (src/page/launch-form-validator.ts loads it). */
  formValidator: string
}

function readDataBlock(doc: Document): unknown {
  const text = doc.getElementById(configScriptId)?.textContent
  if (!text) throw new Error(`The page has no #${configScriptId} data block: serve the built dist/ or run npm run dev.`)
  return JSON.parse(text)
}

/** Reads the config the HTML carries; throws when the page was not built by this project's build. */
export function readClientConfig(doc: Document = document): IslandsConfig {
  return readDataBlock(doc) as IslandsConfig
}

/** The whole page's config, which only the dev server writes into its (not prerendered) page. */
export function readWholePageConfig(doc: Document = document): ClientPageConfig {
  return readDataBlock(doc) as ClientPageConfig
}
