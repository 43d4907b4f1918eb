import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import path from 'node:path'
import { listConfigImages } from './config-files.ts'
import { valueAt } from './describe.ts'
import { migrateConfigText } from './config-migrations.ts'
import { launchSlugPattern } from './config-version.ts'
import { insertMembers, removeMember, replaceStrings, replaceValue } from './json-edit.ts'
import { locate, parseJsonSource, type Segment } from './json-source.ts'
import { declaredSlug, findLaunches, launchesDirOf } from './launches.ts'
import { publicDirFor } from './load-page-config.ts'
import { hostsOf, withLaunchDetails, type LaunchDetails } from './launch-details.ts'
import type { Problem } from '../../schema/config-problem.ts'

/**
 * Starting the next development as a copy of a launch: `npm run new-launch` (src/cli/new-launch.ts) and the studio's
 * New launch (src/studio/server/new-launch.ts) both make launches/<name>/ here, and list what is left to change.
 */

/** A field the editor of a new launch should change: where it is, and what it says now. */
export type ChecklistItem = { group: string; path: Segment[]; line: number; value: string }

/** What createLaunch made. */
export type Launch = {
  dir: string
  configFile: string
  publicDir: string
  copiedFiles: number
  checklist: ChecklistItem[]
}

/** A launch name: lower-case letters, digits and dashes, as it becomes a folder, a host name and part of commands. */
export const launchNamePattern = launchSlugPattern

/** What a LaunchError is about: the name (taken, not usable), the launch to copy, or the copy's text (`problems`). */
export type LaunchErrorKind = 'name' | 'source' | 'problems'

/** A problem a person can fix (bad name, launch exists, no source config): shown as it is, without a trace. */
export class LaunchError extends Error {
  override name = 'LaunchError'
  constructor(
    message: string,
    readonly kind: LaunchErrorKind = 'name',
    readonly problems: Problem[] = [],
  ) {
    super(message)
  }
}

/** The address a new launch stands at until its real one is known: its own, so it never claims another's. */
export function placeholderOrigin(name: string): string {
  return `https://${name}.example.com`
}

/**
 * What createLaunch may also do: write the new development's own values, and check the copy before it is put in place.
 */
export type CreateLaunchOptions = {
  /** The new development's name, phone, e-mail, address, web address and senders (launch-details.ts). */
  details?: LaunchDetails | undefined
  /** The checker: the copy's problems (its images in `publicDir`); any problem and nothing is made. */
  check?: ((text: string, configFile: string, publicDir: string) => Problem[]) | undefined
}

/** Why `name` cannot be a new launch under `root` (not usable, its folder exists, a launch states it), or undefined. */
export function launchNameProblem(name: string, root: string): string | undefined {
  if (!launchNamePattern.test(name)) {
    return `"${name}" cannot be a launch name: use lower-case letters, digits and dashes, starting with a letter or digit (e.g. "maple-hollow").`
  }
  const dir = path.join(launchesDirOf(root), name)
  if (existsSync(dir)) {
    return `${path.relative(root, dir)} already exists, and a launch is never overwritten. Pick another name, or delete that folder first if you really mean to start it again.`
  }
  const namesake = findLaunches(root, {}).find((source) => declaredSlug(source.configFile) === name)
  if (namesake) {
    return `${path.relative(root, namesake.configFile)} is already the launch named "${name}": two launches cannot share a name (each registration is stored with it). Pick another name.`
  }
  return undefined
}

/**
 * Starts the next development from `sourceConfig`: launches/<name>/page.config.json (a copy in the current config
 * format, with "$schema" pointing at root/schema, launch.slug set to `name`, no launch.origins, and every address
 * on the source's hosts moved to the new web address: `details.origin`, else placeholderOrigin(name), so it builds
 * and runs beside the source at once) and launches/<name>/public/ (a copy of the source's public folder). With
 * `details`, the new development's values replace the old one's everywhere (launch-details.ts). The folder is made
 * whole in a temporary folder beside launches/ and renamed into place, so no one sees half a launch. Throws
 * LaunchError when the name is not usable, the launch exists (never overwritten), another launch already has that
 * name, the source is missing or not JSON, or `check` finds problems in the copy.
 */
