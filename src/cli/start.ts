import path from 'node:path'
import { PageConfigError } from '../config/load-page-config.ts'
import { readBuildSettings, SettingsError } from '../server/env.ts'
import { runNodeServer } from './serve.ts'
import { buildSite, isBuildCurrent } from './build.ts'

// `npm start`: builds the site when its inputs changed since the last build, then serves it with its backend.
let settings
try {
  settings = readBuildSettings(process.env)
} catch (error) {
  console.error(error instanceof SettingsError ? error.message : error)
  process.exit(1)
}
const configFile = path.resolve(settings.pageConfig)
const distDir = path.resolve(settings.distDir)
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
