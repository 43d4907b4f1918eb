import { spawnSync } from 'node:child_process'
import { rmSync } from 'node:fs'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { checkImages, listConfigImages } from '../../src/config/config-files.ts'
import { copySecondLaunch } from '../fixtures/second-launch.ts'

// Issue 42 item 3: an editor limited to one launch published "/../../x/public/images/unreleased-plan.png" (another
// launch's unpublished picture). The schema allowed "..", and the checker skipped a path outside public/ instead of
// refusing it. `npm run validate` must refuse every picture field that climbs out, with file and line.

const root = path.resolve(import.meta.dirname, '../..')
const tsx = path.join(root, 'node_modules/.bin/tsx')
const script = path.join(root, 'src/cli/validate.ts')
const copies: string[] = []
afterAll(() => copies.forEach((dir) => rmSync(dir, { recursive: true, force: true })))

const climbing = {
  "another launch's picture": '/../../x/public/images/unreleased-plan.png',
  'an absolute escape': `${'/..'.repeat(30)}/etc/ssl/escape.png`,
  'a "." part': '/images/./hero.jpg',
  'an empty part': '//tmp/escape.png',
}

/** A copy of the second launch whose every picture field is `src`; its file, text and the lines of those fields. */
function everyPictureAt(src: string): { file: string; lines: number[]; fields: number } {
  const launch = copySecondLaunch((text) => {
    const config = JSON.parse(text) as unknown
    for (const image of listConfigImages(config)) {
      let at = config as Record<string | number, unknown>
      for (const step of image.path) at = at[step] as Record<string | number, unknown>
      at.src = src
    }
    return `${JSON.stringify(config, null, 2)}\n`
  })
  copies.push(launch.dir)
  const lines = launch.text
    .split('\n')
    .flatMap((line, i) => (line.includes(`"src": ${JSON.stringify(src)}`) ? [i + 1] : []))
  return { file: launch.file, lines, fields: listConfigImages(JSON.parse(launch.text)).length }
}

describe('npm run validate of pictures that climb out of the launch', () => {
  for (const [name, src] of Object.entries(climbing)) {
    it(`refuses ${name} in every picture field, with file and line`, () => {
      const { file, lines, fields } = everyPictureAt(src)
      expect(fields).toBeGreaterThanOrEqual(7)
      expect(lines).toHaveLength(fields)
      const result = spawnSync(tsx, [script, file], { cwd: root, encoding: 'utf8' })
      const out = `${result.stdout}${result.stderr}`
      expect(result.status).toBe(1)
      for (const line of lines) expect(out).toMatch(new RegExp(`${file.replaceAll('.', '\\.')}:${line}:\\d+\\n`))
      expect(out.match(/climbs out of the launch's public\/ folder/g)).toHaveLength(fields)
      expect(out).toContain(`${fields} problems`)
    })
  }
})

describe("the checker's own look at pictures (the schema aside)", () => {
  it('refuses a path outside public/ instead of skipping it', () => {
    const launch = copySecondLaunch()
    copies.push(launch.dir)
    const data = { header: { logo: { src: '/../../x/public/images/unreleased-plan.png', alt: 'Plan' } } }
    const findings = checkImages(data, path.join(launch.dir, 'public'))
    expect(findings.map((f) => [f.at.join('.'), f.message])).toEqual([
      [
        'header.logo.src',
        "header.logo.src '/../../x/public/images/unreleased-plan.png' climbs out of the launch's public/ folder: a picture must be one of this launch's own files.",
      ],
    ])
  })
})