export function createLaunch(
  name: string,
  root: string,
  sourceConfig: string,
  options: CreateLaunchOptions = {},
): Launch {
  const problem = launchNameProblem(name, root)
  if (problem) throw new LaunchError(problem)
  let text: string
  try {
    text = readFileSync(sourceConfig, 'utf8')
  } catch {
    throw new LaunchError(
      `There is no page config to copy at ${sourceConfig}. Set PAGE_CONFIG to the config to start from, or name a launch with --from <name>.`,
      'source',
    )
  }
  const dir = path.join(launchesDirOf(root), name)
  const configFile = path.join(dir, 'page.config.json')
  const publicDir = path.join(dir, 'public')
  const schemaFile = path.join(root, 'schema', 'page-config.schema.json')
  const newText = asNewLaunch(
    text,
    sourceConfig,
    name,
    path.relative(dir, schemaFile).split(path.sep).join('/'),
    options.details,
  )
  // Beside launches/, not in it: a folder there holding a page.config.json would be taken for a launch.
  const temporary = mkdtempSync(path.join(root, '.new-launch-'))
  try {
    writeFileSync(path.join(temporary, 'page.config.json'), newText, { flag: 'wx' })
    const sourcePublic = publicDirFor(sourceConfig)
    if (existsSync(sourcePublic))
      cpSync(sourcePublic, path.join(temporary, 'public'), { recursive: true, errorOnExist: true, force: false })
    else mkdirSync(path.join(temporary, 'public', 'images'), { recursive: true })
    // The documents (price list, floor plans) go with the config that lists them: the next development replaces them.
    for (const file of documentFilesOf(newText)) {
      const from = path.join(path.dirname(sourceConfig), file)
      if (!existsSync(from)) continue
      mkdirSync(path.dirname(path.join(temporary, file)), { recursive: true })
      cpSync(from, path.join(temporary, file), { errorOnExist: true, force: false })
    }
    const problems =
      options.check?.(newText, path.join(temporary, 'page.config.json'), path.join(temporary, 'public')) ?? []
    if (problems.length > 0) {
      throw new LaunchError(
        `The copy has ${problems.length === 1 ? 'a problem' : `${problems.length} problems`}, so no launch was made: ${problems[0]!.message}`,
        'problems',
        problems,
      )
    }
    try {
      mkdirSync(launchesDirOf(root), { recursive: true })
      renameSync(temporary, dir)
    } catch (error) {
      // Made meanwhile by someone else (rename never replaces a folder with files in it).
      if (['ENOTEMPTY', 'EEXIST'].includes((error as NodeJS.ErrnoException).code ?? '')) {
        throw new LaunchError(
          `${path.relative(root, dir)} was made just now by someone else, and a launch is never overwritten. Pick another name.`,
        )
      }
      throw error
    }
  } finally {
    // Half a launch is worse than none: the next attempt would be refused as "already exists".
    rmSync(temporary, { recursive: true, force: true })
  }
  return {
    dir,
    configFile,
    publicDir,
    copiedFiles: countFiles(publicDir),
    checklist: launchChecklist(readFileSync(configFile, 'utf8')),
  }
}

/**
 * The source config's text made into launch `name`'s: brought to the current config format, "$schema" set to
 * `schemaPath`, launch.slug set, launch.origins removed (those addresses are the source's), and every text value
 * that is an address on one of the source's hosts moved to the new address (`details.origin`, else
 * placeholderOrigin(name)).
 * With `details`, the new development's values are written in (withLaunchDetails). Everything else as written.
 */
