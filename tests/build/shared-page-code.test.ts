import { readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildLaunches } from '../../src/cli/build.ts'
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
    const launchLines = firstLog.filter((line) => / built .* \(page code [0-9a-f]+ (reused|built)\)$/.test(line))
    expect(launchLines).toHaveLength(3)
    const fingerprints = new Set(launchLines.map((line) => /page code ([0-9a-f]+)/.exec(line)?.[1]))
    expect(fingerprints.size).toBe(1)
    expect(launchLines.slice(1).every((line) => line.endsWith('reused)'))).toBe(true)
  })

  it("gives every launch the same page code, byte for byte, but for each launch's own form validator", () => {
    const cedar = assetsOf('cedar-row')
    const aspen = assetsOf('aspen-hill')
    const isValidator = (name: string) => /^form-validator-[0-9a-f]{10}\.js(\.br|\.gz)?$/.test(name)
    const shared = [...cedar.keys()].filter((name) => !isValidator(name)).sort()
    expect(shared.length).toBeGreaterThan(10)
    expect([...aspen.keys()].filter((name) => !isValidator(name)).sort()).toEqual(shared)
    for (const name of shared) expect(aspen.get(name)!.equals(cedar.get(name)!), name).toBe(true)
    // Their forms differ (one maxLength), so their validators do; each page names its own.
    const validatorOf = (slug: string) => [...assetsOf(slug).keys()].filter((name) => /^form-validator-.*\.js$/.test(name))
    expect(validatorOf('cedar-row')).toHaveLength(1)
    expect(validatorOf('aspen-hill')).toHaveLength(1)
    expect(validatorOf('aspen-hill')).not.toEqual(validatorOf('cedar-row'))
    for (const slug of ['cedar-row', 'aspen-hill']) {
      expect(readFileSync(path.join(siteOf(slug), 'index.html'), 'utf8')).toContain(`"formValidator":"/assets/${validatorOf(slug)[0]}"`)
    }
  })

  it("rebuilds only the changed launch after a config-only change, reusing the page code, and leaves the others' files as they were", async () => {
    const cedarHome = path.join(siteOf('cedar-row'), 'index.html')
    const before = statSync(cedarHome)
    const configFile = path.join(project, 'launches', 'aspen-hill', 'page.config.json')
    writeFileSync(configFile, readFileSync(configFile, 'utf8').replace('"name": "Willowmere Commons"', '"name": "Aspen Hill"'))
    const log: string[] = []
    const built = await buildLaunches({ root: project, env, settings, launch: 'aspen-hill', log: (line) => log.push(line) })
    expect(built.launches.map((launch) => launch.slug)).toEqual(['aspen-hill'])
    expect(log.find((line) => line.startsWith('aspen-hill: built'))).toMatch(/\(page code [0-9a-f]+ reused\)$/)
    expect(readFileSync(path.join(siteOf('aspen-hill'), 'index.html'), 'utf8')).toContain('Aspen Hill')
    const after = statSync(cedarHome)
    expect([after.ino, after.mtimeMs]).toEqual([before.ino, before.mtimeMs])
  }, 200_000)
})
