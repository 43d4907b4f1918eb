import { readFileSync } from 'node:fs'
import { renderToString } from 'react-dom/server'
import { describe, expect, it } from 'vitest'
import type { ClientPageConfig, PageConfig } from '../../schema/page-config.ts'
import { sectionSchemas } from '../../schema/sections.ts'
import { toClientConfig } from '../../src/build/client-config.ts'
import { App } from '../../src/page/App.tsx'
import { Picture } from '../../src/ui/Picture.tsx'
import { ImageVariantsContext } from '../../src/ui/image-variants-context.ts'
import { sectionRegistry } from '../../src/sections/registry.ts'

const full = JSON.parse(readFileSync('page.config.json', 'utf8')) as PageConfig

/** A small page: the real site facts, and just the sections a test gives. */
function pageWith(sections: PageConfig['sections']): ClientPageConfig {
  return toClientConfig({ ...full, sections })
}

describe('the section renderer', () => {
  it('renders sections in config order', () => {
    const html = renderToString(
      <App
        pathname="/"
        config={pageWith([
          {
            type: 'checklist',
            anchor: 'second-first',
            heading: 'Checklist heading',
            items: [{ title: 'One', text: 'First reason.' }],
          },
          { type: 'feature', anchor: 'then-feature', heading: 'Feature heading', body: ['A paragraph.'] },
        ])}
      />,
    )
    expect(html.indexOf('id="second-first"')).toBeGreaterThan(-1)
    expect(html.indexOf('id="second-first"')).toBeLessThan(html.indexOf('id="then-feature"'))
    expect(html).toContain('First reason.')
    expect(html).toContain('A paragraph.')
    expect(html).not.toContain('id="register"')
  })

  it('has a component for every section type in the schema', () => {
    expect(Object.keys(sectionRegistry).sort()).toEqual(Object.keys(sectionSchemas).sort())
  })

  it('gives each section its anchor as id and labels it by its heading', () => {
    const html = renderToString(
      <App
        pathname="/"
        config={pageWith([{ type: 'feature', anchor: 'overview', heading: 'Overview heading', body: ['x'] }])}
      />,
    )
    const labelledBy = /<section id="overview" aria-labelledby="([^"]+)"/.exec(html)?.[1]
    expect(labelledBy).toBeTruthy()
    expect(html).toContain(`id="${labelledBy}" class="section-heading mt-3">Overview heading</h2>`)
  })

  it('renders the not-found page for any other path', () => {
    const html = renderToString(<App pathname="/elsewhere" config={pageWith(full.sections)} />)
    expect(html).toContain(full.notFound.text)
    expect(html).toContain('href="/"')
    expect(html).not.toContain('<main id="main">')
  })
})

describe('Picture', () => {
  const image = { src: '/images/hero.jpg', alt: 'A street', width: 1600, height: 900 }

  it('renders a plain image with its intrinsic size when there are no variants', () => {
    const html = renderToString(<Picture image={image} />)
    expect(html).toMatch(/^<img /)
    expect(html).toContain('width="1600"')
    expect(html).toContain('loading="lazy"')
  })

  it('offers the build variants as AVIF and WebP sources', () => {
    const variants = {
      '/images/hero.jpg': {
        width: 1600,
        height: 900,
        sources: [
          { type: 'image/avif' as const, srcset: '/images/_v/hero.1-480.avif 480w' },
          { type: 'image/webp' as const, srcset: '/images/_v/hero.1-480.webp 480w' },
        ],
      },
    }
    const html = renderToString(
      <ImageVariantsContext value={variants}>
        <Picture image={image} priority />
      </ImageVariantsContext>,
    )
    expect(html).toContain('<picture><source type="image/avif" srcSet="/images/_v/hero.1-480.avif 480w"')
    expect(html).toContain('fetchPriority="high"')
    expect(html).toContain('loading="eager"')
  })
})
