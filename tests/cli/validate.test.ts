import { spawnSync } from 'node:child_process'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { readFileSync } from 'node:fs'
import { makeLaunchesProject } from '../fixtures/launches-project.ts'
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
    const { file, text } = copySecondLaunch((t) =>
      replaceOnce(replaceOnce(t, '"type": "hero"', '"type": "hero2"'), '"href": "#homes"', '"href": "#home"'),
    )
    const { code, out } = validate([file])
    const hero = positionOf(text, '"hero2"')
    const link = positionOf(text, '"#home"')
    expect(code).toBe(1)
    expect(out).toContain(`${file}:${link.line}:${link.column}\n`)
    expect(out).toContain(`${file}:${hero.line}:${hero.column}\n`)
    expect(out).toContain(
      "sections[0].type 'hero2' is not a section type; did you mean 'hero'? The types are: hero, feature,",
    )
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

  it('says in one plain problem that a config written before configVersion must be migrated, and how', () => {
    const { dir } = copySecondLaunch((t) =>
      replaceOnce(t, '  "configVersion": 2,\n  "launch": { "slug": "willowmere-commons" },\n', ''),
    )
    const { code, out } = validate([], {}, dir)
    expect(code).toBe(1)
    expect(out).toBe(
      [
        'page.config.json:1:1',
        '  > 1 | {',
        '      | ^',
        '    2 |   "$schema": "../../../schema/page-config.schema.json",',
        '  This file is written for version 1 of the config format (it has no "configVersion"), and this code reads version 2.',
        '  What to do: Run npm run migrate -- page.config.json: it updates the file to version 2 and keeps your text and order. Then check it again with npm run validate.',
        '',
        '✖ page.config.json: 1 problem. Fix it and run npm run validate again (docs/editing-guide.md explains each kind).',
        '',
      ].join('\n'),
    )
  })
})

describe('npm run validate with launches', () => {
  it('checks every launch with no argument, and says they are all valid', () => {
    const project = makeLaunchesProject({ 'maple-ridge': (t) => t, 'cedar-row': (t) => t })
    const { code, out } = validate([], {}, project)
    expect(out).toBe(
      '✓ page.config.json is valid\n✓ launches/cedar-row/page.config.json is valid\n✓ launches/maple-ridge/page.config.json is valid\n\n✓ All 3 launches are valid\n',
    )
    expect(code).toBe(0)
  })

  it("lists each broken launch's problems under its file, and exits 1", () => {
    const project = makeLaunchesProject({
      'maple-ridge': (t) => replaceOnce(t, '"slug": "maple-ridge"', '"slug": "maple-rigde"'),
      'cedar-row': (t) => replaceOnce(t, '"configVersion": 2', '"configVersion": 1'),
    })
    const { code, out } = validate([], {}, project)
    expect(code).toBe(1)
    const mapleText = readFileSync(`${project}/launches/maple-ridge/page.config.json`, 'utf8')
    const slug = positionOf(mapleText, '"maple-rigde"')
    expect(out).toContain('✓ page.config.json is valid')
    expect(out).toContain(`launches/maple-ridge/page.config.json:${slug.line}:${slug.column}\n`)
    expect(out).toContain(`  > ${slug.line} |   "launch": { "slug": "maple-rigde" },\n`)
    expect(out).toContain(
      "  launch.slug is 'maple-rigde', but this launch is in the folder launches/maple-ridge/: a launch in launches/ is named after its folder.\n",
    )
    expect(out).toContain(
      '  What to do: Write "slug": "maple-ridge" (or, if "maple-rigde" is the name you want, rename the folder to launches/maple-rigde/).',
    )
    expect(out).toContain('launches/cedar-row/page.config.json:3:20\n')
    expect(out).toContain('  This file is written for version 1 of the config format, and this code reads version 2.\n')
    expect(out).toContain('  What to do: Run npm run migrate -- --launch cedar-row: it updates the file to version 2')
    expect(out).toContain('✖ launches/maple-ridge/page.config.json: 1 problem.')
    expect(out).toContain('✖ launches/cedar-row/page.config.json: 1 problem.')
    expect(out).toContain('✖ 2 of 3 launches have problems.')
  })

  it('checks one launch with --launch, and names the launches there are for an unknown one', () => {
    const project = makeLaunchesProject({
      'maple-ridge': (t) => t,
      'cedar-row': (t) => replaceOnce(t, '"configVersion": 2', '"configVersion": 1'),
    })
    const one = validate(['--launch', 'maple-ridge'], {}, project)
    expect(one.out).toBe('✓ launches/maple-ridge/page.config.json is valid\n')
    expect(one.code).toBe(0)
    expect(validate(['--launch', 'willowmere-commons'], {}, project).out).toBe('✓ page.config.json is valid\n')
    const unknown = validate(['--launch', 'birch-lane'], {}, project)
    expect(unknown.code).toBe(1)
    expect(unknown.out).toContain(
      'There is no launch named "birch-lane". The launches are: willowmere-commons, cedar-row, maple-ridge.',
    )
  })

  it('refuses two launches on the same host, naming both files', () => {
    const project = makeLaunchesProject({
      'maple-ridge': (t) => replaceOnce(t, '"https://maple-ridge.example.com/"', '"https://willowmere.example.org/"'),
    })
    const { code, out } = validate([], {}, project)
    expect(code).toBe(1)
    const line = positionOf(readFileSync(`${project}/page.config.json`, 'utf8'), '"canonicalUrl"').line
    expect(out).toContain(
      `✖ launches/maple-ridge/page.config.json:${line}\n  seo.canonicalUrl is an address on willowmere.example.org, and so is seo.canonicalUrl of another launch (page.config.json:${line}).`,
    )
    expect(out).toContain('✖ Two launches share a name or an address.')
  })
})
