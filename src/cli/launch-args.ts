import path from 'node:path'
import { launchFolderOf } from '../config/config-version.ts'
import { publicDirFor } from '../config/load-page-config.ts'
import { findLaunches, pickLaunchSource, type LaunchSource } from '../config/launches.ts'

/**
 * The launches a command acts on: `--launch <slug>` or a config file's path: that one; neither: every launch under
 * `root` (findLaunches: with PAGE_CONFIG set, only that file). Throws LaunchesError for an unknown slug.
 */
export function launchesFromArgs(
  args: { launch?: string; file?: string },
  root = process.cwd(),
  env: Record<string, string | undefined> = process.env,
): LaunchSource[] {
  if (args.file !== undefined) {
    const configFile = path.resolve(root, args.file)
    const folder = launchFolderOf(configFile)
    return [
      {
        configFile,
        publicDir: publicDirFor(configFile),
        isDefault: folder === undefined,
        ...(folder === undefined ? {} : { folder }),
      },
    ]
  }
  const sources = findLaunches(root, env)
  return args.launch === undefined ? sources : [pickLaunchSource(sources, args.launch)]
}

/** A file as a person reads it in the output: relative to the current folder when inside it. */
export function shownFile(file: string): string {
  const relative = path.relative(process.cwd(), file)
  return relative && !relative.startsWith('..') && !path.isAbsolute(relative)
    ? relative.split(path.sep).join('/')
    : file
}
