import { cpSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { checkPageConfigFile, checkPageConfigText, type Problem } from '../../src/config/check-page-config.ts'
import {
  copySecondLaunch,
  positionOf,
  replaceOnce,
  secondLaunchConfig,
  secondLaunchDir,
} from '../fixtures/second-launch.ts'

const v2Keys = '  "configVersion": 2,\n  "launch": { "slug": "willowmere-commons" },\n'

function only(problems: Problem[]): Problem {
  expect(problems.map((p) => p.message)).toHaveLength(1)
  return problems[0]!
}

/** The second launch placed at <project>/launches/<folder>/page.config.json, with `edit` applied. */
function inLaunchFolder(
  folder: string,
  edit: (text: string) => string = (t) => t,
): { project: string; file: string; text: string } {
  const project = mkdtempSync(path.join(tmpdir(), 'launch-folder-'))
  const dir = path.join(project, 'launches', folder)
  mkdirSync(dir, { recursive: true })
  cpSync(path.join(secondLaunchDir, 'public'), path.join(dir, 'public'), { recursive: true })
  const text = edit(readFileSync(secondLaunchConfig, 'utf8'))
  const file = path.join(dir, 'page.config.json')
  writeFileSync(file, text)
  return { project, file, text }
}

describe('the config format version', () => {
  it('says once, at line 1, that a config without configVersion is written for version 1, and how to migrate it', () => {
    // Without the two keys the schema alone would also say "launch" and "configVersion" are missing.
    const { file } = copySecondLaunch((t) => replaceOnce(t, v2Keys, ''))
    const problem = only(checkPageConfigFile(file).problems)
    expect([problem.line, problem.column]).toEqual([1, 1])
    expect(problem.message).toBe(
      'This file is written for version 1 of the config format (it has no "configVersion"), and this code reads version 2.',
    )
    expect(problem.fix).toBe(
      `Run npm run migrate -- ${file}: it updates the file to version 2 and keeps your text and order. Then check it again with npm run validate.`,
    )
  })

  it('points at a stated older version, and gives a launch in launches/ its --launch command', () => {
    const { project, file, text } = inLaunchFolder('willowmere-commons', (t) =>
      replaceOnce(t, '"configVersion": 2', '"configVersion": 1'),
    )
    const cwd = process.cwd()
    process.chdir(project)
    try {
      const problem = only(checkPageConfigFile(file).problems)
      expect([problem.line, problem.column]).toEqual(Object.values(positionOf(text, '1,')))
      expect(problem.where).toBe('configVersion')
      expect(problem.message).toBe(
        'This file is written for version 1 of the config format, and this code reads version 2.',
      )
      expect(problem.fix).toContain(
        'Run npm run migrate -- --launch willowmere-commons: it updates the file to version 2',
      )
    } finally {
      process.chdir(cwd)
    }
  })

  it('says the code is older than a file written for a newer format', () => {
    const { problems } = checkPageConfigFile(
      copySecondLaunch((t) => replaceOnce(t, '"configVersion": 2', '"configVersion": 3')).file,
    )
    const problem = only(problems)
    expect(problem.line).toBe(3)
    expect(problem.message).toBe(
      'This file is written for version 3 of the config format, but this code reads only up to version 2: the code is older than the file.',
    )
    expect(problem.fix).toContain('Update the code')
  })

  it('is what the editor shows too (the same checker on the text)', () => {
    const text = replaceOnce(readFileSync(secondLaunchConfig, 'utf8'), v2Keys, '')
    const problem = only(checkPageConfigText(text, secondLaunchConfig, path.join(secondLaunchDir, 'public')))
    expect(problem.message).toContain('written for version 1 of the config format')
  })
})

describe('a launch in launches/<folder>/', () => {
  it('is valid when launch.slug is its folder name', () => {
    const { file } = inLaunchFolder('willowmere-commons')
    expect(checkPageConfigFile(file).problems).toEqual([])
  })

  it('must be named after its folder: a problem at the slug saying what to write', () => {
    const { file, text } = inLaunchFolder('maple-ridge')
    const problem = only(checkPageConfigFile(file).problems)
    expect([problem.line, problem.column]).toEqual(Object.values(positionOf(text, '"willowmere-commons"')))
    expect(problem.where).toBe('launch.slug')
    expect(problem.message).toBe(
      "launch.slug is 'willowmere-commons', but this launch is in the folder launches/maple-ridge/: a launch in launches/ is named after its folder.",
    )
    expect(problem.fix).toBe(
      'Write "slug": "maple-ridge" (or, if "willowmere-commons" is the name you want, rename the folder to launches/willowmere-commons/).',
    )
  })

  it('does not apply outside launches/: the default launch names itself', () => {
    expect(
      checkPageConfigFile(copySecondLaunch((t) => replaceOnce(t, '"willowmere-commons"', '"anything-else"')).file)
        .problems,
    ).toEqual([])
  })
})
