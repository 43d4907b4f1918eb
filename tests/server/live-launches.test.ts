import { Hono } from 'hono'
import { describe, expect, it } from 'vitest'
import type { FunctionLaunch } from '../../schema/function-launch.ts'
import type { LaunchVersion } from '../../src/server/site/launch-version.ts'
import { createLiveLaunches, localSlugOf, type LiveLaunch } from '../../src/server/site/live-launches.ts'
import { unpublishedAnswer } from '../../src/server/site/unpublished-page.ts'

/** A version as the registry sees it: only its folder and contract matter here. */
function version(slug: string, name: string, distDir: string): LaunchVersion {
  const contract = { slug, site: { name }, origins: [`https://${slug}.example.com`] } as unknown as FunctionLaunch
  return {
    distDir,
    contract,
    home: '',
    pageCss: undefined,
    headers: async (_c, next) => next(),
    files: async () => new Response(distDir),
  }
}

const launch = (slug: string, isDefault: boolean, v?: LaunchVersion): LiveLaunch => ({
  slug,
  isDefault,
  configFile: `${slug}.json`,
  siteName: slug,
  version: v,
})

describe('live launches', () => {
  it('swaps a launch in one step: a snapshot read before the swap keeps the old version, the next read has the new', () => {
    const made: string[][] = []
    const live = createLiveLaunches(
      [launch('maple', false, version('maple', 'Maple', 'v1')), launch('home', true, version('home', 'Home', 'h1'))],
      (served) => {
        made.push(served.map((l) => `${l.slug}:${l.version.distDir}`))
        return new Hono()
      },
    )
    const before = live.current()
    const replaced = live.swap('maple', version('maple', 'Maple Ridge', 'v2'))
    expect(replaced?.distDir).toBe('v1')
    expect(before.get('maple')?.version?.distDir).toBe('v1')
    const after = live.current()
    expect(after.get('maple')?.version?.distDir).toBe('v2')
    expect(after.get('maple')?.siteName).toBe('Maple Ridge')
    expect(after.get('maple')?.previous?.distDir).toBe('v1')
    expect(after.get('home')).toBe(before.get('home'))
    // The function is made anew with every launch's current contract, the default launch first.
    expect(made).toEqual([
      ['home:h1', 'maple:v1'],
      ['home:h1', 'maple:v2'],
    ])
  })

  it('routes a launch without a version by its <slug>.localhost, and clears a problem once a version is swapped in', () => {
    const live = createLiveLaunches([launch('home', true, version('home', 'Home', 'h1'))], () => new Hono())
    expect(live.add({ ...launch('cedar', false), problem: { place: 'cedar.json:3', message: 'broken' } })).toBe(true)
    expect(live.add(launch('cedar', false))).toBe(false)
    const snapshot = live.current()
    expect(snapshot.launchOfHost('cedar.localhost:3000')).toBe('cedar')
    expect(snapshot.launchOfHost('elsewhere.example')).toBe('home')
    live.swap('cedar', version('cedar', 'Cedar', 'c1'))
    expect(live.current().get('cedar')?.problem).toBeUndefined()
    expect(live.current().launchOfHost('cedar.example.com')).toBe('cedar')
  })

  it('reads a launch name only from <name>.localhost', () => {
    expect(localSlugOf('maple-ridge.localhost:3000')).toBe('maple-ridge')
    expect(localSlugOf('Maple-Ridge.LOCALHOST')).toBe('maple-ridge')
    expect(localSlugOf('localhost:3000')).toBeUndefined()
    expect(localSlugOf('a.b.localhost')).toBeUndefined()
    expect(localSlugOf('maple.example.com')).toBeUndefined()
  })
})

describe('not published yet page', () => {
  it('answers 503 naming the launch, its name escaped, with no script allowed', async () => {
    const answer = unpublishedAnswer('Willow <script>alert(1)</script> & Co', 'GET')
    expect(answer.status).toBe(503)
    expect(answer.headers.get('content-security-policy')).toContain("default-src 'none'")
    const html = await answer.text()
    expect(html).toContain('<h1>Willow &lt;script&gt;alert(1)&lt;/script&gt; &amp; Co</h1>')
    expect(html).not.toContain('<script>')
  })
})
