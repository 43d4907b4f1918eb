import { spawnSync } from 'node:child_process'
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { beforeEach, describe, expect, it } from 'vitest'
import { configMigrations, migrateConfigText, slugFromName } from '../../src/config/config-migrations.ts'
import { checkPageConfigFile } from '../../src/config/check-page-config.ts'
import { currentConfigVersion } from '../../schema/page-config.ts'
import { replaceOnce, secondLaunchConfig, secondLaunchDir } from '../fixtures/second-launch.ts'

const root = path.resolve(import.meta.dirname, '../..')
const tsx = path.join(root, 'node_modules/.bin/tsx')
const script = path.join(root, 'src/cli/migrate.ts')

const current = readFileSync(secondLaunchConfig, 'utf8')
const v2Keys = '  "configVersion": 2,\n  "launch": { "slug": "willowmere-commons" },\n'
/** The second launch as it was written before launches existed (version 1), with a "$comment" the author left. */
const v1 = replaceOnce(
  replaceOnce(current, v2Keys, ''),
  '"phone": { "type": "string", "minLength": 10, "maxLength": 18 },',
  '"phone": { "$comment": "Loose on purpose: some buyers add an extension.", "type": "string", "minLength": 10, "maxLength": 18 },',
)
const crlf = (text: string): string => text.replaceAll('\n', '\r\n')

/** A project: the v1 second launch as the default (CRLF line ends), and the same, LF, as launches/maple-ridge. */
function makeProject(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'migrate-'))
  cpSync(path.join(secondLaunchDir, 'public'), path.join(dir, 'public'), { recursive: true })
  writeFileSync(path.join(dir, 'page.config.json'), crlf(replaceOnce(v1, '"../../../schema/', '"./schema/')))
  mkdirSync(path.join(dir, 'launches/maple-ridge'), { recursive: true })
  cpSync(path.join(secondLaunchDir, 'public'), path.join(dir, 'launches/maple-ridge/public'), { recursive: true })
  writeFileSync(
    path.join(dir, 'launches/maple-ridge/page.config.json'),
    replaceOnce(
      replaceOnce(v1, '"../../../schema/', '"../../schema/'),
      '"canonicalUrl": "https://willowmere.example.org/"',
      '"canonicalUrl": "https://maple-ridge.example.com/"',
    ),
  )
  return dir
}

function migrate(cwd: string, args: string[] = []): { code: number | null; out: string } {
  const { PAGE_CONFIG: _ignored, ...inherited } = process.env
  const result = spawnSync(tsx, [script, ...args], { cwd, env: inherited, encoding: 'utf8' })
  return { code: result.status, out: `${result.stdout}${result.stderr}` }
}

describe('migrateConfigText', () => {
  it('has one step for each version before the current one', () => {
    expect(configMigrations.map((step) => step.from)).toEqual(
      Array.from({ length: currentConfigVersion - 1 }, (_, i) => i + 1),
    )
  })

  it('inserts configVersion and the launch after "$schema" and changes nothing else, byte for byte (CRLF kept)', () => {
    const result = migrateConfigText(crlf(v1), { folder: 'willowmere-commons' })
    expect(result).toMatchObject({ kind: 'migrated', from: 1, to: 2 })
    if (result.kind !== 'migrated') return
    const expected = crlf(
      replaceOnce(
        v1,
        '"../../../schema/page-config.schema.json",\n',
        `"../../../schema/page-config.schema.json",\n${v2Keys}`,
      ),
    )
    expect(result.text).toBe(expected)
    expect(result.changes).toEqual(['added "configVersion": 2', 'added "launch": { "slug": "willowmere-commons" }'])
  })

  it('names the default launch after its development, and follows a one-line file and a byte-order mark', () => {
    const oneLine = `\uFEFF${JSON.stringify({ $schema: 'x.json', site: { name: 'Maple Ridge Étates & Co.' } })}`
    const result = migrateConfigText(oneLine)
    expect(result.kind === 'migrated' && result.text).toBe(
      '\uFEFF{"$schema":"x.json", "configVersion": 2, "launch": { "slug": "maple-ridge-etates-co" },"site":{"name":"Maple Ridge Étates & Co."}}',
    )
    expect(slugFromName('  ')).toBe('default')
  })

  it('replaces a stated older version, and leaves a current or newer file alone', () => {
    const stated = replaceOnce(current, v2Keys, '  "configVersion": 1,\n')
    const result = migrateConfigText(stated, { folder: 'willowmere-commons' })
    expect(result.kind === 'migrated' && result.text).toBe(current)
    expect(migrateConfigText(current)).toEqual({ kind: 'current', version: 2 })
    expect(migrateConfigText(replaceOnce(current, '"configVersion": 2', '"configVersion": 3'))).toEqual({
      kind: 'newer',
      version: 3,
    })
  })
})

