import { fileURLToPath } from 'node:url'
import path from 'node:path'
import type { InlineConfig, Plugin } from 'vite'

const clientDir = fileURLToPath(new URL('../studio/client', import.meta.url))

/** The folder of a build's output that holds the studio's browser part: <DIST_DIR>/_studio/ (no launch is named so). */
export const studioDistName = '_studio'

/**
 * The registration form imports `virtual:form-validator`, which a launch's build compiles from its config. The
 * studio's preview renders drafts, so there it is a module that loads the draft's validator from the server.
 */
function draftFormValidator(): Plugin {
  const standIn = path.join(clientDir, 'preview/draft-form-validator.ts')
  return {
    name: 'studio-draft-form-validator',
    enforce: 'pre',
    resolveId: (source) => (source === 'virtual:form-validator' ? standIn : undefined),
  }
}

/**
 * Vite's settings for the studio's browser part: the app shell (index.html) and the preview frame (preview.html),
 * their code under /studio/assets/ (where the server serves them). Built apart from every launch, so none of the
 * studio's modules can end up in a launch's bundle.
 */
export async function studioViteConfig(outDir: string): Promise<InlineConfig> {
  // Loaded here, not at the top: they load React, which picks its development or production build by NODE_ENV when
  // first loaded, and `npm run build` imports this file before Vite has set NODE_ENV for the launches' prerender.
  const [{ default: react }, { default: tailwindcss }, { plainMarkdownPlugin }] = await Promise.all([
    import('@vitejs/plugin-react'),
    import('@tailwindcss/vite'),
    import('./plain-markdown-plugin.ts'),
  ])
  return {
    configFile: false,
    root: clientDir,
    base: '/studio/',
    publicDir: false,
    logLevel: 'warn',
    plugins: [draftFormValidator(), plainMarkdownPlugin, react(), tailwindcss()],
    build: {
      outDir,
      emptyOutDir: true,
      assetsDir: 'assets',
      modulePreload: { polyfill: false },
      // An editor for people at work (CodeMirror, the schema, RJSF), not a visitor's page: one larger chunk is fine.
      chunkSizeWarningLimit: 1500,
      rolldownOptions: {
        input: { index: path.join(clientDir, 'index.html'), preview: path.join(clientDir, 'preview.html') },
      },
    },
  }
}

/** Builds the studio's browser part into `outDir` (index.html, preview.html, assets/). */
export async function buildStudioClient(outDir: string): Promise<void> {
  const { build } = await import('vite')
  await build(await studioViteConfig(outDir))
}
