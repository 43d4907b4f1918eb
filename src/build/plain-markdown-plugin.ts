import path from 'node:path'

const markdownShim = path.resolve(import.meta.dirname, '../studio/client/editing/plain-markdown.ts')

/**
 * codemirror-json-schema renders descriptions as Markdown with markdown-it and the Shiki highlighter (a WebAssembly
 * regex engine and grammars, started the moment it loads). The schema's descriptions are plain sentences, so its
 * one Markdown module is swapped for a small escaper: the studio's editor loads hundreds of KiB less. Works for Vite
 * and for its dependency optimizer (Rolldown), which both resolve through this hook.
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
