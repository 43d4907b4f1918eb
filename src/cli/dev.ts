import path from 'node:path'
import { createRequire } from 'node:module'
import { pathToFileURL } from 'node:url'
import { findLaunches, LaunchesError, pickLaunchSource } from '../config/launches.ts'

// `npm run dev [-- --launch <slug>] [Vite's options]`: Vite's dev server on one launch's page.config.json and its
// public/ (vite.config.ts reads PAGE_CONFIG, which this sets to that launch's config); without --launch the default
// launch, or PAGE_CONFIG's config as before. Only that launch is read: another's broken config does not stop it.
const args = process.argv.slice(2)
const at = args.findIndex((arg) => arg === '--launch' || arg.startsWith('--launch='))
if (at !== -1) {
  const [flag] = args.splice(at, 1)
  const slug = flag!.includes('=') ? flag!.slice(flag!.indexOf('=') + 1) : args.splice(at, 1)[0]
  if (!slug || slug.startsWith('-')) {
    console.error(
      "Name the launch to preview: npm run dev -- --launch <slug> (a folder in launches/, or the default launch's slug).",
    )
    process.exit(1)
  }
  try {
    const source = pickLaunchSource(findLaunches(process.cwd(), process.env), slug)
    process.env.PAGE_CONFIG = source.configFile
    console.log(`Previewing launch ${slug} (${path.relative(process.cwd(), source.configFile)})`)
  } catch (error) {
    console.error(error instanceof LaunchesError ? error.message : error)
    process.exit(1)
  }
}
// Vite's own command line, with the remaining options, in this process (one process for Ctrl-C to stop).
const viteBin = path.join(path.dirname(createRequire(import.meta.url).resolve('vite/package.json')), 'bin', 'vite.js')
process.argv = [process.argv[0]!, viteBin, ...args]
await import(pathToFileURL(viteBin).href)
