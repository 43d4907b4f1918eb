import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { listConfigImages } from '../config/config-images.ts'
import { describePath, valueAt } from '../config/describe.ts'
import { locate, parseJsonSource, type Segment } from '../config/json-source.ts'
import { publicDirFor, resolvePageConfigPath } from '../config/load-page-config.ts'

/** A field the editor of a new launch should change: where it is, and what it says now. */
export type ChecklistItem = { group: string; path: Segment[]; line: number; value: string }

/** What createLaunch made. */
export type Launch = { dir: string; configFile: string; publicDir: string; copiedFiles: number; checklist: ChecklistItem[] }

/** A launch name: lower-case letters, digits and dashes, as it becomes a folder and part of commands. */
export const launchNamePattern = /^[a-z0-9][a-z0-9-]{0,62}$/

/** A problem a person can fix (bad name, launch exists, no source config): shown as it is, without a trace. */
export class LaunchError extends Error {
  override name = 'LaunchError'
}

/**
 * Starts the next development from `sourceConfig`: launches/<name>/page.config.json (a copy, with "$schema"
 * pointing at root/schema) and launches/<name>/public/ (a copy of the source's public folder).
 * Throws LaunchError when the name is not usable, the launch exists (never overwritten) or the source is missing.
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
  let text: string
  try {
    text = readFileSync(sourceConfig, 'utf8')
  } catch {
    throw new LaunchError(`There is no page config to copy at ${sourceConfig}. Set PAGE_CONFIG to the config to start from.`)
  }
  const configFile = path.join(dir, 'page.config.json')
  const publicDir = path.join(dir, 'public')
  const schemaFile = path.join(root, 'schema', 'page-config.schema.json')
  const newText = withSchemaPath(text, path.relative(dir, schemaFile).split(path.sep).join('/'))
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

/** The config text with "$schema" set to `schemaPath`, everything else as written. */
function withSchemaPath(text: string, schemaPath: string): string {
  const parsed = parseJsonSource(text)
  if ('syntax' in parsed) return text
  const { span, found } = locate(parsed.source, ['$schema'])
  if (found) return text.slice(0, span.start.offset) + JSON.stringify(schemaPath) + text.slice(span.end.offset)
  const open = text.indexOf('{')
  return `${text.slice(0, open + 1)}\n  "$schema": ${JSON.stringify(schemaPath)},${text.slice(open + 1)}`
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
  const env = `PAGE_CONFIG=${config}`
  lines.push(
    '',
    'When you are done (docs/editing-guide.md explains each step and each error):',
    `  ${env} npm run validate     check it: every problem with its line and what to do`,
    `  ${env} npm run dev          see it in the browser while you edit`,
    `  ${env} npm run build        build the site into dist/ (add DIST_DIR=dist-${path.basename(launch.dir)} to keep it apart)`,
    `  ${env} npm start            serve the built site and the registration form`,
  )
  return lines.join('\n')
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  // A person reads this output: plain words and exit 1 on any failure, never a stack trace.
  const fail = (message: string): never => {
    console.error(message)
    process.exit(1)
  }
  const name = process.argv[2]
  if (!name || process.argv.length > 3) fail('Usage: npm run new-launch -- <name>   e.g. npm run new-launch -- maple-hollow')
  const root = process.cwd()
  const source = resolvePageConfigPath()
  try {
    const launch = createLaunch(name as string, root, source)
    console.log(formatLaunch(launch, root, source))
  } catch (error) {
    fail(error instanceof LaunchError ? error.message : `new-launch could not finish: ${(error as Error).message}`)
  }
}
