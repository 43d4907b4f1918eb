import tailwindcss from '@tailwindcss/vite'
import react from '@vitejs/plugin-react'
import { fileURLToPath } from 'node:url'
import type { InlineConfig, Plugin } from 'vite'
import type { PageConfig } from '../../schema/page-config.ts'
import { publicDirFor } from '../config/load-page-config.ts'
import { pageConfigPlugin } from './vite-plugin-page-config.ts'

/**
 * react-jsonschema-form's import of markdown-to-jsx, answered by a stand-in (src/form/markdown-on-demand.tsx) that
 * loads the parser only when a field asks for Markdown: ~26 KiB (brotli) less in the form's chunk.
 */
function markdownOnDemand(): Plugin {
  const standIn = fileURLToPath(new URL('../form/markdown-on-demand.tsx', import.meta.url))
  return {
    name: 'markdown-on-demand',
    enforce: 'pre',
    resolveId(source, importer) {
      if (source === 'markdown-to-jsx/react' && importer?.includes('/@rjsf/core/')) return standIn
      return undefined
    },
  }
}

type ViteConfigOptions = {
  /** The page.config.json the site is built from; its folder's public/ is copied into the site. */
  configFile: string
  /** The config, already loaded and checked (a build); without it the plugin loads the file, and again on every change (dev). */
  config?: PageConfig
  /** Where a client build writes. */
  outDir?: string
}

/** Vite's settings for this site: one source for the dev server (vite.config.ts) and the build (src/cli/build.ts). */
export function createViteConfig({ configFile, config, outDir = 'dist' }: ViteConfigOptions): InlineConfig {
  return {
    configFile: false,
    plugins: [markdownOnDemand(), react(), tailwindcss(), pageConfigPlugin(configFile, config)],
    publicDir: publicDirFor(configFile),
    // The form validator generated from the config imports this Ajv helper; listing it spares the dev server a
    // reload when it first discovers it.
    optimizeDeps: { include: ['ajv/dist/runtime/ucs2length.js'] },
    build: {
      outDir,
      emptyOutDir: true,
      // Every browser that runs this page's module scripts supports modulepreload natively.
      modulePreload: { polyfill: false },
    },
  }
}
