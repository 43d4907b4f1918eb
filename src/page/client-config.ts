import type { ClientPageConfig } from '../../schema/page-config.ts'

/** The id of the JSON data block that carries the config into the page for hydration. */
export const configScriptId = 'page-config'

/** Reads the config the HTML carries; throws when the page was not built by this project's build. */
export function readClientConfig(doc: Document = document): ClientPageConfig {
  const text = doc.getElementById(configScriptId)?.textContent
  if (!text) throw new Error(`The page has no #${configScriptId} data block: serve the built dist/ or run npm run dev.`)
  return JSON.parse(text) as ClientPageConfig
}
