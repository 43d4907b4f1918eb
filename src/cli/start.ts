import path from 'node:path'
import { PageConfigError, resolvePageConfigPath } from '../config/load-page-config.ts'
import { runNodeServer } from './serve.ts'
import { buildSite, isBuildCurrent, resolveDistDir } from './build.ts'

// `npm start`: builds the site when its inputs changed since the last build, then serves it with its backend.
const configFile = resolvePageConfigPath()
const distDir = resolveDistDir()
if (!isBuildCurrent(configFile, distDir)) {
  console.log(`Building the site from ${path.relative(process.cwd(), configFile)}…`)
  try {
    await buildSite(configFile, distDir)
  } catch (error) {
    console.error(error instanceof PageConfigError ? error.message : `The build failed: ${(error as Error).message}`)
    process.exit(1)
  }
}
await runNodeServer()
