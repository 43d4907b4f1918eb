import type { Plugin, ViteDevServer } from 'vite'
import { compileFormValidatorModule } from './compile-form-validator.ts'
import { fillTemplate } from './head.ts'
import { loadPageConfig } from '../config/load-page-config.ts'

const configId = 'virtual:page-config'
const resolvedConfigId = `\0${configId}`
const validatorId = 'virtual:form-validator'
const resolvedValidatorId = `\0${validatorId}`

/**
 * Serves the page config to the prerenderer as `virtual:page-config` (the browser reads it from the HTML),
 * validated on every load, so a broken config
 * stops the build and shows its messages in the dev server's overlay; editing the file reloads the page.
 * Serves `virtual:form-validator`, the form schema's validator compiled from the same file, so it can never
 * be stale. In dev it also fills index.html's head; in a build the prerender step does that.
 */
export function pageConfigPlugin(configFile: string): Plugin {
  let server: ViteDevServer | undefined
  return {
    name: 'page-config',
    configureServer(devServer) {
      server = devServer
      devServer.watcher.add(configFile)
      devServer.watcher.on('change', (file) => {
        if (file !== configFile) return
        for (const id of [resolvedConfigId, resolvedValidatorId]) {
          const module = devServer.moduleGraph.getModuleById(id)
          if (module) devServer.moduleGraph.invalidateModule(module)
        }
        devServer.ws.send({ type: 'full-reload' })
      })
    },
    resolveId(id) {
      if (id === configId) return resolvedConfigId
      if (id === validatorId) return resolvedValidatorId
      return undefined
    },
    load(id) {
      if (id !== resolvedConfigId && id !== resolvedValidatorId) return undefined
      this.addWatchFile(configFile)
      const config = loadPageConfig(configFile)
      if (id === resolvedValidatorId) return compileFormValidatorModule(config.form)
      return `export default ${JSON.stringify(config)}`
    },
    transformIndexHtml: {
      order: 'pre',
      handler(html) {
        if (!server) return html
        return fillTemplate(html, loadPageConfig(configFile), 'home')
      },
    },
  }
}