function asNewLaunch(
  sourceText: string,
  sourceConfig: string,
  name: string,
  schemaPath: string,
  details?: LaunchDetails,
): string {
  const migrated = migrateConfigText(sourceText)
  if (migrated.kind === 'unreadable') {
    const where = migrated.syntax ? `${sourceConfig}:${migrated.syntax.span.start.line}` : sourceConfig
    throw new LaunchError(
      `The config to copy cannot be read: ${where}: ${migrated.reason} Fix it first (npm run validate shows what to do).`,
      'source',
    )
  }
  if (migrated.kind === 'newer') {
    throw new LaunchError(
      `${sourceConfig} is written for version ${migrated.version} of the config format, newer than this code reads: update the code (git pull, then npm install) first.`,
      'source',
    )
  }
  const bom = sourceText.startsWith('\uFEFF') ? '\uFEFF' : ''
  let text = (migrated.kind === 'migrated' ? migrated.text : sourceText).slice(bom.length)
  text = withSchemaPath(text, schemaPath)
  const data = JSON.parse(text) as { launch?: { slug?: unknown; origins?: unknown }; seo?: { canonicalUrl?: unknown } }
  if (data.launch === undefined)
    text = insertMembers(text, [], [['launch', `{ "slug": ${JSON.stringify(name)} }`]], 'configVersion')
  else if (data.launch.slug === undefined) text = insertMembers(text, ['launch'], [['slug', JSON.stringify(name)]])
  else text = replaceValue(text, ['launch', 'slug'], JSON.stringify(name))
  text = removeMember(text, ['launch'], 'origins')

  const oldHosts = hostsOf(data)
  const origin = details?.origin ?? placeholderOrigin(name)
  text = replaceStrings(text, (value) => {
    const match = /^https?:\/\/[^/?#\s]+/i.exec(value)
    const host = match ? hostOf(value) : undefined
    return match && host && oldHosts.has(host) ? origin + value.slice(match[0].length) : undefined
  })
  if (details) text = withLaunchDetails(text, data, details)
  return bom + text
}

/** The host (name and port) of an address, lower-case; undefined when it is not one. */
function hostOf(address: string): string | undefined {
  try {
    return new URL(address).host.toLowerCase() || undefined
  } catch {
    return undefined
  }
}

/** The config text with "$schema" set to `schemaPath`, everything else as written. */
function withSchemaPath(text: string, schemaPath: string): string {
  const parsed = parseJsonSource(text)
  if ('syntax' in parsed) return text
  const { span, found } = locate(parsed.source, ['$schema'])
  if (found) return text.slice(0, span.start.offset) + JSON.stringify(schemaPath) + text.slice(span.end.offset)
  return insertMembers(text, [], [['$schema', JSON.stringify(schemaPath)]])
}

function countFiles(dir: string): number {
  try {
    return readdirSync(dir, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile()).length
  } catch {
    return 0
  }
}

type Checked = Array<[group: string, at: Segment[]]>

/** The fields under `at` that hold a value (keys starting with "@" aside), or `at` itself when it holds one. */
function leavesOf(data: unknown, at: Segment[]): Segment[][] {
  const value = valueAt(data, at)
  if (typeof value !== 'object' || value === null) return [at]
  return Object.keys(value).flatMap((key) => (key.startsWith('@') ? [] : leavesOf(data, [...at, key])))
}

/** Each item of the list at `at`, or `at` itself when it is no list. */
function itemsOf(data: unknown, at: Segment[]): Segment[][] {
  const value = valueAt(data, at)
  return Array.isArray(value) ? value.map((_, i) => [...at, i]) : [at]
}

const group = (name: string, paths: Segment[][]): Checked => paths.map((at) => [name, at])

/** The facts of the development: names, phone and e-mail, who is told, location, address and search tags. */
function factFields(data: unknown): Checked {
  return [
    ...group('Names', [
      ['site', 'name'],
      ['site', 'brokerage'],
      ['seo', 'jsonLd', 'name'],
    ]),
    ...group('Phone and e-mail (the same number and address everywhere)', [
      ['site', 'phone', 'display'],
      ['site', 'phone', 'dial'],
      ['seo', 'jsonLd', 'telephone'],
      ['site', 'email'],
      ['seo', 'jsonLd', 'email'],
    ]),
    ['Who is told of each registration (without it, site.email)', ['launch', 'notifyEmail']],
    ["Who is told of each realtor's registration (the co-op desk)", ['launch', 'realtorEmail']],
    ...group('Location', [
      ['site', 'location'],
      ...leavesOf(data, ['seo', 'jsonLd', 'address']),
      ['seo', 'jsonLd', 'areaServed'],
    ]),
    ...group('Web address, search and sharing', [
      ['seo', 'canonicalUrl'],
      ['seo', 'jsonLd', 'url'],
      ['seo', 'jsonLd', 'image'],
      ['seo', 'title'],
      ['seo', 'description'],
      ['site', 'analytics', 'gtmId'],
      ['site', 'themeColor'],
    ]),
  ]
}

/**
 * The development's files and words: images, documents, each section's copy, the dialog, the reply, the privacy page.
 */
function copyFields(data: unknown): Checked {
  const documents = valueAt(data, ['documents', 'list'])
  const sections = valueAt(data, ['sections'])
  const reply = "The reply e-mail to each registrant (sender, text, documents, signature, the brokerage's contacts)"
  return [
    ...group(
      'Images (put the new files in public/images, then update the name, alt text, width and height)',
      listConfigImages(data).map((image) => [...image.path, 'src']),
    ),
    ...group(
      "Documents (put the new development's PDFs in documents/, then update each title and file)",
      Array.isArray(documents) ? documents.map((_, i) => ['documents', 'list', i, 'file']) : [],
    ),
    ...group(
      "Copy: each section's heading and all its text, lists and buttons",
      Array.isArray(sections) ? sections.map((_, i) => ['sections', i, 'heading']) : [],
    ),
    ...group('Copy: header, footer, dialog and form', [
      ['header', 'logo', 'alt'],
      ['footer', 'copyright'],
      ['footer', 'disclaimers'],
      ['modal', 'title'],
      ['modal', 'intro'],
      ['form', 'consent'],
    ]),
    ...group(reply, [
      ['reply', 'sender', 'name'],
      ['reply', 'sender', 'email'],
      ['reply', 'subject'],
      ...itemsOf(data, ['reply', 'paragraphs']),
      ...itemsOf(data, ['reply', 'documents']).map((at) => [...at, 'url']),
      ...itemsOf(data, ['reply', 'signature']),
      ...leavesOf(data, ['reply', 'brokerage']),
      ['reply', 'unsubscribe', 'pageTitle'],
    ]),
    // Only the texts the config gives: the others are written from the config (schema/privacy.ts); read the page at
    // /privacy.
    ...group(
      'The privacy page (/privacy): have the brokerage approve its words',
      leavesOf(data, ['privacy']).filter((at) => at.length > 1),
    ),
  ]
}

/** The development-specific fields of a config text, grouped, with their line numbers; [] when it is not JSON. */
export function launchChecklist(text: string): ChecklistItem[] {
  const parsed = parseJsonSource(text)
  if ('syntax' in parsed) return []
  const data: unknown = JSON.parse(text)
  const items: ChecklistItem[] = []
  for (const [name, at] of [...factFields(data), ...copyFields(data)]) {
    const value = valueAt(data, at)
    if (value === undefined) continue
    const shown = typeof value === 'string' ? value : JSON.stringify(value)
    items.push({ group: name, path: at, line: locate(parsed.source, at).span.start.line, value: shown })
  }
  return items
}

/** The document files a config's text lists (documents.list[].file), as written: paths from the launch's folder. */
function documentFilesOf(text: string): string[] {
  try {
    const list = (JSON.parse(text) as { documents?: { list?: Array<{ file?: unknown }> } }).documents?.list
    return Array.isArray(list)
      ? list.flatMap((d) => (typeof d?.file === 'string' && !d.file.split('/').includes('..') ? [d.file] : []))
      : []
  } catch {
    return []
  }
}