describe('npm run migrate', () => {
  let project: string
  beforeEach(() => {
    project = makeProject()
  })
  const read = (file: string): string => readFileSync(path.join(project, file), 'utf8')

  it('migrates every launch, says what changed in each, and the files then pass the checker', () => {
    const { code, out } = migrate(project)
    expect(code).toBe(0)
    expect(out).toBe(
      [
        '✓ page.config.json: updated from version 1 to 2 of the config format',
        '    added "configVersion": 2',
        '    added "launch": { "slug": "willowmere-commons" }',
        '✓ launches/maple-ridge/page.config.json: updated from version 1 to 2 of the config format',
        '    added "configVersion": 2',
        '    added "launch": { "slug": "maple-ridge" }',
        '',
        'Check the result with npm run validate.',
        '',
      ].join('\n'),
    )
    const rootExpected = crlf(
      replaceOnce(
        replaceOnce(v1, '"../../../schema/', '"./schema/'),
        '"./schema/page-config.schema.json",\n',
        `"./schema/page-config.schema.json",\n${v2Keys}`,
      ),
    )
    expect(read('page.config.json')).toBe(rootExpected)
    expect(read('launches/maple-ridge/page.config.json').split('\n').slice(1, 4)).toEqual([
      '  "$schema": "../../schema/page-config.schema.json",',
      '  "configVersion": 2,',
      '  "launch": { "slug": "maple-ridge" },',
    ])
    expect(read('launches/maple-ridge/page.config.json')).toContain(
      '"$comment": "Loose on purpose: some buyers add an extension."',
    )
    expect(checkPageConfigFile(path.join(project, 'page.config.json')).problems).toEqual([])
    expect(checkPageConfigFile(path.join(project, 'launches/maple-ridge/page.config.json')).problems).toEqual([])
    // No temporary file left behind by the atomic write.
    expect(readdirSync(path.join(project, 'launches/maple-ridge')).sort()).toEqual(['page.config.json', 'public'])
  })

  it('is idempotent: a second run says each file is current and changes nothing', () => {
    migrate(project)
    const before = [read('page.config.json'), read('launches/maple-ridge/page.config.json')]
    const { code, out } = migrate(project)
    expect(code).toBe(0)
    expect(out).toBe(
      '✓ page.config.json is current (config format version 2)\n✓ launches/maple-ridge/page.config.json is current (config format version 2)\n',
    )
    expect([read('page.config.json'), read('launches/maple-ridge/page.config.json')]).toEqual(before)
  })

  it('migrates one launch with --launch, or one file by its path', () => {
    const { code, out } = migrate(project, ['--launch', 'maple-ridge'])
    expect(code).toBe(0)
    expect(out).toContain('✓ launches/maple-ridge/page.config.json: updated from version 1 to 2')
    expect(out).not.toContain('✓ page.config.json')
    expect(read('page.config.json')).toBe(crlf(replaceOnce(v1, '"../../../schema/', '"./schema/')))
    expect(migrate(project, ['page.config.json']).out).toContain('✓ page.config.json: updated from version 1 to 2')
    expect(read('page.config.json')).toContain('"launch": { "slug": "willowmere-commons" },\r\n')
  })

  it('with --check, writes nothing and exits 1 while a file needs migrating, 0 once none does', () => {
    const before = read('launches/maple-ridge/page.config.json')
    const check = migrate(project, ['--check'])
    expect(check.code).toBe(1)
    expect(check.out).toContain(
      '✖ launches/maple-ridge/page.config.json is written for version 1 of the config format; npm run migrate -- --launch maple-ridge updates it to version 2.',
    )
    expect(check.out).toContain(
      '✖ page.config.json is written for version 1 of the config format; npm run migrate -- page.config.json updates it to version 2.',
    )
    expect(read('launches/maple-ridge/page.config.json')).toBe(before)
    migrate(project)
    expect(migrate(project, ['--check']).code).toBe(0)
  })

  it('explains a JSON syntax error with its line and writes nothing, and still migrates the other launches', () => {
    const broken = replaceOnce(
      read('launches/maple-ridge/page.config.json'),
      '"closeLabel": "Dismiss"',
      '"closeLabel": "Dismiss",',
    )
    writeFileSync(path.join(project, 'launches/maple-ridge/page.config.json'), broken)
    const line = broken.slice(0, broken.indexOf('"closeLabel"')).split('\n').length
    const { code, out } = migrate(project)
    expect(code).toBe(1)
    expect(out).toContain(`✖ launches/maple-ridge/page.config.json:${line}:`)
    expect(out).toContain('The file is not valid JSON. There is a comma right before "}"')
    expect(out).toContain('Nothing was written.')
    expect(out).not.toMatch(/^\s+at /m)
    expect(read('launches/maple-ridge/page.config.json')).toBe(broken)
    expect(out).toContain('✓ page.config.json: updated from version 1 to 2')
  })

  it('refuses to touch a file written for a newer format, and names an unknown launch', () => {
    migrate(project)
    const newer = replaceOnce(read('page.config.json'), '"configVersion": 2', '"configVersion": 3')
    writeFileSync(path.join(project, 'page.config.json'), newer)
    const { code, out } = migrate(project, ['page.config.json'])
    expect(code).toBe(1)
    expect(out).toContain(
      'is written for version 3 of the config format, but this code reads only up to version 2: update the code',
    )
    expect(read('page.config.json')).toBe(newer)
    const unknown = migrate(project, ['--launch', 'maple-rigde'])
    expect(unknown.code).toBe(1)
    expect(unknown.out).toContain('There is no launch named "maple-rigde". The launches are:')
  })
})
