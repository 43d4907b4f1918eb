import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { applyPartEdit, partAt, partValue } from '../../../src/studio/client/editing/form-parts.ts'

const text = readFileSync('page.config.json', 'utf8')
const config = JSON.parse(text) as { sections: { heading?: string }[]; seo: { title: string } }

describe('partAt', () => {
  it('finds the section under the cursor and its type’s schema', () => {
    const part = partAt(config, '/sections/0/heading')!
    expect(part.path).toEqual(['sections', 0])
    expect(part.title).toBe('Section 1: hero')
    expect(Object.keys(part.schema.properties!)).toContain('heading')
  })

  it('finds the SEO block, a form field’s layout and its messages', () => {
    expect(partAt(config, '/seo/ogImage/alt')?.path).toEqual(['seo'])
    expect(partAt(config, '/form/schema/properties/email/maxLength')?.path).toEqual(['form', 'uiSchema', 'email'])
    expect(partAt(config, '/form/messages/email/required')?.path).toEqual(['form', 'messages', 'email'])
  })

  it('has nothing for the top level or an unknown section type', () => {
    expect(partAt(config, '')).toBeUndefined()
    expect(partAt({ sections: [{ type: 'nope' }] }, '/sections/0')).toBeUndefined()
  })
})

describe('applyPartEdit', () => {
  it('changes a heading and nothing else, byte for byte', () => {
    const part = partAt(config, '/sections/0/heading')!
    const before = partValue(config, part) as Record<string, unknown>
    const edited = applyPartEdit(text, part.path, before, { ...before, heading: 'A new "heading"' })
    const old = `"heading": ${JSON.stringify(config.sections[0]!.heading)}`
    expect(edited).toBe(text.replace(old, () => `"heading": ${JSON.stringify('A new "heading"')}`))
  })

  it('adds a new field after its neighbour and removes a cleared one with its comma', () => {
    const small = '{\n  "a": "1",\n  "b": "2",\n  "c": "3"\n}\n'
    expect(applyPartEdit(small, [], { a: '1', b: '2', c: '3' }, { a: '1', b: '2', x: 'new', c: '3' })).toBe(
      '{\n  "a": "1",\n  "b": "2",\n  "x": "new",\n  "c": "3"\n}\n',
    )
    expect(applyPartEdit(small, [], { a: '1', b: '2', c: '3' }, { a: '1', c: '3' })).toBe(
      '{\n  "a": "1",\n  "c": "3"\n}\n',
    )
  })

  it('keeps CRLF line endings and items of a list it did not change', () => {
    const crlf = '{\r\n  "items": [\r\n    { "t": "one" },\r\n    { "t": "two" }\r\n  ]\r\n}\r\n'
    const before = { items: [{ t: 'one' }, { t: 'two' }] }
    expect(applyPartEdit(crlf, [], before, { items: [{ t: 'one' }, { t: 'TWO' }] })).toBe(
      crlf.replace('"two"', '"TWO"'),
    )
  })
})
