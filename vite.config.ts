import tailwindcss from '@tailwindcss/vite'
import react from '@vitejs/plugin-react'
import { defineConfig } from 'vite'
import { pageConfigPlugin } from './src/build/vite-plugin-page-config.ts'
import { publicDirFor, resolvePageConfigPath } from './src/config/load-page-config.ts'

const configFile = resolvePageConfigPath()

export default defineConfig({
  plugins: [react(), tailwindcss(), pageConfigPlugin(configFile)],
  publicDir: publicDirFor(configFile),
  // The form validator generated from the config imports this Ajv helper; listing it spares the dev server a
  // reload when it first discovers it.
  optimizeDeps: { include: ['ajv/dist/runtime/ucs2length.js'] },
  build: {
    outDir: process.env.DIST_DIR || 'dist',
    emptyOutDir: true,
    // Every browser that runs this page's module scripts supports modulepreload natively.
    modulePreload: { polyfill: false },
  },
})
