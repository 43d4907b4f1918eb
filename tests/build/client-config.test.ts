import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import type { PageConfig } from '../../schema/page-config.ts'
import { clientConfigScript, toClientConfig } from '../../src/build/client-config.ts'

const config = JSON.parse(readFileSync('page.config.json', 'utf8')) as PageConfig
const withAddresses: PageConfig = {
  ...config,
  launch: { slug: 'bramblewood-crossing', notifyEmail: 'leads-inbox@example.com', origins: ['https://www.bramblewood-extra.example.com'] },
}

describe("the browser's config", () => {
  it('names the launch by its slug only: never its notification address or its other origins', () => {
    expect(toClientConfig(withAddresses).launch).toEqual({ slug: 'bramblewood-crossing' })
    const script = clientConfigScript(withAddresses)
    expect(script).toContain('"launch":{"slug":"bramblewood-crossing"}')
    expect(script).not.toContain('leads-inbox@example.com')
    expect(script).not.toContain('bramblewood-extra')
  })
})
