import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import type { FunctionBundle } from '../../schema/function-launch.ts'
import type { PageConfig } from '../../schema/page-config.ts'
import {
  functionBundleFile,
  functionBundleText,
  missingFunctionBundle,
  writeFunctionBundle,
} from '../../src/build/function-bundle.ts'
import { secondLaunchConfig } from '../fixtures/second-launch.ts'
import { readPageConfig } from '../server/support/fixtures.ts'

const first = readPageConfig()
const second = JSON.parse(readFileSync(secondLaunchConfig, 'utf8')) as PageConfig
const launches = [
  { slug: first.launch.slug, config: first },
  {
    slug: second.launch.slug,
    config: {
      ...second,
      launch: { ...second.launch, notifyEmail: 'leads@example.org', origins: ['https://www.willowmere.example.org'] },
    },
  },
]
const dir = mkdtempSync(path.join(tmpdir(), 'vip-bundle-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe("the function's bundle (supabase/functions/_shared/launches.json)", () => {
  it('holds what the function needs of every launch, and nothing else of the page', () => {
    const bundle = JSON.parse(functionBundleText(launches, 'bramblewood-crossing')) as FunctionBundle
    expect(bundle.$comment).toMatch(/npm run build/)
    expect(bundle.defaultLaunch).toBe('bramblewood-crossing')
    expect(bundle.launches.map((l) => l.slug)).toEqual(['bramblewood-crossing', 'willowmere-commons'])
    const [a, b] = bundle.launches
    expect(a).toEqual({
      slug: 'bramblewood-crossing',
      site: { name: first.site.name, email: first.site.email, brokerage: first.site.brokerage, lang: first.site.lang },
      notifyEmail: first.site.email,
      // Realtors' registrations are told to the co-op desk.
      realtorEmail: first.launch.realtorEmail,
      origins: ['https://bramblewood.example.com'],
      // The updates box the function reads express consent from (CASL).
      form: {
        schema: first.form.schema,
        uiSchema: first.form.uiSchema,
        messages: first.form.messages,
        consent: first.form.consent,
        expressConsentField: 'updates',
        // The words of the server's form page without JavaScript (the no-JS groups' headings).
        noScript: first.form.noScript,
      },
      reply: first.reply,
      privacy: { url: 'https://bramblewood.example.com/privacy', label: first.privacy?.linkLabel ?? '-' },
      // The phases' names, start times and replies: which phase is in force, and its reply (never the page's words).
      phases: {
        current: 'vip',
        list: first.phases!.list.map(({ name, starts, reply }) => ({
          name,
          ...(starts ? { starts } : {}),
          ...(reply ? { reply } : {}),
        })),
      },
      // The documents the reply links and the function serves (their files are copied beside the function, not here).
      documents: {
        linkDays: 30,
        list: [
          { id: 'price-list', title: 'Price list', file: 'documents/price-list.pdf', phases: ['vip', 'public'] },
          { id: 'floor-plans', title: 'Floor plans', file: 'documents/floor-plans.pdf' },
        ],
        texts: expect.objectContaining({ heading: 'This link no longer works', button: 'Send me a fresh link' }),
      },
    })
    expect(JSON.stringify(a?.phases)).not.toContain('Join the Phase 2 Waitlist')
    expect(b).toMatchObject({
      notifyEmail: 'leads@example.org',
      origins: ['https://willowmere.example.org', 'https://www.willowmere.example.org'],
    })
    expect(b).not.toHaveProperty('reply')
    expect(JSON.stringify(bundle)).not.toContain('"sections"')
  })

  it('refuses to name a default launch that is not built', () => {
    expect(() => functionBundleText(launches.slice(1), 'bramblewood-crossing')).toThrow(
      'The default launch "bramblewood-crossing" is not among the launches built (willowmere-commons).',
    )
  })

  it('is written under the project folder, and a missing one is explained in words that say to build', () => {
    expect(missingFunctionBundle(dir)).toBe(
      "The function's launches are missing: supabase/functions/_shared/launches.json does not exist. Run npm run build first: it writes every launch's form there.",
    )
    const file = writeFunctionBundle(launches, 'bramblewood-crossing', dir)
    expect(file).toBe(path.join(dir, functionBundleFile))
    expect(readFileSync(file, 'utf8')).toBe(functionBundleText(launches, 'bramblewood-crossing'))
    expect(missingFunctionBundle(dir)).toBeUndefined()
  })

  it('is generated, never committed: git ignores it', () => {
    expect(execFileSync('git', ['check-ignore', functionBundleFile], { encoding: 'utf8' }).trim()).toBe(
      functionBundleFile,
    )
    expect(execFileSync('git', ['ls-files', 'supabase/functions/_shared'], { encoding: 'utf8' }).trim()).toBe('')
  })

  it('pins the same package versions in deno.json as package.json installs', () => {
    const deno = JSON.parse(readFileSync(path.resolve('supabase/functions/send-contact-email/deno.json'), 'utf8')) as {
      imports: Record<string, string>
    }
    const pkg = JSON.parse(readFileSync(path.resolve('package.json'), 'utf8')) as {
      dependencies: Record<string, string>
      devDependencies: Record<string, string>
    }
    const installed = { ...pkg.dependencies, ...pkg.devDependencies }
    for (const [name, target] of Object.entries(deno.imports)) {
      const match = /^npm:\/?(@?[^@]+)@([^/]+)/.exec(target)
      expect(match, target).not.toBeNull()
      const [, pkgName, version] = match!
      expect(`${pkgName}@${version}`, `deno.json ${name}`).toBe(`${pkgName}@${installed[pkgName!]}`)
    }
  })
})
