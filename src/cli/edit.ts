import { existsSync } from 'node:fs'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { parseArgs } from 'node:util'
import { loadPageCode } from '../build/page-code.ts'
import { launchFolderOf } from '../config/config-version.ts'
import { declaredSlug, LaunchesError } from '../config/launches.ts'
import { readLaunchName } from '../config/launch-name.ts'
import { readBuildSettings, SettingsError } from '../server/env.ts'
import { startLocalStudio, type LocalLaunch } from '../studio/server/local-server.ts'
import { launchesFromArgs, shownFile } from './launch-args.ts'

/** The port the editor asks for first: EDIT_PORT, else 3030 (another free one is used when it is taken). */
export function resolveEditPort(env: Record<string, string | undefined> = process.env): number {
  const port = Number(env.EDIT_PORT || 3030)
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new Error(`EDIT_PORT is ${env.EDIT_PORT}; write a port number such as 3030.`)
  return port
}

/** The launches `npm run edit` offers: the one named (by --launch or file), else every launch of the project. */
function launchesToEdit(args: string[], env: Record<string, string | undefined>): LocalLaunch[] {
  const { values, positionals } = parseArgs({ args, options: { launch: { type: 'string' } }, allowPositionals: true })
  if (positionals.length > 1 || (positionals.length === 1 && values.launch !== undefined)) {
    console.error(
      'Give one launch or one file: npm run edit -- --launch <name>, or npm run edit -- launches/<name>/page.config.json',
    )
    process.exit(1)
  }
  let configFiles: string[]
  try {
    configFiles = positionals[0]
      ? [path.resolve(positionals[0])]
      : launchesFromArgs(values.launch === undefined ? {} : { launch: values.launch }, process.cwd(), env).map(
          (source) => source.configFile,
        )
  } catch (error) {
    if (!(error instanceof LaunchesError)) throw error
    console.error(error.errors.map((e) => e.problems.join('\n')).join('\n'))
    process.exit(1)
  }
  const missing = configFiles.length === 1 ? configFiles.filter((file) => !existsSync(file)) : []
  if (missing.length) {
    console.error(
      `There is no file at ${missing[0]}. Name a launch (npm run edit -- --launch <name>) or give the path of a page.config.json (npm run edit -- launches/<name>/page.config.json).`,
    )
    process.exit(1)
  }
  const slugs = new Set<string>()
  return configFiles
    .filter((file) => existsSync(file))
    .map((configFile) => {
      // The studio names a launch by its slug: its folder's name, else the one its config states.
      let slug = launchFolderOf(configFile) ?? declaredSlug(configFile) ?? 'default'
      while (slugs.has(slug)) slug = `${slug}-2`
      slugs.add(slug)
      return { slug, siteName: readLaunchName(configFile), configFile }
    })
}

/**
 * `npm run edit [-- --launch <slug> | file]`: the studio's editor (src/studio/server/local-server.ts) on 127.0.0.1
 * for one person, no sign-in: that launch's config, the file given, else every launch of the project (PAGE_CONFIG:
 * that one). "Save to file" writes the file and builds nothing. Builds the studio's page first when the code changed
 * (loadPageCode, shared with npm run build). Prints its address and opens nothing; Ctrl+C stops it.
 */
export async function runEdit(args: string[], env: Record<string, string | undefined> = process.env): Promise<void> {
  const launches = launchesToEdit(args, env)
  const port = resolveEditPort(env)
  const settings = readBuildSettings(env)
  // A build that is there answers at once; a new one takes a while, once per version of the code.
  const slow = setTimeout(
    () => console.log("Building the editor's page (about 15 seconds, once for this version of the code)…"),
    300,
  )
  const code = await loadPageCode(settings).finally(() => clearTimeout(slow))
  const editor = await startLocalStudio({ launches, port, clientDir: code.studioDir, root: process.cwd() })
  for (const launch of launches) console.log(`Editing ${launch.siteName} (${shownFile(launch.configFile)})`)
  if (launches.length > 1) console.log(`This project has ${launches.length} launches: choose one in the browser.`)
  console.log(`Open ${editor.url} in your browser. Press Ctrl+C here to stop.`)
  const stop = () => {
    editor.close().then(
      () => process.exit(0),
      () => process.exit(1),
    )
  }
  process.once('SIGINT', stop)
  process.once('SIGTERM', stop)
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  try {
    await runEdit(process.argv.slice(2))
  } catch (error) {
    console.error(
      error instanceof SettingsError ? error.message : `The editor could not start: ${(error as Error).message}`,
    )
    process.exit(1)
  }
}
