import tailwindcss from '@tailwindcss/vite'
import react from '@vitejs/plugin-react'
import { fileURLToPath } from 'node:url'
import type { InlineConfig, Plugin } from 'vite'
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

/**
 * react-toastify's stylesheet with its defaults set on its own container instead of `:root`. The toasts' code and
 * this stylesheet load after the page, and a rule for `:root` arriving then makes the browser restyle every element
 * of the long page (custom properties inherit): on a phone a task of 45-60 ms. Every toast is inside the container
 * (`section.Toastify`); `:where()` keeps the defaults below the site's own `.Toastify` values (src/styles.css).
 */
function toastStylesOnTheirContainer(): Plugin {
  return {
    name: 'toast-styles-on-their-container',
    enforce: 'pre',
    transform(code, id) {
      if (!id.endsWith('/react-toastify/dist/ReactToastify.css')) return undefined
      return { code: code.replace(/^:root(?=\s*\{)/m, ':where(.Toastify)'), map: null }
    },
  }
}

/**
 * The packages loaded only on demand: supabase-js at the first submit, the Markdown parser for a field that asks for
 * it.
 */
const packagesLoadedOnDemand = ['@supabase/', 'markdown-to-jsx/']

/**
 * The comment that asks V8 to compile every function of a script as it streams in (Chrome 136's explicit compile
 * hints).
 */
export const compileHint = '//# allFunctionsCalledOnLoad'

/**
 * V8's explicit compile hint at the top of each chunk whose code runs as the page loads: all but the chunks of the
 * packages loaded on demand, whose functions mostly never run. V8 otherwise compiles a function on the main thread
 * the first time it is called; with the hint it compiles the whole file on a background thread as it streams in. On
 * the calibrated phone the lazy compiles were about 400 ms of the main thread's time (inside the entry's evaluation,
 * hydration, the form's first render and the dialog's opening), 25 ms with the hint. Added to each finished chunk,
 * after minification (which would drop the comment) and after Vite's own additions: it counts only as the first line.
 * The file names' hashes are of the code before it, which is the same code.
 */
function compileHintsForLoadCode(): Plugin {
  const loadedOnDemand = (id: string) => packagesLoadedOnDemand.some((name) => id.includes(`/node_modules/${name}`))
  return {
    name: 'compile-hints-for-load-code',
    apply: 'build',
    enforce: 'post',
    generateBundle: {
      order: 'post',
      handler(_options, bundle) {
        for (const chunk of Object.values(bundle)) {
          if (chunk.type !== 'chunk' || chunk.moduleIds.some(loadedOnDemand)) continue
          chunk.code = `${compileHint}\n${chunk.code}`
        }
      },
    },
  }
}

/** The name of the page code's chunk with React DOM in it (`/assets/<name>-<hash>.js`). */
export const reactDomChunkName = 'react-dom'

/**
 * The registration form's `virtual:form-validator` in the page code every launch shares (src/build/page-code.ts):
 * in the browser a module that loads the launch's own validator file, named in the page's data block; in the
 * prerenderer one the prerender fills with the launch's validator before it renders.
 */
function launchFormValidator(): Plugin {
  const browser = fileURLToPath(new URL('../page/launch-form-validator.ts', import.meta.url))
  const server = fileURLToPath(new URL('./ssr-form-validator.ts', import.meta.url))
  return {
    name: 'launch-form-validator',
    enforce: 'pre',
    resolveId(source, _importer, options) {
      if (source !== 'virtual:form-validator') return undefined
      return options?.ssr ? server : browser
    },
  }
}

/**
 * Vite's settings for the page code every launch shares (src/build/page-code.ts): no config, no public/ (each
 * launch's build adds its own), React's production build whatever NODE_ENV the building process has.
 */
export function createPageCodeViteConfig(root: string): InlineConfig {
  return {
    configFile: false,
    root,
    plugins: [
      markdownOnDemand(),
      launchFormValidator(),
      toastStylesOnTheirContainer(),
      compileHintsForLoadCode(),
      react(),
      tailwindcss(),
    ],
    publicDir: false,
    mode: 'production',
    define: { 'process.env.NODE_ENV': JSON.stringify('production') },
    build: {
      emptyOutDir: true,
      // Every browser that runs this page's module scripts supports modulepreload natively.
      modulePreload: { polyfill: false },
      rolldownOptions: {
        output: {
          // React DOM (and src/page/react-dom-first.ts, which runs its module) in a chunk of its own: the boot
          // evaluates it in a task before the app's entry (see bootAfterLoad).
          codeSplitting: {
            groups: [
              {
                name: reactDomChunkName,
                test: /[\\/]node_modules[\\/](react-dom|scheduler)[\\/]|[\\/]src[\\/]page[\\/]react-dom-first\.ts$/,
              },
            ],
          },
        },
      },
    },
  }
}

/**
 * Vite's settings for the dev server (vite.config.ts): the config at `configFile`, its form validator compiled on each
 * load.
 */
export function createViteConfig(configFile: string): InlineConfig {
  return {
    configFile: false,
    plugins: [markdownOnDemand(), toastStylesOnTheirContainer(), react(), tailwindcss(), pageConfigPlugin(configFile)],
    publicDir: publicDirFor(configFile),
    // The form validator generated from the config imports this Ajv helper; listing it spares the dev server a
    // reload when it first discovers it.
    optimizeDeps: { include: ['ajv/dist/runtime/ucs2length.js'] },
  }
}
