import { readFileSync, rmSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { PageConfig } from '../../schema/page-config.ts'
import { buildSite } from '../../src/cli/build.ts'
import { readBuildSettings } from '../../src/server/env.ts'
import { copySecondLaunch } from '../fixtures/second-launch.ts'

// String.prototype.replace expands $` $' $& in a replacement string: a config text ending in $` used to paste the
// template's head into the page (a second #root). The built pages must carry every config text as written.

const description = "DX$`DY$'DZ$&DW"
const copyright = "© {year} D1$`D2$'D3$&D4 Lakeside Realty Group Inc., Brokerage."
const out = mkdtempSync(path.join(tmpdir(), 'dollar-patterns-'))
const launch = copySecondLaunch()

beforeAll(async () => {
  // The checker asks for 50 characters of description: the build is given the config object, as the studio's is.
  const config = JSON.parse(readFileSync(launch.file, 'utf8')) as PageConfig
  config.seo.description = description
  config.footer.copyright = copyright
  await buildSite(launch.file, out, readBuildSettings({}), config)
}, 300_000)

afterAll(() => {
  rmSync(out, { recursive: true, force: true })
  rmSync(launch.dir, { recursive: true, force: true })
})

describe('a config text with $ patterns, built', () => {
  const page = () => readFileSync(path.join(out, 'index.html'), 'utf8')

  it('gives the meta description exactly as written, and one #root', () => {
    const html = page()
    const meta = /<meta name="description" content="([^"]*)"/.exec(html)?.[1]
    expect(meta?.replaceAll('&#39;', "'").replaceAll('&amp;', '&')).toBe(description)
    expect(html.match(/id="root"/g)).toHaveLength(1)
  })

  it("gives the footer's copyright line exactly as written, its {year} filled", () => {
    const footer = /<footer[^]*<\/footer>/.exec(page())?.[0] ?? ''
    const expected = copyright.replace('{year}', () => String(new Date().getFullYear()))
    expect(footer.replaceAll('&#x27;', "'").replaceAll('&#39;', "'").replaceAll('&amp;', '&')).toContain(expected)
  })
})
