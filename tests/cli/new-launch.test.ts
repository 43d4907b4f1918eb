import { spawnSync } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { beforeEach, describe, expect, it } from 'vitest'
import { checkPageConfigFile } from '../../src/config/check-page-config.ts'
import { findLaunches, loadLaunches } from '../../src/config/launches.ts'
import { loadPageConfig } from '../../src/config/load-page-config.ts'
import { replaceOnce, secondLaunchDir } from '../fixtures/second-launch.ts'
import { launchChecklist } from '../../src/config/new-launch.ts'

const root = path.resolve(import.meta.dirname, '../..')
const tsx = path.join(root, 'node_modules/.bin/tsx')
const script = path.join(root, 'src/cli/new-launch.ts')

/** A throwaway project: the second development as its page.config.json, its public/ and the emitted schema. */
function makeProject(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'project-'))
  cpSync(secondLaunchDir, dir, { recursive: true })
  mkdirSync(path.join(dir, 'schema'))
  cpSync(path.join(root, 'schema/page-config.schema.json'), path.join(dir, 'schema/page-config.schema.json'))
  return dir
}

function newLaunch(
  cwd: string,
  args: string[],
  env: Record<string, string> = {},
): { code: number | null; out: string } {
  const { PAGE_CONFIG: _ignored, ...inherited } = process.env
  const result = spawnSync(tsx, [script, ...args], { cwd, env: { ...inherited, ...env }, encoding: 'utf8' })
  return { code: result.status, out: `${result.stdout}${result.stderr}` }
}

