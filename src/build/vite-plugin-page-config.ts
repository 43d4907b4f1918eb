import type { Plugin, ViteDevServer } from 'vite'
import type { PageConfig } from '../../schema/page-config.ts'
import { loadPageConfig } from '../config/load-page-config.ts'
import { fillTemplate } from './head.ts'

const validatorId = 'virtual:form-validator'
const resolvedValidatorId = `\0${validatorId}`

/**
 * Serves `virtual:form-validator`: the form's schema, layout, messages and precompiled validator, compiled from
 * the page config, so they can never be stale. A build passes the config it has loaded and checked; the dev
 * server loads the file, checks it on every load (a broken config shows its messages in the overlay) and reloads
 * the page when it changes. In dev it also fills index.html's head; in a build the prerender step does that.
 */
export function pageConfigPlugin(configFile: string, loaded?: PageConfig): Plugin {
  let server: ViteDevServer | undefined
  const current = () => loaded ?? loadPageConfig(configFile)
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
      if (!loaded) this.addWatchFile(configFile)
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
