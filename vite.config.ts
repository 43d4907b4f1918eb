import { defineConfig } from 'vite'
import { createViteConfig } from './src/build/vite-config.ts'
import { resolvePageConfigPath } from './src/config/load-page-config.ts'

// `npm run dev`: the page config is PAGE_CONFIG or ./page.config.json, reloaded whenever it changes.
// (`npm run build` does not read this file: src/cli/build.ts passes the config it has loaded.)
export default defineConfig(createViteConfig(resolvePageConfigPath()))
