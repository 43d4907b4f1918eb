import { readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildLaunches } from '../../src/cli/build.ts'
import { readBundleEntries } from '../../src/build/function-bundle.ts'
import { listFiles, loadPageCode } from '../../src/build/page-code.ts'
import { readBuildSettings } from '../../src/server/env.ts'
import { makeLaunchesProject } from '../fixtures/launches-project.ts'
import { replaceOnce } from '../fixtures/second-launch.ts'

// Building several launches shares one build of the page code (src/build/page-code.ts): only each launch's config,
// images, prerendered pages and form validator are its own. A config-only change rebuilds neither the code nor the
// other launches.

const project = makeLaunchesProject({
  'cedar-row': (text) => text,
  'aspen-hill': (text) => replaceOnce(text, '"maxLength": 80', '"maxLength": 79'),
})
const env = { DIST_DIR: path.join(project, 'dist') } as NodeJS.ProcessEnv
const settings = readBuildSettings(env)
const siteOf = (slug: string) => path.join(project, 'dist', slug)

/** Every file of a launch's site (its path in the site, its inode and mtime): what a rebuild of it would change. */
function filesOf(slug: string): Map<string, [number, number]> {
  return new Map(
    listFiles(siteOf(slug)).map((file) => [
      path.relative(siteOf(slug), file),
      [statSync(file).ino, statSync(file).mtimeMs],
    ]),
  )
}

const isValidator = (name: string) => /^form-validator-[0-9a-f]{10}\.js(\.br|\.gz)?$/.test(name)

/** Every file under a launch's assets/, by name, with its bytes. */
function assetsOf(slug: string): Map<string, Buffer> {
  const dir = path.join(siteOf(slug), 'assets')
  return new Map(readdirSync(dir).map((name) => [name, readFileSync(path.join(dir, name))]))
}

let firstLog: string[] = []

beforeAll(async () => {
  firstLog = []
  const built = await buildLaunches({ root: project, env, settings, log: (line) => firstLog.push(line) })
  expect(built.broken.map((launch) => launch.message)).toEqual([])
}, 400_000)

afterAll(() => rmSync(project, { recursive: true, force: true }))

describe('a build of several launches', () => {
  it('builds the page code at most once, and every launch after the first reuses it', () => {
    const launchLines = firstLog.filter((line) =>
      / built .* \(page code [0-9a-f]+ (reused|built); picture variants: \d+ reused, \d+ made\)$/.test(line),
    )
    expect(launchLines).toHaveLength(3)
    const fingerprints = new Set(launchLines.map((line) => /page code ([0-9a-f]+)/.exec(line)?.[1]))
    expect(fingerprints.size).toBe(1)
    // At most one launch made it (two are built at a time: the other waited for that build and reused it).
    expect(launchLines.filter((line) => line.includes(' built; picture variants')).length).toBeLessThanOrEqual(1)
  })

  it("gives every launch the same page code, byte for byte, but for each launch's own form validator", () => {
    const cedar = assetsOf('cedar-row')
    const aspen = assetsOf('aspen-hill')
    const shared = [...cedar.keys()].filter((name) => !isValidator(name)).sort()
    expect(shared.length).toBeGreaterThan(10)
    expect([...aspen.keys()].filter((name) => !isValidator(name)).sort()).toEqual(shared)
    for (const name of shared) expect(aspen.get(name)!.equals(cedar.get(name)!), name).toBe(true)
    // Their forms differ (one maxLength), so their validators do; each page names its own.
    const validatorOf = (slug: string) =>
      [...assetsOf(slug).keys()].filter((name) => /^form-validator-.*\.js$/.test(name))
    expect(validatorOf('cedar-row')).toHaveLength(1)
    expect(validatorOf('aspen-hill')).toHaveLength(1)
    expect(validatorOf('aspen-hill')).not.toEqual(validatorOf('cedar-row'))
    for (const slug of ['cedar-row', 'aspen-hill']) {
      expect(readFileSync(path.join(siteOf(slug), 'index.html'), 'utf8')).toContain(
        `"formValidator":"/assets/${validatorOf(slug)[0]}"`,
      )
    }
  })

  it("puts every file of the page code in every launch as it was built, and nothing else in assets/ but the launch's validator", async () => {
    const code = await loadPageCode(settings)
    const codeFiles = listFiles(code.clientDir).map((file) => path.relative(code.clientDir, file))
    expect(codeFiles.length).toBeGreaterThan(10)
    for (const slug of ['cedar-row', 'aspen-hill', 'willowmere-commons']) {
      for (const name of codeFiles)
        expect(
          readFileSync(path.join(siteOf(slug), name)).equals(readFileSync(path.join(code.clientDir, name))),
          `${slug}: ${name}`,
        ).toBe(true)
      const extra = [...assetsOf(slug).keys()].filter((name) => !codeFiles.includes(path.join('assets', name)))
      expect(extra.length, slug).toBeGreaterThan(0)
      expect(
        extra.filter((name) => !isValidator(name)),
        slug,
      ).toEqual([])
    }
  })

  it("rebuilds only the changed launch after a config-only change, reusing the page code and its pictures, and leaves the others' files as they were", async () => {
    const before = {
      cedar: filesOf('cedar-row'),
      willowmere: filesOf('willowmere-commons'),
      entries: readBundleEntries(project).entries,
    }
    expect(before.cedar.size).toBeGreaterThan(50)
    const configFile = path.join(project, 'launches', 'aspen-hill', 'page.config.json')
    writeFileSync(
      configFile,
      readFileSync(configFile, 'utf8').replace('"name": "Willowmere Commons"', '"name": "Aspen Hill"'),
    )
    const log: string[] = []
    const built = await buildLaunches({
      root: project,
      env,
      settings,
      launch: 'aspen-hill',
      log: (line) => log.push(line),
    })
    expect(built.launches.map((launch) => launch.slug)).toEqual(['aspen-hill'])
    // The build says what it reused: the page code, and every picture variant (the pictures did not change).
    const line = log.find((l) => l.startsWith('aspen-hill: built')) ?? ''
    expect(line).toMatch(/\(page code [0-9a-f]+ reused; picture variants: [1-9]\d* reused, 0 made\)$/)
    expect(log.filter((l) => / built /.test(l))).toEqual([line])
    expect(readFileSync(path.join(siteOf('aspen-hill'), 'index.html'), 'utf8')).toContain('Aspen Hill')
    // The other launches: not a file written again, and their entries in the function's bundle as they were.
    expect(filesOf('cedar-row')).toEqual(before.cedar)
    expect(filesOf('willowmere-commons')).toEqual(before.willowmere)
    const entries = readBundleEntries(project).entries
    for (const slug of ['cedar-row', 'willowmere-commons'])
      expect(entries.get(slug), slug).toEqual(before.entries.get(slug))
    expect(entries.get('aspen-hill')).not.toEqual(before.entries.get('aspen-hill'))
  }, 200_000)
})
