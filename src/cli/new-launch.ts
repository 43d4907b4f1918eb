import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { listConfigImages } from '../config/config-images.ts'
import { describePath, valueAt } from '../config/describe.ts'
import { migrateConfigText } from '../config/config-migrations.ts'
import { launchSlugPattern } from '../config/config-version.ts'
import { insertMembers, removeMember, replaceStrings, replaceValue } from '../config/json-edit.ts'
import { locate, parseJsonSource, type Segment } from '../config/json-source.ts'
import { declaredSlug, findLaunches, LaunchesError } from '../config/launches.ts'
import { publicDirFor } from '../config/load-page-config.ts'
import { launchesFromArgs } from './launch-args.ts'

/** A field the editor of a new launch should change: where it is, and what it says now. */
export type ChecklistItem = { group: string; path: Segment[]; line: number; value: string }

/** What createLaunch made. */
export type Launch = { dir: string; configFile: string; publicDir: string; copiedFiles: number; checklist: ChecklistItem[] }

/** A launch name: lower-case letters, digits and dashes, as it becomes a folder, a host name and part of commands. */
export const launchNamePattern = launchSlugPattern

/** A problem a person can fix (bad name, launch exists, no source config): shown as it is, without a trace. */
export class LaunchError extends Error {
  override name = 'LaunchError'
}

/** The address a new launch stands at until its real one is known: its own, so it never claims another's. */
export function placeholderOrigin(name: string): string {
  return `https://${name}.example.com`
}

/**
 * Starts the next development from `sourceConfig`: launches/<name>/page.config.json (a copy in the current config
 * format, with "$schema" pointing at root/schema, launch.slug set to `name`, no launch.origins, and every address
 * on the source's hosts moved to placeholderOrigin(name), so it builds and runs beside the source at once) and
 * launches/<name>/public/ (a copy of the source's public folder). Throws LaunchError when the name is not usable,
 * the launch exists (never overwritten), another launch already has that name, or the source is missing or not JSON.
 */
export function createLaunch(name: string, root: string, sourceConfig: string): Launch {
  if (!launchNamePattern.test(name)) {
    throw new LaunchError(
      `"${name}" cannot be a launch name: use lower-case letters, digits and dashes, starting with a letter or digit (e.g. "maple-hollow").`,
    )
  }
  const dir = path.join(root, 'launches', name)
  if (existsSync(dir)) {
    throw new LaunchError(
      `${path.relative(root, dir)} already exists, and new-launch never overwrites a launch. Pick another name, or delete that folder first if you really mean to start it again.`,
    )
  }
  const namesake = findLaunches(root, {}).find((source) => declaredSlug(source.configFile) === name)
  if (namesake) {
    throw new LaunchError(
      `${path.relative(root, namesake.configFile)} is already the launch named "${name}": two launches cannot share a name (each registration is stored with it). Pick another name.`,
    )
  }
  let text: string
  try {
    text = readFileSync(sourceConfig, 'utf8')
  } catch {
    throw new LaunchError(`There is no page config to copy at ${sourceConfig}. Set PAGE_CONFIG to the config to start from, or name a launch with --from <name>.`)
  }
  const configFile = path.join(dir, 'page.config.json')
  const publicDir = path.join(dir, 'public')
  const schemaFile = path.join(root, 'schema', 'page-config.schema.json')
  const newText = asNewLaunch(text, sourceConfig, name, path.relative(dir, schemaFile).split(path.sep).join('/'))
  try {
    mkdirSync(dir, { recursive: true })
    writeFileSync(configFile, newText, { flag: 'wx' })
    const sourcePublic = publicDirFor(sourceConfig)
    if (existsSync(sourcePublic)) cpSync(sourcePublic, publicDir, { recursive: true, errorOnExist: true, force: false })
    else mkdirSync(path.join(publicDir, 'images'), { recursive: true })
  } catch (error) {
    // Half a launch is worse than none: the next attempt would be refused as "already exists".
    rmSync(dir, { recursive: true, force: true })
    throw error
  }
  return { dir, configFile, publicDir, copiedFiles: countFiles(publicDir), checklist: launchChecklist(newText) }
}

/**
 * The source config's text made into launch `name`'s: brought to the current config format, "$schema" set to
 * `schemaPath`, launch.slug set, launch.origins removed (those addresses are the source's), and every text value
 * that is an address on one of the source's hosts moved to placeholderOrigin(name). Everything else as written.
 */
