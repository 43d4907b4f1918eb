import { readFile } from 'node:fs/promises'
import path from 'node:path'

/**
 * The Node server's reader of launch documents (page.config.json `documents`): each file from its launch's folder
 * (where
 * page.config.json is), never from public/ or dist/, so a document has no address of its own. A path that would leave
 * the folder, or a file that cannot be read, is undefined (its link answers 404 and the log says why).
 */
export function createDocumentFiles(
  configFileOf: (launch: string) => string | undefined,
): (launch: string, file: string) => Promise<Uint8Array | undefined> {
  return async (launch, file) => {
    // The launch's folder is where its page.config.json is.
    const configFile = configFileOf(launch)
    if (configFile === undefined) return undefined
    const folder = path.dirname(configFile)
    const full = path.resolve(folder, file)
    if (!full.startsWith(path.resolve(folder) + path.sep)) return undefined
    try {
      return new Uint8Array(await readFile(full))
    } catch {
      return undefined
    }
  }
}
