import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import type { PageConfig } from '../../schema/page-config.ts'
import { clientConfigScript, islandsConfigScript, toClientConfig } from '../../src/build/client-config.ts'

const config = JSON.parse(readFileSync('page.config.json', 'utf8')) as PageConfig
const withAddresses: PageConfig = {
  ...config,
  launch: {
    slug: 'bramblewood-crossing',
    notifyEmail: 'leads-inbox@example.com',
    origins: ['https://www.bramblewood-extra.example.com'],
  },
}

describe("the browser's config", () => {
  it('names the launch by its slug only: never its notification address or its other origins', () => {
    expect(toClientConfig(withAddresses).launch).toEqual({ slug: 'bramblewood-crossing' })
    const script = clientConfigScript(withAddresses)
    expect(script).toContain('"launch":{"slug":"bramblewood-crossing"}')
    expect(script).not.toContain('leads-inbox@example.com')
    expect(script).not.toContain('bramblewood-extra')
  })

  it("gives a prerendered page only what its islands read: the form's texts, the analytics, the launch's slug, its validator's address", () => {
    const script = islandsConfigScript(withAddresses, '/assets/form-validator-0123456789.js')
    const data = JSON.parse(/>(.*)<\/script>$/s.exec(script)?.[1] ?? 'null') as Record<string, unknown>
    expect(data).toEqual({
      form: toClientConfig(withAddresses).form,
      launch: { slug: 'bramblewood-crossing' },
      site: {},
      formValidator: '/assets/form-validator-0123456789.js',
    })
    expect(script).not.toContain('leads-inbox@example.com')
    const analytics = { ...withAddresses, site: { ...withAddresses.site, analytics: { gtmId: 'GTM-ABC1234' } } }
    expect(
      JSON.parse(
        />(.*)<\/script>$/s.exec(islandsConfigScript(analytics, '/assets/form-validator-0123456789.js'))?.[1] ?? 'null',
      ),
    ).toMatchObject({ site: { analytics: { gtmId: 'GTM-ABC1234' } } })
  })
})
