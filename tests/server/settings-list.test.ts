import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { deliverySettings } from '../../src/server/delivery/settings.ts'
import { environmentVariables } from '../../src/server/env.ts'
import { leadsPageSettings } from '../../src/server/leads-page/settings.ts'
import { registrationSettings } from '../../src/server/registration/settings.ts'
import { publicAddressSettings } from '../../src/server/settings/public-address.ts'
import { siteSettings } from '../../src/server/site/settings.ts'
import { storeSettings } from '../../src/server/store/settings.ts'

// Each room declares the settings it reads (src/server/<room>/settings.ts). The lists a person reads, .env.example
// and docs/deploy.md's table, must name exactly those: none missing, none left over from a setting that went.

const blocks = {
  siteSettings,
  storeSettings,
  leadsPageSettings,
  registrationSettings,
  deliverySettings,
  publicAddressSettings,
}
const declared = Object.values(blocks).flatMap((block) => Object.keys(block))

/** The variables .env.example names (`NAME=` or `#NAME=` at the start of a line), before its section for the tests. */
export function namesInEnvExample(text: string): string[] {
  const settings = text.split(/^# ── Tests\b/m)[0]!
  return [...new Set([...settings.matchAll(/^#?([A-Z][A-Z0-9_]*)=/gm)].map((m) => m[1]!))]
}

/** The variables of docs/deploy.md's settings table: rows that start with a `NAME` in backticks. */
export function namesInDeployTable(text: string): string[] {
  const section = text.split(/^## Settings$/m)[1]?.split(/^## /m)[0] ?? ''
  return [...section.matchAll(/^\| `([A-Z][A-Z0-9_]*)` \|/gm)].map((m) => m[1]!)
}

describe('the settings blocks', () => {
  it('declare each variable in one room only, and env.ts reads them all', () => {
    expect(new Set(declared).size).toBe(declared.length)
    expect(Object.keys(environmentVariables).sort()).toEqual([...declared].sort())
  })

  it('are exactly the variables .env.example names', () => {
    expect(namesInEnvExample(readFileSync('.env.example', 'utf8')).sort()).toEqual([...declared].sort())
  })

  it("are exactly the rows of docs/deploy.md's settings table, each once", () => {
    const rows = namesInDeployTable(readFileSync('docs/deploy.md', 'utf8'))
    expect(rows.sort()).toEqual([...declared].sort())
  })

  it('notices a variable a list names that no room declares, and one it leaves out', () => {
    const example = '# ── Site\n#PORT=\n#NO_SUCH_SETTING=1\n# ── Tests\n#TEST_ONLY=1\n'
    expect(namesInEnvExample(example)).toEqual(['PORT', 'NO_SUCH_SETTING'])
    expect(namesInEnvExample(example).sort()).not.toEqual([...declared].sort())
    const table =
      '## Settings\n\n| variable | default |\n| --- | --- |\n| `PORT` | `3000` |\n\n## Next\n| `OTHER` | – |\n'
    expect(namesInDeployTable(table)).toEqual(['PORT'])
  })
})