function asNewLaunch(sourceText: string, sourceConfig: string, name: string, schemaPath: string): string {
  const migrated = migrateConfigText(sourceText)
  if (migrated.kind === 'unreadable') {
    const where = migrated.syntax ? `${sourceConfig}:${migrated.syntax.span.start.line}` : sourceConfig
    throw new LaunchError(`The config to copy cannot be read: ${where}: ${migrated.reason} Fix it first (npm run validate shows what to do).`)
  }
  if (migrated.kind === 'newer') {
    throw new LaunchError(
      `${sourceConfig} is written for version ${migrated.version} of the config format, newer than this code reads: update the code (git pull, then npm install) first.`,
    )
  }
  const bom = sourceText.startsWith('\uFEFF') ? '\uFEFF' : ''
  let text = (migrated.kind === 'migrated' ? migrated.text : sourceText).slice(bom.length)
  text = withSchemaPath(text, schemaPath)
  const data = JSON.parse(text) as { launch?: { slug?: unknown; origins?: unknown }; seo?: { canonicalUrl?: unknown } }
  if (data.launch === undefined) text = insertMembers(text, [], [['launch', `{ "slug": ${JSON.stringify(name)} }`]], 'configVersion')
  else if (data.launch.slug === undefined) text = insertMembers(text, ['launch'], [['slug', JSON.stringify(name)]])
  else text = replaceValue(text, ['launch', 'slug'], JSON.stringify(name))
  text = removeMember(text, ['launch'], 'origins')

  const oldHosts = new Set<string>()
  for (const address of [data.seo?.canonicalUrl, ...(Array.isArray(data.launch?.origins) ? data.launch.origins : [])]) {
    const host = typeof address === 'string' ? hostOf(address) : undefined
    if (host) oldHosts.add(host)
  }
  text = replaceStrings(text, (value) => {
    const match = /^https?:\/\/[^/?#\s]+/i.exec(value)
    const host = match ? hostOf(value) : undefined
    return match && host && oldHosts.has(host) ? placeholderOrigin(name) + value.slice(match[0].length) : undefined
  })
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

/** The development-specific fields of a config text, grouped, with their line numbers; [] when it is not JSON. */
export function launchChecklist(text: string): ChecklistItem[] {
  const parsed = parseJsonSource(text)
  if ('syntax' in parsed) return []
  const data: unknown = JSON.parse(text)
  const items: ChecklistItem[] = []
  const add = (group: string, at: Segment[]): void => {
    const value = valueAt(data, at)
    if (value === undefined) return
    const shown = typeof value === 'string' ? value : JSON.stringify(value)
    items.push({ group, path: at, line: locate(parsed.source, at).span.start.line, value: shown })
  }
  const leaves = (at: Segment[]): Segment[][] => {
    const value = valueAt(data, at)
    if (typeof value !== 'object' || value === null) return [at]
    return Object.keys(value).flatMap((key) => (key.startsWith('@') ? [] : leaves([...at, key])))
  }

  for (const at of [['site', 'name'], ['site', 'brokerage'], ['seo', 'jsonLd', 'name']]) add('Names', at)
  for (const at of [['site', 'phone', 'display'], ['site', 'phone', 'dial'], ['seo', 'jsonLd', 'telephone'], ['site', 'email'], ['seo', 'jsonLd', 'email']]) {
    add('Phone and e-mail (the same number and address everywhere)', at)
  }
  add('Who is told of each registration (without it, site.email)', ['launch', 'notifyEmail'])
  for (const at of [['site', 'location'], ...leaves(['seo', 'jsonLd', 'address']), ['seo', 'jsonLd', 'areaServed']]) add('Location', at)
  for (const at of [['seo', 'canonicalUrl'], ['seo', 'jsonLd', 'url'], ['seo', 'jsonLd', 'image'], ['seo', 'title'], ['seo', 'description'], ['site', 'analytics', 'gtmId'], ['site', 'themeColor']]) {
    add('Web address, search and sharing', at)
  }
  for (const image of listConfigImages(data)) {
    add('Images (put the new files in public/images, then update the name, alt text, width and height)', [...image.path, 'src'])
  }
  const sections = valueAt(data, ['sections'])
  if (Array.isArray(sections)) {
    sections.forEach((_, i) => add("Copy: each section's heading and all its text, lists and buttons", ['sections', i, 'heading']))
  }
  for (const at of [['header', 'logo', 'alt'], ['footer', 'copyright'], ['footer', 'disclaimers'], ['modal', 'title'], ['modal', 'intro'], ['form', 'consent']]) {
    add('Copy: header, footer, dialog and form', at)
  }
  const reply = 'The reply e-mail to each registrant (sender, text, documents, signature, the brokerage\'s contacts)'
  const listed = (at: Segment[]): Segment[][] => {
    const value = valueAt(data, at)
    return Array.isArray(value) ? value.map((_, i) => [...at, i]) : [at]
  }
  for (const at of [['reply', 'sender', 'name'], ['reply', 'sender', 'email'], ['reply', 'subject'], ...listed(['reply', 'paragraphs'])]) add(reply, at)
  for (const at of listed(['reply', 'documents'])) add(reply, [...at, 'url'])
  for (const at of [...listed(['reply', 'signature']), ...leaves(['reply', 'brokerage']), ['reply', 'unsubscribe', 'pageTitle']]) add(reply, at)
  return items
}

/** The checklist and next steps as printed by `npm run new-launch`. */
export function formatLaunch(launch: Launch, root: string, sourceConfig: string): string {
  const rel = (file: string): string => path.relative(root, file).split(path.sep).join('/')
  const config = rel(launch.configFile)
  const lines = [
    `✓ Created ${config} (a copy of ${rel(sourceConfig)})`,
    `✓ Copied ${launch.copiedFiles} file${launch.copiedFiles === 1 ? '' : 's'} into ${rel(launch.publicDir)}/`,
    '',
    `Now change everything that belongs to the new development. In ${config}:`,
  ]
  let group = ''
  const width = Math.max(0, ...launch.checklist.map((item) => describePath(item.path).length))
  for (const item of launch.checklist) {
    if (item.group !== group) {
      group = item.group
      lines.push('', `  ${group}`)
    }
    const value = item.value.length > 70 ? `${item.value.slice(0, 67)}…` : item.value
    lines.push(`    [ ] line ${String(item.line).padEnd(4)} ${describePath(item.path).padEnd(width)}  ${value}`)
  }
  const oldName = launch.checklist.find((item) => item.path.join('.') === 'site.name')
  if (oldName) lines.push('', `  Then search the file for "${oldName.value}" to catch any mention left in the copy.`)
  const slug = path.basename(launch.dir)
  const address = launch.checklist.find((item) => item.path.join('.') === 'seo.canonicalUrl')
  if (address?.value.startsWith(placeholderOrigin(slug))) {
    lines.push(
      '',
      `  Its web address is ${address.value} for now, so it never takes the other launch's: write the real one in`,
      '  seo.canonicalUrl (and the addresses under seo.jsonLd) when you know it.',
    )
  }
  const commands: [string, string][] = [
    [`npm run edit -- --launch ${slug}`, 'edit it with the page beside the text'],
    [`npm run validate -- --launch ${slug}`, 'check it: every problem with its line and what to do'],
    [`npm run dev -- --launch ${slug}`, 'see it in the browser while you edit'],
    ['npm run build', `build every launch (this one into dist/${slug}/)`],
    ['npm start', `serve every launch: this one at http://${slug}.localhost:3000`],
  ]
  const commandWidth = Math.max(...commands.map(([command]) => command.length))
  lines.push(
    '',
    'When you are done (docs/editing-guide.md explains each step and each error):',
    ...commands.map(([command, what]) => `  ${command.padEnd(commandWidth)}   ${what}`),
  )
  return lines.join('\n')
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  // A person reads this output: plain words and exit 1 on any failure, never a stack trace.
  const fail = (message: string): never => {
    console.error(message)
    process.exit(1)
  }
  const usage = 'Usage: npm run new-launch -- <name> [--from <launch>]   e.g. npm run new-launch -- maple-hollow'
  let name: string | undefined
  let from: string | undefined
  try {
    const { values, positionals } = parseArgs({ args: process.argv.slice(2), options: { from: { type: 'string' } }, allowPositionals: true })
    if (positionals.length !== 1) fail(usage)
    name = positionals[0]
    from = values.from
  } catch (error) {
    fail(`${(error as Error).message}\n${usage}`)
  }
  const root = process.cwd()
  try {
    // The default launch (PAGE_CONFIG's file when set) unless --from names another.
    const source = launchesFromArgs({ launch: from }, root)[0]!.configFile
    const launch = createLaunch(name!, root, source)
    console.log(formatLaunch(launch, root, source))
  } catch (error) {
    if (error instanceof LaunchesError) fail(error.errors.map((e) => e.problems.join('\n')).join('\n'))
    fail(error instanceof LaunchError ? error.message : `new-launch could not finish: ${(error as Error).message}`)
  }
}
