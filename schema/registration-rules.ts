// The parts of the registration rules the browser needs at run time: no Ajv here, so none ships in the page.

/** A field's value as the form holds it: strings, or anything a custom field type produces. */
export type RegistrationData = Record<string, unknown>

/** The field messages to show, keyed by field name: one message per field. */
export type FieldMessages = Record<string, string>

/** Any object schema: the config's form schema, or the browser's copy of it. */
type ObjectSchema = { properties?: object | undefined }

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/**
 * Every field the form can have, with its schema: the fields of `properties`, then those that only appear under a
 * condition (`if`/`then`/`else`, also inside `allOf`, and `dependencies`), each once, first definition kept.
 */
export function formFieldSchemas(schema: unknown): Map<string, Record<string, unknown>> {
  const out = new Map<string, Record<string, unknown>>()
  const visit = (node: unknown, depth: number): void => {
    if (!isObject(node) || depth > 8) return
    if (isObject(node.properties)) {
      for (const [field, fieldSchema] of Object.entries(node.properties)) {
        if (!out.has(field)) out.set(field, isObject(fieldSchema) ? fieldSchema : {})
      }
    }
    for (const key of ['then', 'else'] as const) visit(node[key], depth + 1)
    if (Array.isArray(node.allOf)) for (const part of node.allOf) visit(part, depth + 1)
    if (isObject(node.dependencies)) for (const part of Object.values(node.dependencies)) visit(part, depth + 1)
  }
  visit(schema, 0)
  return out
}

const servedFields = new WeakMap<object, ReadonlyMap<string, Record<string, unknown>>>()

/**
 * formFieldSchemas worked out once per schema object, for a schema that no longer changes (a served launch's: a new
 * config is a new object). Every registration reads its form's fields several times; the walk is not free.
 */
export function servedFieldSchemas(schema: object): ReadonlyMap<string, Record<string, unknown>> {
  let fields = servedFields.get(schema)
  if (!fields) servedFields.set(schema, (fields = formFieldSchemas(schema)))
  return fields
}

/**
 * The fields the form requires always (root `required`) or under a condition (`then`/`else`, `allOf`, `dependencies`).
 */
export function formRequiredFields(schema: unknown): string[] {
  const out = new Set<string>()
  const visit = (node: unknown, depth: number): void => {
    if (!isObject(node) || depth > 8) return
    if (Array.isArray(node.required)) for (const name of node.required) if (typeof name === 'string') out.add(name)
    for (const key of ['then', 'else'] as const) visit(node[key], depth + 1)
    if (Array.isArray(node.allOf)) for (const part of node.allOf) visit(part, depth + 1)
    if (isObject(node.dependencies)) for (const part of Object.values(node.dependencies)) visit(part, depth + 1)
  }
  visit(schema, 0)
  return [...out]
}

/** The names of every field the form can have (see formFieldSchemas), in schema order. */
export function formFieldNames(schema: unknown): string[] {
  return [...formFieldSchemas(schema).keys()]
}

/**
 * Keeps only the schema's fields (conditional ones included), trims every string and drops strings that are empty once
 * trimmed, so
 * whitespace-only counts as missing. Objects without own fields (or not objects) give {}.
 */
export function trimRegistration(input: unknown, schema: ObjectSchema): RegistrationData {
  const out: RegistrationData = {}
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return out
  for (const field of formFieldNames(schema)) {
    if (!Object.prototype.hasOwnProperty.call(input, field)) continue
    const value = (input as Record<string, unknown>)[field]
    if (value === undefined || value === null) continue
    if (typeof value === 'string') {
      const trimmed = value.trim()
      if (trimmed !== '') out[field] = trimmed
    } else {
      out[field] = value
    }
  }
  return out
}

/** A failed rule, as both Ajv and react-jsonschema-form can describe it. */
export type RuleFailure = { field: string; keyword: string; message?: string | undefined }

// When a field breaks several rules, the visitor sees the most basic one first.
// Invisible characters come before format and length: "Enter a valid email" would puzzle someone whose address
// looks right on screen.
const keywordPriority = [
  'required',
  'type',
  'plainText',
  'enum',
  'const',
  'format',
  'pattern',
  'minLength',
  'maxLength',
  'minimum',
  'maximum',
]

function rank(keyword: string): number {
  const i = keywordPriority.indexOf(keyword)
  return i === -1 ? keywordPriority.length : i
}

/** The one message per field for these failures, in the config's words (Ajv's own text where it has none). */
export function pickFieldMessages(
  failures: RuleFailure[],
  messages: Record<string, Record<string, string> | undefined>,
): FieldMessages {
  const best = new Map<string, RuleFailure>()
  for (const failure of failures) {
    // "must match the then schema": the failure inside the branch names the field and has its own message.
    if (failure.keyword === 'if' || failure.field === '') continue
    const current = best.get(failure.field)
    if (!current || rank(failure.keyword) < rank(current.keyword)) best.set(failure.field, failure)
  }
  const out: FieldMessages = {}
  for (const [field, failure] of best) {
    out[field] = messages[field]?.[failure.keyword] ?? failure.message ?? 'Check this field'
  }
  return out
}
