import { readFileSync } from 'node:fs'
import { renderToString } from 'react-dom/server'
import { afterEach, describe, expect, it, vi } from 'vitest'
import type { PageConfig } from '../../schema/page-config.ts'
import { toClientConfig } from '../../src/build/client-config.ts'
import { App } from '../../src/page/App.tsx'

// Issue 45 on a static host: the page built for a hosted function (VITE_SUPABASE_URL) reads what is left from the
// function's left.json for its launch, and the Node-served page from its own host: the build writes the address into
// each count's island props (tests/ui/left-count.test.tsx: the count asks it).

const full = JSON.parse(readFileSync('page.config.json', 'utf8')) as PageConfig
const slug = full.launch.slug
// The repository's home types, each card counting a model of the inventory.
const homes = full.sections
  .filter((section) => section.type === 'home-types')
  .map((section) => ({ ...section, cards: section.cards.map((card, i) => ({ ...card, models: [`Model ${i}`] })) }))

/** The island props of each count in the page as the build prerenders it. */
function countProps(): Array<Record<string, unknown>> {
  const html = renderToString(<App pathname="/" config={toClientConfig({ ...full, sections: homes })} />)
  const islands = html.matchAll(/data-island="left-count" data-island-props="([^"]*)"/g)
  return [...islands].map(
    ([, props]) => JSON.parse(props!.replaceAll('&quot;', '"').replaceAll('&amp;', '&')) as Record<string, unknown>,
  )
}

describe("the home types' count", () => {
  afterEach(() => {
    vi.unstubAllEnvs()
  })

  it("on a static host, is read from the hosted function's left.json for the page's launch", () => {
    vi.stubEnv('VITE_SUPABASE_URL', 'https://project-ref.supabase.co/')
    const props = countProps()
    expect(props).toHaveLength(full.sections.find((s) => s.type === 'home-types')!.cards.length)
    for (const each of props)
      expect(each.source).toBe(
        `https://project-ref.supabase.co/functions/v1/send-contact-email/left.json?launch=${slug}`,
      )
  })

  it('on the Node server, is read from the page’s own host (no source)', () => {
    vi.stubEnv('VITE_SUPABASE_URL', '')
    const props = countProps()
    expect(props).toHaveLength(full.sections.find((s) => s.type === 'home-types')!.cards.length)
    for (const each of props) expect(each).not.toHaveProperty('source')
  })
})
