import { readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { edgeFormFile, edgeFormText } from '../../src/build/emit-edge-form.ts'
import { readPageConfig } from '../server/support/fixtures.ts'

describe('the Edge Function form (supabase/functions/_shared/form.json)', () => {
  it('matches page.config.json: run `npm run edge:form` after changing the form or the site name/e-mail', () => {
    const committed = readFileSync(path.resolve(edgeFormFile), 'utf8')
    expect(committed, 'supabase/functions/_shared/form.json is out of date: run npm run edge:form').toBe(edgeFormText(readPageConfig()))
  })

  it('pins the same package versions in deno.json as package.json installs', () => {
    const deno = JSON.parse(readFileSync(path.resolve('supabase/functions/send-contact-email/deno.json'), 'utf8')) as { imports: Record<string, string> }
    const pkg = JSON.parse(readFileSync(path.resolve('package.json'), 'utf8')) as { dependencies: Record<string, string>; devDependencies: Record<string, string> }
    const installed = { ...pkg.dependencies, ...pkg.devDependencies }
    for (const [name, target] of Object.entries(deno.imports)) {
      const match = /^npm:\/?(@?[^@]+)@([^/]+)/.exec(target)
      expect(match, target).not.toBeNull()
      const [, pkgName, version] = match!
      expect(`${pkgName}@${version}`, `deno.json ${name}`).toBe(`${pkgName}@${installed[pkgName!]}`)
    }
  })
})
