import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import type { PageConfig } from '../../schema/page-config.ts'
import { buildSite } from '../../src/cli/build.ts'
import { readBuildSettings } from '../../src/server/env.ts'
import { copySecondLaunch } from '../fixtures/second-launch.ts'

// Issue 42 item 3: the build joined a picture's path unchecked, so a config naming "/../../…" made it read another
// folder's picture and write its .avif/.webp files outside the project. Built here with the checker bypassed (the
// config object handed to the build): the build must refuse the picture and write nothing outside the launch's folder.

const outside = mkdtempSync(path.join(tmpdir(), 'outside-the-launch-'))
const launch = copySecondLaunch()
const dist = mkdtempSync(path.join(tmpdir(), 'climbing-dist-'))
afterAll(() => [outside, launch.dir, dist].forEach((dir) => rmSync(dir, { recursive: true, force: true })))

const listAll = (dir: string): string[] =>
  readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.join(entry.parentPath, entry.name))
    .sort()

describe('a build of a config whose picture climbs out of the launch', () => {
  it('refuses the picture and writes nothing beside it', async () => {
    // Another launch's unpublished picture, reached from this launch's public/ by climbing to the root and down again.
    const folder = path.join(outside, 'x', 'public', 'images')
    mkdirSync(folder, { recursive: true })
    copyFileSync(path.join(launch.dir, 'public/images/hero.jpg'), path.join(folder, 'unreleased-plan.png'))
    const before = listAll(outside)
    const config = JSON.parse(readFileSync(launch.file, 'utf8')) as PageConfig
    config.header.logo.src = `${'/..'.repeat(40)}${folder}/unreleased-plan.png`

    await expect(buildSite(launch.file, dist, readBuildSettings({}), config)).rejects.toThrow(/climbs out of/)
    expect(listAll(outside)).toEqual(before)
    expect(listAll(dist).filter((file) => file.includes('unreleased-plan'))).toEqual([])
  }, 300_000)
})
