import { currentConfigVersion } from '../../schema/page-config.ts'
import { configVersionOf, launchSlugPattern } from './config-version.ts'
import { insertMembers, replaceValue } from './json-edit.ts'
import { parseJsonSource, type SyntaxProblem } from './json-source.ts'

/** What a migration step may need beyond the text: the folder of a launch in launches/<folder>/. */
export type MigrationContext = { folder?: string }

/**
 * One step of the config format, from version `from` to `from + 1`: a surgical edit of the text (src/config/
 * json-edit.ts) that keeps everything the author wrote, and a line for each change. The step does not touch
 * "configVersion": migrateConfigText sets it before the step runs.
 */
export type ConfigMigration = {
  from: number
  apply: (text: string, data: Record<string, unknown>, context: MigrationContext) => { text: string; changes: string[] }
}

/** A launch name made from a development's name: "Maple Ridge Estates" → "maple-ridge-estates". */
export function slugFromName(name: string): string {
  const slug = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+/, '')
    .slice(0, 63)
    .replace(/-+$/, '')
  return launchSlugPattern.test(slug) ? slug : 'default'
}

/** Every step, in order: configMigrations[i] goes from version i + 1 to i + 2. Add one with each new format version. */
export const configMigrations: ConfigMigration[] = [
  {
    // Version 2 made launches first-class: every config names its launch.
    from: 1,
    apply(text, data, { folder }) {
      const launch = data.launch
      const siteName = (data.site as { name?: unknown } | undefined)?.name
      const slug = folder ?? slugFromName(typeof siteName === 'string' ? siteName : '')
      if (launch === undefined) {
        const value = `{ "slug": ${JSON.stringify(slug)} }`
        return {
          text: insertMembers(text, [], [['launch', value]], 'configVersion'),
          changes: [`added "launch": ${value}`],
        }
      }
      if (typeof launch === 'object' && launch !== null && !Array.isArray(launch) && !('slug' in launch)) {
        return {
          text: insertMembers(text, ['launch'], [['slug', JSON.stringify(slug)]]),
          changes: [`added "slug": ${JSON.stringify(slug)} to "launch"`],
        }
      }
      return { text, changes: [] }
    },
  },
]

/** What migrateConfigText found and did. */
export type MigrationResult =
  | { kind: 'current'; version: number }
  | { kind: 'migrated'; from: number; to: number; text: string; changes: string[] }
  /** Written for a newer format than this code reads: the code must be updated, the file left alone. */
  | { kind: 'newer'; version: number }
  /** Not JSON, not a { } group, or a "configVersion" that is not a whole number: nothing can be done safely. */
  | { kind: 'unreadable'; syntax?: SyntaxProblem; reason: string }

/**
 * Brings a config's text to the current format, step by step, changing only what each step must: formatting,
 * key order, line endings (CRLF), a byte-order mark, "$comment"s and every other byte stay as written. Running it
 * on its own result changes nothing.
 */
export function migrateConfigText(rawText: string, context: MigrationContext = {}): MigrationResult {
  const bom = rawText.startsWith('\uFEFF') ? '\uFEFF' : ''
  let text = rawText.slice(bom.length)
  const parsed = parseJsonSource(text)
  if ('syntax' in parsed)
    return { kind: 'unreadable', syntax: parsed.syntax, reason: `The file is not valid JSON. ${parsed.syntax.message}` }
  const data: unknown = JSON.parse(text)
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    return { kind: 'unreadable', reason: 'The file is not a page config: it should be one { } group.' }
  }
  const from = configVersionOf(data)
  if (from === undefined) {
    return {
      kind: 'unreadable',
      reason: `"configVersion" is ${JSON.stringify((data as { configVersion?: unknown }).configVersion)}, which is not a version of the config format (a whole number such as ${currentConfigVersion}).`,
    }
  }
  if (from > currentConfigVersion) return { kind: 'newer', version: from }
  if (from === currentConfigVersion) return { kind: 'current', version: from }

  const changes: string[] = []
  for (let version = from; version < currentConfigVersion; version++) {
    const step = configMigrations[version - 1]
    if (!step || step.from !== version) throw new Error(`config-migrations.ts has no step from version ${version}`)
    const stated = 'configVersion' in (JSON.parse(text) as object)
    text = stated
      ? replaceValue(text, ['configVersion'], String(version + 1))
      : insertMembers(text, [], [['configVersion', String(version + 1)]], '$schema')
    const result = step.apply(text, JSON.parse(text) as Record<string, unknown>, context)
    text = result.text
    changes.push(...result.changes)
  }
  const stated = 'configVersion' in data
  changes.unshift(
    stated ? `"configVersion": ${from} → ${currentConfigVersion}` : `added "configVersion": ${currentConfigVersion}`,
  )
  return { kind: 'migrated', from, to: currentConfigVersion, text: bom + text, changes }
}
