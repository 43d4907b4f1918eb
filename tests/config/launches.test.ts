import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { findLaunches, LaunchesError, loadLaunches } from '../../src/config/launches.ts'
import { makeLaunchesProject } from '../fixtures/launches-project.ts'
import { positionOf, replaceOnce, secondLaunchConfig } from '../fixtures/second-launch.ts'

const fixture = readFileSync(secondLaunchConfig, 'utf8')

function loadError(project: string): LaunchesError {
  try {
    loadLaunches(findLaunches(project, {}))
  } catch (error) {
    if (error instanceof LaunchesError) return error
    throw error
  }
  throw new Error('the launches loaded')
}

describe('loadLaunches', () => {
  it('loads launches that each have their own name and address, default first', () => {
    const project = makeLaunchesProject({ 'maple-ridge': (t) => t, 'cedar-row': (t) => t })
    expect(loadLaunches(findLaunches(project, {})).map((launch) => [launch.slug, launch.isDefault])).toEqual([
      ['willowmere-commons', true],
      ['cedar-row', false],
      ['maple-ridge', false],
    ])
  })

  it('refuses two launches on the same host, naming both files and lines', () => {
    const project = makeLaunchesProject(
      {
        'maple-ridge': (t) =>
          replaceOnce(
            t,
            '"slug": "maple-ridge"',
            '"slug": "maple-ridge", "origins": ["https://WWW.Willowmere.example.org"]',
          ),
      },
      (t) =>
        replaceOnce(
          t,
          '"slug": "willowmere-commons"',
          '"slug": "willowmere-commons", "origins": ["https://www.willowmere.example.org"]',
        ),
    )
    const error = loadError(project)
    expect(error.errors).toHaveLength(1)
    const file = path.join(project, 'launches/maple-ridge/page.config.json')
    const line = positionOf(readFileSync(file, 'utf8'), '"origins"').line
    expect(error.errors[0]!.file).toBe(file)
    expect(error.message).toContain(
      `${file}:${line}\n  launch.origins[0] is an address on www.willowmere.example.org, and so is launch.origins[0] of another launch (${path.join(project, 'page.config.json')}:${line}).`,
    )
    expect(error.message).toContain('the server could not tell which page to show there')
    expect(error.message).toContain(
      'What to do: Give each launch its own address. A new launch that is not online yet can use https://maple-ridge.example.com/',
    )
  })

  it('refuses a launch whose canonical address is another launch’s', () => {
    const project = makeLaunchesProject({
      'maple-ridge': (t) => replaceOnce(t, '"https://maple-ridge.example.com/"', '"https://willowmere.example.org/"'),
    })
    expect(loadError(project).message).toContain(
      'seo.canonicalUrl is an address on willowmere.example.org, and so is seo.canonicalUrl of another launch',
    )
  })

  it('still refuses two launches with one name, naming both files', () => {
    const project = makeLaunchesProject({}, (t) =>
      replaceOnce(t, '"slug": "willowmere-commons"', '"slug": "maple-ridge"'),
    )
    const dir = path.join(project, 'launches/maple-ridge')
    mkdirSync(dir, { recursive: true })
    cpSync(path.join(project, 'public'), path.join(dir, 'public'), { recursive: true })
    writeFileSync(
      path.join(dir, 'page.config.json'),
      replaceOnce(
        replaceOnce(fixture, '"willowmere-commons"', '"maple-ridge"'),
        '"canonicalUrl": "https://willowmere.example.org/"',
        '"canonicalUrl": "https://maple-ridge.example.com/"',
      ),
    )
    expect(loadError(project).message).toContain(
      `Two launches are named "maple-ridge": ${path.join(dir, 'page.config.json')} and ${path.join(project, 'page.config.json')}.`,
    )
  })
})
