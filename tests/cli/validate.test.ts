import { spawnSync } from 'node:child_process'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { copySecondLaunch, positionOf, replaceOnce, secondLaunchConfig } from '../fixtures/second-launch.ts'

const root = path.resolve(import.meta.dirname, '../..')
const tsx = path.join(root, 'node_modules/.bin/tsx')
const script = path.join(root, 'src/cli/validate.ts')

function validate(args: string[], env: Record<string, string> = {}, cwd = root): { code: number | null; out: string } {
  const { PAGE_CONFIG: _ignored, ...inherited } = process.env
  const result = spawnSync(tsx, [script, ...args], { cwd, env: { ...inherited, ...env }, encoding: 'utf8' })
  return { code: result.status, out: `${result.stdout}${result.stderr}` }
}

describe('npm run validate', () => {
  it('prints "✓ <file> is valid" and exits 0 for a valid config', () => {
    const { code, out } = validate([path.relative(root, secondLaunchConfig)])
    expect(out.trim()).toBe('✓ tests/fixtures/second-launch/page.config.json is valid')
    expect(code).toBe(0)
  })

  it('checks the file PAGE_CONFIG names when given no path', () => {
    const { code, out } = validate([], { PAGE_CONFIG: 'tests/fixtures/second-launch/page.config.json' })
    expect(out).toContain('✓ tests/fixtures/second-launch/page.config.json is valid')
    expect(code).toBe(0)
  })

  it('defaults to ./page.config.json in the current folder', () => {
    const { dir } = copySecondLaunch()
    const { code, out } = validate([], {}, dir)
    expect(out.trim()).toBe('✓ page.config.json is valid')
    expect(code).toBe(0)
  })

  it('prints each problem with file:line:column, the excerpt and the fix, and exits 1', () => {
    const { file, text } = copySecondLaunch((t) => replaceOnce(replaceOnce(t, '"type": "hero"', '"type": "hero2"'), '"href": "#homes"', '"href": "#home"'))
    const { code, out } = validate([file])
    const hero = positionOf(text, '"hero2"')
    const link = positionOf(text, '"#home"')
    expect(code).toBe(1)
    expect(out).toContain(`${file}:${link.line}:${link.column}\n`)
    expect(out).toContain(`${file}:${hero.line}:${hero.column}\n`)
    expect(out).toContain("sections[0].type 'hero2' is not a section type; did you mean 'hero'? The types are: hero, feature,")
    expect(out).toContain(`> ${hero.line} |       "type": "hero2",`)
    expect(out).toContain("did you mean '#homes'?")
    expect(out).toContain('What to do:')
    expect(out).toContain('2 problems')
  })

  it('explains a JSON syntax error without a stack trace', () => {
    const { file } = copySecondLaunch((t) => replaceOnce(t, '"closeLabel": "Dismiss"', '"closeLabel": "Dismiss",'))
    const { code, out } = validate([file])
    expect(code).toBe(1)
    expect(out).toContain('There is a comma right before "}"')
    expect(out).not.toMatch(/^\s+at /m)
    expect(out).not.toContain('Error:')
  })

  it('says so in plain words when the file does not exist', () => {
    const { code, out } = validate(['no/such/page.config.json'])
    expect(code).toBe(1)
    expect(out).toContain('no/such/page.config.json:1:1')
    expect(out).toContain('There is no file here.')
    expect(out).not.toMatch(/^\s+at /m)
  })
})
