import { spawnSync } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { beforeEach, describe, expect, it } from 'vitest'
import { checkPageConfigFile } from '../../src/config/check-page-config.ts'
import { secondLaunchDir } from '../fixtures/second-launch.ts'

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

function newLaunch(cwd: string, args: string[], env: Record<string, string> = {}): { code: number | null; out: string } {
  const { PAGE_CONFIG: _ignored, ...inherited } = process.env
  const result = spawnSync(tsx, [script, ...args], { cwd, env: { ...inherited, ...env }, encoding: 'utf8' })
  return { code: result.status, out: `${result.stdout}${result.stderr}` }
}

describe('npm run new-launch', () => {
  let project: string
  beforeEach(() => {
    project = makeProject()
  })

  it('copies the config with $schema pointing at the schema, and the images', () => {
    const { code } = newLaunch(project, ['maple-hollow'])
    expect(code).toBe(0)
    const configFile = path.join(project, 'launches/maple-hollow/page.config.json')
    const copy = JSON.parse(readFileSync(configFile, 'utf8')) as Record<string, unknown>
    const original = JSON.parse(readFileSync(path.join(project, 'page.config.json'), 'utf8')) as Record<string, unknown>
    expect(copy.$schema).toBe('../../schema/page-config.schema.json')
    expect(existsSync(path.resolve(path.dirname(configFile), copy.$schema as string))).toBe(true)
    expect({ ...copy, $schema: undefined }).toEqual({ ...original, $schema: undefined })
    expect(readdirSync(path.join(project, 'launches/maple-hollow/public/images')).sort()).toEqual(
      readdirSync(path.join(project, 'public/images')).sort(),
    )
    expect(checkPageConfigFile(configFile).problems).toEqual([])
  })

  it('prints the development-specific fields with their lines, then how to validate, dev, build and start', () => {
    const { out } = newLaunch(project, ['maple-hollow'])
    const text = readFileSync(path.join(project, 'launches/maple-hollow/page.config.json'), 'utf8')
    const lineOf = (needle: string): number => text.slice(0, text.indexOf(needle)).split('\n').length
    expect(out).toContain('✓ Created launches/maple-hollow/page.config.json (a copy of page.config.json)')
    expect(out).toMatch(new RegExp(`\\[ \\] line ${lineOf('"name": "Willowmere Commons"')} +site\\.name +Willowmere Commons`))
    for (const field of ['site.phone.dial', 'site.email', 'site.location', 'seo.canonicalUrl', 'seo.jsonLd.telephone', 'seo.jsonLd.email', 'seo.jsonLd.address.addressLocality', 'sections[0].image.src', 'sections[0].heading', 'footer.copyright']) {
      expect(out, field).toContain(` ${field} `)
    }
    expect(out).toContain('Then search the file for "Willowmere Commons"')
    for (const command of ['npm run validate', 'npm run dev', 'npm run build', 'npm start']) {
      expect(out).toContain(`PAGE_CONFIG=launches/maple-hollow/page.config.json ${command}`)
    }
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
    expect(out).toContain('launches/maple-hollow already exists, and new-launch never overwrites a launch.')
    expect(readFileSync(configFile, 'utf8')).toBe(before)
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
