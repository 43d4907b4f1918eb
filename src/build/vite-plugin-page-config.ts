import type { Plugin, ViteDevServer } from 'vite'
import { applyPhase } from '../../schema/phase-apply.ts'
import { loadPageConfig } from '../config/load-page-config.ts'
import { fillTemplate } from './head.ts'

const validatorId = 'virtual:form-validator'
const resolvedValidatorId = `\0${validatorId}`

/**
 * The dev server's `virtual:form-validator`: the form's schema, layout, messages and precompiled validator,
 * compiled from the page config on every load (a broken config shows its messages in the overlay), so they can never
 * be stale; the page reloads when the file changes. It also fills index.html's head. (A build shares one page code
 * between launches and gives each launch its validator as a file of its own: src/build/page-code.ts.)
 */
export function pageConfigPlugin(configFile: string): Plugin {
  let server: ViteDevServer | undefined
  // The page as its "current" phase shows it (the built site has every phase; the dev server shows the one named).
  const current = () => {
    const config = loadPageConfig(configFile)
    return applyPhase(config, config.phases?.current)
  }
  return {
    name: 'page-config',
    configureServer(devServer) {
      server = devServer
      devServer.watcher.add(configFile)
      devServer.watcher.on('change', (file) => {
        if (file !== configFile) return
        const module = devServer.moduleGraph.getModuleById(resolvedValidatorId)
        if (module) devServer.moduleGraph.invalidateModule(module)
        devServer.ws.send({ type: 'full-reload' })
      })
    },
    resolveId(id) {
      return id === validatorId ? resolvedValidatorId : undefined
    },
    async load(id) {
      if (id !== resolvedValidatorId) return undefined
      this.addWatchFile(configFile)
      // Imported here, not at the top: RJSF's compiler loads React, which must not be loaded before Vite has set
      // NODE_ENV for the build (the prerenderer would then mix React's development and production builds).
      const { compileFormValidatorModule } = await import('./compile-form-validator.ts')
      return compileFormValidatorModule(current().form)
    },
    transformIndexHtml: {
      order: 'pre',
      handler(html) {
        if (!server) return html
        return fillTemplate(html, current(), 'home')
      },
    },
  }
}
