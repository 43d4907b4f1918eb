import path from 'node:path'
import type { Plugin, ViteDevServer } from 'vite'
import type { PageConfig } from '../../schema/page-config.ts'
import { compileFormValidatorModule } from '../build/compile-form-validator.ts'

const validatorId = 'virtual:form-validator'
const resolvedValidatorId = `\0${validatorId}`

/**
 * Serves `virtual:form-validator` (what the registration form imports) from the editor's last good config, which
 * lives in memory and may not be saved yet. `formChanged()` is called after that config's form changes, so the
 * next page load compiles the new rules.
 */
export function previewConfigPlugin(currentConfig: () => PageConfig | undefined): Plugin & { formChanged: () => void } {
  let server: ViteDevServer | undefined
  return {
    name: 'editor-preview-config',
    configureServer(devServer) {
      server = devServer
    },
    resolveId(id) {
      return id === validatorId ? resolvedValidatorId : undefined
    },
    load(id) {
      if (id !== resolvedValidatorId) return undefined
      const config = currentConfig()
      if (!config) throw new Error('The page config has problems: the preview waits for a good one.')
      return compileFormValidatorModule(config.form)
    },
    formChanged() {
      const module = server?.moduleGraph.getModuleById(resolvedValidatorId)
      if (module) server?.moduleGraph.invalidateModule(module)
    },
  }
}

const markdownShim = path.resolve(import.meta.dirname, '../studio/client/editing/plain-markdown.ts')

/**
 * codemirror-json-schema renders descriptions as Markdown with markdown-it and the Shiki highlighter (a WebAssembly
 * regex engine and grammars, started the moment it loads). The schema's descriptions are plain sentences, so its
 * one Markdown module is swapped for a small escaper: the editor loads hundreds of KiB less. Works for Vite and for
 * its dependency optimizer (Rolldown), which both resolve through this hook.
 */
export const plainMarkdownPlugin = {
  name: 'editor-plain-markdown',
  // Before Vite's own resolver, which would otherwise settle the relative import first.
  enforce: 'pre' as const,
  resolveId(source: string, importer: string | undefined) {
    if (importer && /[\\/]codemirror-json-schema[\\/]/.test(importer) && /(^|\/)utils\/markdown(\.js)?$/.test(source)) {
      return markdownShim
    }
    return undefined
  },
}
