import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { pageConfigSchema } from '../../schema/page-config.ts'
import { emittedSchemaPath, pageConfigSchemaJson } from '../../src/cli/emit-schema.ts'

type Node = Record<string, unknown>

/**
 * Every schema that describes a value an editor writes: properties, list items and per-key values, with their paths.
 */
function describedSchemas(schema: unknown, at = ''): { at: string; schema: Node }[] {
  if (typeof schema !== 'object' || schema === null) return []
  const node = schema as Node
  const out: { at: string; schema: Node }[] = []
  for (const [name, child] of Object.entries((node.properties ?? {}) as Record<string, unknown>)) {
    out.push({ at: `${at}.${name}`, schema: child as Node }, ...describedSchemas(child, `${at}.${name}`))
  }
  const items = node.items as Node | undefined
  if (items && items.type === 'object') out.push({ at: `${at}[]`, schema: items })
  if (items) out.push(...describedSchemas(items, `${at}[]`))
  if (typeof node.additionalProperties === 'object') {
    out.push(
      { at: `${at}.*`, schema: node.additionalProperties as Node },
      ...describedSchemas(node.additionalProperties, `${at}.*`),
    )
  }
  for (const [i, part] of ((node.allOf ?? []) as Node[]).entries())
    out.push(...describedSchemas(part.then, `${at}(${i})`))
  return out
}

describe('schema/page-config.schema.json', () => {
  it('is exactly what npm run schema emits from schema/*.ts (run it after changing the schema)', () => {
    expect(readFileSync(emittedSchemaPath, 'utf8')).toBe(pageConfigSchemaJson())
  })

  it('gives every property a title and a description, for the editor to show', () => {
    const described = describedSchemas(JSON.parse(pageConfigSchemaJson()))
    expect(described.length).toBeGreaterThan(150)
    const missing = described
      .filter(
        ({ schema }) =>
          typeof schema.title !== 'string' || typeof schema.description !== 'string' || schema.description === '',
      )
      .map(({ at }) => at)
    expect(missing).toEqual([])
  })

  it('finds a property without a description (the check above can fail)', () => {
    const stripped = { type: 'object', properties: { a: { type: 'string', title: 'A' } } }
    expect(describedSchemas(stripped).filter(({ schema }) => !schema.description)).toHaveLength(1)
    expect(describedSchemas(pageConfigSchema).length).toBe(describedSchemas(JSON.parse(pageConfigSchemaJson())).length)
  })
})
