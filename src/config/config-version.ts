import path from 'node:path'
import { currentConfigVersion } from '../../schema/page-config.ts'
import type { Finding } from './describe.ts'
import type { JsonSource } from './json-source.ts'

/**
 * A launch name, as the schema's launch.slug pattern has it (it becomes a folder, a host name and part of commands).
 */
export const launchSlugPattern = /^[a-z0-9][a-z0-9-]{0,62}$/

/** The folder name when `file` is launches/<folder>/page.config.json (the launch's name must be that folder's). */
export function launchFolderOf(file: string): string | undefined {
  const dir = path.dirname(path.resolve(file))
  return path.basename(file) === 'page.config.json' && path.basename(path.dirname(dir)) === 'launches'
    ? path.basename(dir)
    : undefined
}

/**
 * The version of the config format parsed config data states: a config without "configVersion" was written before
 * it existed, for version 1. Undefined when it is not a whole number from 1 up (the schema explains that).
 */
export function configVersionOf(data: unknown): number | undefined {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return undefined
  const version = (data as { configVersion?: unknown }).configVersion
  if (version === undefined) return 1
  return Number.isInteger(version) && (version as number) >= 1 ? (version as number) : undefined
}

/**
 * A path as a person types it in a command: relative to the current folder when inside it, quoted when it has spaces.
 */
function commandPath(file: string): string {
  const relative = path.relative(process.cwd(), file)
  const shown =
    relative && !relative.startsWith('..') && !path.isAbsolute(relative) ? relative.split(path.sep).join('/') : file
  return /[\s"'$`\\]/.test(shown) ? JSON.stringify(shown) : shown
}

/** The exact command that brings `file` to the current config format. */
export function migrateCommandFor(file: string): string {
  const folder = launchFolderOf(file)
  // --launch finds launches/<folder> under the current folder only.
  const inProject = folder !== undefined && path.resolve(file, '../../..') === path.resolve(process.cwd())
  return inProject ? `npm run migrate -- --launch ${folder}` : `npm run migrate -- ${commandPath(file)}`
}

/**
 * The one thing to say about a config written for another version of the format, or undefined when it is
 * written for this one. Everything else the checker would say about an older file comes from the old format, so
 * this finding is said alone.
 */
export function configVersionFinding(data: unknown, source: JsonSource, file: string): Finding | undefined {
  const version = configVersionOf(data)
  if (version === undefined || version === currentConfigVersion) return undefined
  const stated = (data as { configVersion?: unknown }).configVersion !== undefined
  // Without "configVersion" the finding is about the whole file, at its first line.
  const start = source.ast.body.loc.start
  const at = stated
    ? { at: ['configVersion'] }
    : { at: [], span: { start, end: { ...start, column: start.column + 1, offset: start.offset + 1 } } }
  if (version > currentConfigVersion) {
    return {
      ...at,
      message: `This file is written for version ${version} of the config format, but this code reads only up to version ${currentConfigVersion}: the code is older than the file.`,
      fix: `Update the code to a version that reads format ${version} (git pull, then npm install), or ask your developer. Do not lower the number by hand: the file would not mean the same thing.`,
    }
  }
  return {
    ...at,
    message: `This file is written for version ${version} of the config format${
      stated ? '' : ' (it has no "configVersion")'
    }, and this code reads version ${currentConfigVersion}.`,
    fix: `Run ${migrateCommandFor(file)}: it updates the file to version ${currentConfigVersion} and keeps your text and order. Then check it again with npm run validate.`,
  }
}

/** A launch in launches/<folder>/ whose launch.slug is not its folder name: where, and what to write. */
export function launchSlugFinding(data: unknown, file: string): Finding | undefined {
  const folder = launchFolderOf(file)
  const slug = (data as { launch?: { slug?: unknown } } | null)?.launch?.slug
  if (folder === undefined || typeof slug !== 'string' || slug === folder) return undefined
  const usable = launchSlugPattern.test(folder)
  return {
    at: ['launch', 'slug'],
    message: `launch.slug is '${slug}', but this launch is in the folder launches/${folder}/: a launch in launches/ is named after its folder.`,
    fix: usable
      ? `Write "slug": "${folder}" (or, if "${slug}" is the name you want, rename the folder to launches/${slug}/).`
      : `The folder name "${folder}" cannot be a launch name (lower-case letters, digits and dashes): rename the folder to launches/${launchSlugPattern.test(slug) ? slug : 'a-name-like-this'}/ and write that name here.`,
  }
}
