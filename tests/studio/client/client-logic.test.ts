import { describe, expect, it } from 'vitest'
import type { ClientPageConfig } from '../../../schema/page-config.ts'
import { hrefOf, routeOf } from '../../../src/studio/client/routes.ts'
import { withStudioImages } from '../../../src/studio/client/preview-config.ts'
import { launchImagesBase } from '../../../src/studio/client/api.ts'
import { diffLines } from '../../../src/studio/client/views/History.tsx'
import { fitFrames } from '../../../src/studio/client/views/PreviewFrames.tsx'
import { slugOf } from '../../../src/studio/protocol.ts'

describe('routeOf and hrefOf', () => {
  it('reads the places the server serves the app shell at, and writes them back', () => {
    expect(routeOf('/studio/')).toEqual({ view: 'launches' })
    expect(routeOf('/studio/launches/maple-ridge')).toEqual({ view: 'launch', slug: 'maple-ridge' })
    expect(routeOf('/studio/', '?view=people')).toEqual({ view: 'people' })
    expect(routeOf('/studio/', '?view=nonsense')).toEqual({ view: 'launches' })
    for (const route of [
      { view: 'launch', slug: 'a-b' },
      { view: 'audit' },
      { view: 'new-launch' },
      { view: 'launches' },
    ] as const) {
      const url = new URL(hrefOf(route), 'http://x')
      expect(routeOf(url.pathname, url.search)).toEqual(route)
    }
  })
})

describe('withStudioImages', () => {
  it("points the draft's pictures at the studio's image endpoint and leaves other addresses alone", () => {
    const config = {
      header: { logo: { src: '/images/logo.svg' } },
      sections: [{ href: '#register', image: { src: '/images/a b.jpg' } }],
      site: { url: 'https://example.com/images/x.png' },
    }
    const shown = withStudioImages(
      config as unknown as ClientPageConfig,
      launchImagesBase('maple-ridge'),
    ) as unknown as typeof config
    expect(shown.header.logo.src).toBe('/studio/api/launches/maple-ridge/images/logo.svg')
    expect(shown.sections[0]!.image.src).toBe('/studio/api/launches/maple-ridge/images/a%20b.jpg')
    expect(shown.sections[0]!.href).toBe('#register')
    expect(shown.site.url).toBe('https://example.com/images/x.png')
  })
})

describe('diffLines', () => {
  it('marks added, removed and context lines, dropping the file headers', () => {
    const lines = diffLines(
      'Index: page.config.json\n===================================================================\n--- a\n+++ b\n@@ -1,2 +1,2 @@\n {\n-  "heading": "Old"\n+  "heading": "New"',
    )
    expect(lines.map((l) => l.kind)).toEqual(['hunk', 'same', 'remove', 'add'])
  })
})

describe('fitFrames', () => {
  it('puts the frames side by side when the pane is wide, the phone at a readable scale', () => {
    const fit = fitFrames(1000, 700)
    expect(fit.stacked).toBe(false)
    expect(390 * fit.scales[0]! + 1280 * fit.scales[1]! + 12).toBeLessThanOrEqual(1000)
    expect(fit.scales[0]).toBeGreaterThan(fit.scales[1]!)
  })

  it('stacks them, each as wide as the pane, on a phone', () => {
    const fit = fitFrames(360, 700)
    expect(fit.stacked).toBe(true)
    expect(fit.scales.map((s, i) => Math.round(s * [390, 1280][i]!))).toEqual([360, 360])
  })
})

describe('slugOf', () => {
  it('makes a slug of a development name', () => {
    expect(slugOf('Maple Ridge')).toBe('maple-ridge')
    expect(slugOf('  Côte-Saint-Luc  Estates! ')).toBe('cote-saint-luc-estates')
  })
})