describe('npm run new-launch', () => {
  let project: string
  beforeEach(() => {
    project = makeProject()
  })

  it('copies the config as the new launch: its name, no origins, its own placeholder address, everything else as written', () => {
    const sourceFile = path.join(project, 'page.config.json')
    const original = replaceOnce(
      readFileSync(sourceFile, 'utf8'),
      '"launch": { "slug": "willowmere-commons" }',
      '"launch": {\n    "slug": "willowmere-commons",\n    "notifyEmail": "sales@example.org",\n    "origins": ["https://www.willowmere.example.org", "https://willowmere-static.example.net"]\n  }',
    )
    writeFileSync(sourceFile, original)
    const { code } = newLaunch(project, ['maple-hollow'])
    expect(code).toBe(0)
    const configFile = path.join(project, 'launches/maple-hollow/page.config.json')
    const expected = replaceOnce(
      replaceOnce(
        original,
        '"$schema": "../../../schema/page-config.schema.json"',
        '"$schema": "../../schema/page-config.schema.json"',
      ),
      '"slug": "willowmere-commons",\n    "notifyEmail": "sales@example.org",\n    "origins": ["https://www.willowmere.example.org", "https://willowmere-static.example.net"]\n',
      '"slug": "maple-hollow",\n    "notifyEmail": "sales@example.org"\n',
    ).replaceAll('https://willowmere.example.org', 'https://maple-hollow.example.com')
    expect(readFileSync(configFile, 'utf8')).toBe(expected)
    expect(existsSync(path.resolve(path.dirname(configFile), '../../schema/page-config.schema.json'))).toBe(true)
    expect(readdirSync(path.join(project, 'launches/maple-hollow/public/images')).sort()).toEqual(
      readdirSync(path.join(project, 'public/images')).sort(),
    )

    // It builds as it is, and beside the launch it came from: its own name, its own address.
    const config = loadPageConfig(configFile)
    expect(config.launch).toEqual({ slug: 'maple-hollow', notifyEmail: 'sales@example.org' })
    expect(config.seo.canonicalUrl).toBe('https://maple-hollow.example.com/')
    expect(config.seo.jsonLd.image).toBe('https://maple-hollow.example.com/images/og-image.jpg')
    const launches = loadLaunches(findLaunches(project, {}))
    expect(launches.map((launch) => launch.slug)).toEqual(['willowmere-commons', 'maple-hollow'])
  })

  it('brings a source written for version 1 of the config format to the current one', () => {
    const sourceFile = path.join(project, 'page.config.json')
    writeFileSync(
      sourceFile,
      replaceOnce(
        readFileSync(sourceFile, 'utf8'),
        '  "configVersion": 2,\n  "launch": { "slug": "willowmere-commons" },\n',
        '',
      ),
    )
    expect(newLaunch(project, ['maple-hollow']).code).toBe(0)
    const text = readFileSync(path.join(project, 'launches/maple-hollow/page.config.json'), 'utf8')
    expect(text.split('\n').slice(0, 4)).toEqual([
      '{',
      '  "$schema": "../../schema/page-config.schema.json",',
      '  "configVersion": 2,',
      '  "launch": { "slug": "maple-hollow" },',
    ])
    expect(checkPageConfigFile(path.join(project, 'launches/maple-hollow/page.config.json')).problems).toEqual([])
  })

  it('prints the development-specific fields with their lines, then the commands for this launch and its local address', () => {
    const { out } = newLaunch(project, ['maple-hollow'])
    const text = readFileSync(path.join(project, 'launches/maple-hollow/page.config.json'), 'utf8')
    const lineOf = (needle: string): number => text.slice(0, text.indexOf(needle)).split('\n').length
    expect(out).toContain('✓ Created launches/maple-hollow/page.config.json (a copy of page.config.json)')
    expect(out).toMatch(
      new RegExp(`\\[ \\] line ${lineOf('"name": "Willowmere Commons"')} +site\\.name +Willowmere Commons`),
    )
    expect(out).toMatch(
      new RegExp(
        `\\[ \\] line ${lineOf('"canonicalUrl"')} +seo\\.canonicalUrl +https://maple-hollow\\.example\\.com/\n`,
      ),
    )
    for (const field of [
      'site.phone.dial',
      'site.email',
      'site.location',
      'seo.canonicalUrl',
      'seo.jsonLd.telephone',
      'seo.jsonLd.email',
      'seo.jsonLd.address.addressLocality',
      'sections[0].image.src',
      'sections[0].heading',
      'footer.copyright',
    ]) {
      expect(out, field).toContain(` ${field} `)
    }
    expect(out).toContain('Then search the file for "Willowmere Commons"')
    expect(out).toContain('Its web address is https://maple-hollow.example.com/ for now')
    for (const command of ['npm run edit', 'npm run validate', 'npm run dev'])
      expect(out).toMatch(new RegExp(`^  ${command} -- --launch maple-hollow +\\S`, 'm'))
    expect(out).toMatch(/^ {2}npm run build +build every launch \(this one into dist\/maple-hollow\/\)$/m)
    expect(out).toMatch(/^ {2}npm start +serve every launch: this one at http:\/\/maple-hollow\.localhost:3000$/m)
    expect(out).not.toContain('PAGE_CONFIG')
  })

  it("lists the reply e-mail's sender, text, documents and signature, which belong to the development too", () => {
    const items = launchChecklist(readFileSync('page.config.json', 'utf8')).map((item) => item.path.join('.'))
    for (const field of [
      'reply.sender.name',
      'reply.sender.email',
      'reply.subject',
      'reply.paragraphs.0',
      'documents.list.0.file',
      'reply.signature.0',
      'reply.brokerage.phone',
      'reply.unsubscribe.pageTitle',
    ]) {
      expect(items, field).toContain(field)
    }
  })

  it('starts from another launch with --from, and says which launches there are for an unknown one', () => {
    expect(newLaunch(project, ['first']).code).toBe(0)
    const { code, out } = newLaunch(project, ['second', '--from', 'first'])
    expect(code).toBe(0)
    expect(out).toContain('(a copy of launches/first/page.config.json)')
    expect(loadPageConfig(path.join(project, 'launches/second/page.config.json')).seo.canonicalUrl).toBe(
      'https://second.example.com/',
    )
    const unknown = newLaunch(project, ['third', '--from', 'frist'])
    expect(unknown.code).toBe(1)
    expect(unknown.out).toContain(
      'There is no launch named "frist". The launches are: willowmere-commons, first, second.',
    )
    expect(unknown.out).not.toMatch(/^\s+at /m)
    expect(existsSync(path.join(project, 'launches/third'))).toBe(false)
  })

  it('starts from the config PAGE_CONFIG names', () => {
    expect(newLaunch(project, ['first']).code).toBe(0)
    const { code, out } = newLaunch(project, ['second'], { PAGE_CONFIG: 'launches/first/page.config.json' })
    expect(code).toBe(0)
    expect(out).toContain('(a copy of launches/first/page.config.json)')
    expect(JSON.parse(readFileSync(path.join(project, 'launches/second/page.config.json'), 'utf8')).$schema).toBe(
      '../../schema/page-config.schema.json',
    )
  })

  it('refuses to overwrite an existing launch, and leaves it as it was', () => {
    newLaunch(project, ['maple-hollow'])
    const configFile = path.join(project, 'launches/maple-hollow/page.config.json')
    const before = readFileSync(configFile, 'utf8')
    const { code, out } = newLaunch(project, ['maple-hollow'])
    expect(code).toBe(1)
    expect(out).toContain('launches/maple-hollow already exists, and a launch is never overwritten.')
    expect(readFileSync(configFile, 'utf8')).toBe(before)
  })

  it('refuses the name of the default launch, which would clash with it', () => {
    const { code, out } = newLaunch(project, ['willowmere-commons'])
    expect(code).toBe(1)
    expect(out).toContain(
      'page.config.json is already the launch named "willowmere-commons": two launches cannot share a name',
    )
    expect(existsSync(path.join(project, 'launches'))).toBe(false)
  })

  it('refuses a name that cannot be a folder, and explains usage without a name', () => {
    const bad = newLaunch(project, ['Maple Hollow'])
    expect(bad.code).toBe(1)
    expect(bad.out).toContain('"Maple Hollow" cannot be a launch name')
    const none = newLaunch(project, [])
    expect(none.code).toBe(1)
    expect(none.out).toContain('Usage: npm run new-launch -- <name>')
    expect(existsSync(path.join(project, 'launches'))).toBe(false)
    expect(`${bad.out}${none.out}`).not.toMatch(/^\s+at /m)
  })
})
