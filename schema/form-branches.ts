// The fields a form shows only under a condition, grouped by it: what a page without JavaScript shows from the start.

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/** The fields of one `if`/`then` (or `else`) of a form schema, and the answer they are for when it can say. */
export type FormBranch = {
  /** "field=value" when the branch is for one answer to one field (`if: { properties: { f: { const: v } } }`). */
  condition: string | undefined
  /** The branch's own fields (none of the root's), with their schemas, in schema order. */
  properties: Record<string, Record<string, unknown>>
}

/** "field=value" of an `if` naming one field's one value (const, or a one-value enum); else undefined. */
function conditionOf(test: unknown, negated: boolean): string | undefined {
  if (negated || !isObject(test) || !isObject(test.properties)) return undefined
  const entries = Object.entries(test.properties)
  if (entries.length !== 1) return undefined
  const [field, rule] = entries[0]!
  if (!isObject(rule)) return undefined
  const value: unknown =
    'const' in rule ? rule.const : Array.isArray(rule.enum) && rule.enum.length === 1 ? (rule.enum[0] as unknown) : []
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean'
    ? `${field}=${String(value)}`
    : undefined
}

/**
 * The `then`/`else` branches of a form schema (at its root and inside `allOf`), each with the fields it adds that the
 * root does not have; a field in two branches stays in the first. Branches that add no field are left out.
 */
export function formBranches(schema: unknown): FormBranch[] {
  if (!isObject(schema)) return []
  const seen = new Set(isObject(schema.properties) ? Object.keys(schema.properties) : [])
  const out: FormBranch[] = []
  const parts: unknown[] = [schema, ...(Array.isArray(schema.allOf) ? (schema.allOf as unknown[]) : [])]
  for (const part of parts) {
    if (!isObject(part)) continue
    for (const [key, negated] of [
      ['then', false],
      ['else', true],
    ] as const) {
      const branch = part[key]
      if (!isObject(branch) || !isObject(branch.properties)) continue
      const properties: Record<string, Record<string, unknown>> = {}
      for (const [field, fieldSchema] of Object.entries(branch.properties)) {
        if (seen.has(field) || !isObject(fieldSchema)) continue
        seen.add(field)
        properties[field] = fieldSchema
      }
      if (Object.keys(properties).length > 0) out.push({ condition: conditionOf(part.if, negated), properties })
    }
  }
  return out
}
