import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { sectionSchemas } from '../../schema/sections.ts'
import { configReferenceMarkdown, configReferencePath } from '../../src/cli/docs.ts'

describe('the guides', () => {
  it('list the section types as the schema has them, wherever they list them', () => {
    const types = Object.keys(sectionSchemas).join(', ')
    for (const file of ['docs/editing-guide.md', 'docs/config-reference.md', 'README.md']) {
      const text = readFileSync(file, 'utf8').replace(/`/g, '')
      for (const [, listed] of text.matchAll(/The types are:? ([a-z-]+(?:, [a-z-]+)+)/g))
        expect(listed, file).toBe(types)
    }
  })
})

describe('docs/config-reference.md', () => {
  it('is exactly what npm run docs generates from the schema (run it after changing the schema)', () => {
    expect(readFileSync(configReferencePath, 'utf8')).toBe(configReferenceMarkdown())
  })

  it('has a table for every section type, listing its required fields', () => {
    const markdown = configReferenceMarkdown()
    for (const [type, schema] of Object.entries(sectionSchemas)) {
      const start = markdown.indexOf(`### Section type: ${type}\n`)
      expect(start, type).toBeGreaterThan(-1)
      const next = markdown.indexOf('\n### ', start + 1)
      const part = markdown.slice(start, next === -1 ? undefined : next)
      for (const field of schema.required) expect(part).toContain(`| \`${field}\` | yes |`)
    }
  })

  it('shows titles, limits, defaults and examples in plain words', () => {
    const markdown = configReferenceMarkdown()
    expect(markdown).toContain(
      '| `openDelayMs` | yes | whole number | **Open after (ms).** How long after the page loads the dialog opens by itself, in milliseconds; 0 opens it at once. (at least 0, at most 600000) Default: `1000`. |',
    )
    expect(markdown).toContain('| `email` | yes | e-mail address | **Contact e-mail.**')
  })
})
