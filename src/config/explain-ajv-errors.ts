import type { ErrorObject } from 'ajv'
import { brokerageNamePattern } from '../../schema/site.ts'
import { imageSrcPattern } from '../../schema/parts.ts'
import { climbingImageFinding } from './config-files.ts'
import { brokerageNameFinding } from './legal-checks.ts'
import { closest, describePath, describeValue, listWords, valueAt, type Finding } from './describe.ts'
import type { Segment } from './json-source.ts'

type SchemaNode = {
  title?: string
  description?: string
  examples?: unknown[]
  type?: string | string[]
  properties?: Record<string, SchemaNode>
  enum?: unknown[]
  const?: unknown
  format?: string
}

// When one value breaks several rules, the most basic one explains it best.
const valueKeywordOrder = [
  'type',
  'const',
  'enum',
  'format',
  'pattern',
  'minLength',
  'maxLength',
  'minimum',
  'maximum',
  'minItems',
  'maxItems',
]

/**
 * Ajv errors (compiled with allErrors and verbose) as plain-word findings, one per spot: if/then bookkeeping
 * and anyOf summaries dropped, a misspelt property name paired with the required one it was meant to be.
 * `base` is prefixed to every path (for a schema nested inside the config, such as the form's).
 */
export function explainAjvErrors(errors: readonly ErrorObject[], data: unknown, base: Segment[] = []): Finding[] {
  const groups = new Map<string, ErrorObject[]>()
  for (const error of errors) {
    if (error.keyword === 'if' || error.keyword === 'propertyNames') continue
    const key = `${error.instancePath}\u0000${error.propertyName ?? ''}`
    groups.set(key, [...(groups.get(key) ?? []), error])
  }
  const findings: Finding[] = []
  for (const group of groups.values()) {
    const first = group[0]!
    const at = toSegments(first.instancePath, data)
    const full = [...base, ...at]
    if (first.propertyName !== undefined) {
      findings.push(explainPropertyName(first, full))
      continue
    }
    const parent = (first.parentSchema ?? {}) as SchemaNode
    const required = group.filter((e) => e.keyword === 'required')
    const missing = required.map((e) => String(e.params.missingProperty))
    const extras = group
      .filter((e) => e.keyword === 'additionalProperties')
      .map((e) => String(e.params.additionalProperty))
    const paired = new Set<string>()
    for (const extra of extras) {
      const allowed = Object.keys(
        ((group.find((e) => e.keyword === 'additionalProperties')?.parentSchema ?? {}) as SchemaNode).properties ?? {},
      )
      const meant = closest(extra, missing) ?? closest(extra, allowed)
      if (meant && missing.includes(meant)) paired.add(meant)
      findings.push({
        at: [...full, extra],
        onKey: true,
        message: `${describePath(full)} has a field "${extra}" that it does not take${meant ? `; did you mean "${meant}"?` : '.'}`,
        fix: meant
          ? `Rename "${extra}" to "${meant}"${missing.includes(meant) ? ' (that field is required and missing)' : ''}, or delete it.`
          : `Delete "${extra}", or move it to where it belongs. ${full.length === 0 ? 'The file' : describePath(full)} takes: ${listWords(allowed)}.`,
      })
    }
    for (const name of missing) {
      if (paired.has(name)) continue
      findings.push(explainMissing(name, full, parent))
    }
    const valueErrors = group.filter((e) => e.keyword !== 'required' && e.keyword !== 'additionalProperties')
    // A draft-07 meta-schema "anyOf" (e.g. type: string or list) adds a summary and a second, misleading type error.
    const hasAnyOf = valueErrors.some((e) => e.keyword === 'anyOf')
    const meaningful = valueErrors.filter((e) => e.keyword !== 'anyOf' && !(hasAnyOf && e.keyword === 'type'))
    const chosen = [...meaningful].sort((a, b) => rank(a.keyword) - rank(b.keyword))[0] ?? valueErrors[0]
    if (chosen) findings.push(explainValue(chosen, full, valueAt(data, at)))
  }
  return findings
}

function rank(keyword: string): number {
  const i = valueKeywordOrder.indexOf(keyword)
  return i === -1 ? valueKeywordOrder.length : i
}

/** "/sections/3/type" → ['sections', 3, 'type'], numbers only where the data has an array. */
function toSegments(pointer: string, data: unknown): Segment[] {
  if (pointer === '') return []
  const out: Segment[] = []
  let value = data
  for (const raw of pointer.split('/').slice(1)) {
    const step = raw.replace(/~1/g, '/').replace(/~0/g, '~')
    const segment: Segment = Array.isArray(value) ? Number(step) : step
    out.push(segment)
    value = typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[step] : undefined
  }
  return out
}

function explainMissing(name: string, at: Segment[], parent: SchemaNode): Finding {
  const field = parent.properties?.[name] ?? {}
  const isSectionType = name === 'type' && at.length === 2 && at[0] === 'sections'
  const allowed = field.enum ?? (field.const !== undefined ? [field.const] : undefined)
  const sample = field.examples?.[0] ?? (field.const !== undefined ? field.const : undefined)
  const placeholder = sample !== undefined ? JSON.stringify(sample) : placeholderFor(field.type)
  return {
    at,
    message: isSectionType
      ? `${describePath(at)} has no "type": every section needs one, and it decides what else the section takes.`
      : `${describePath(at)} is missing "${name}"${field.title ? ` (${field.title})` : ''}, which is required.`,
    fix: isSectionType
      ? `Add "type" with one of: ${listWords((allowed ?? []).map(String))}.`
      : `Add "${name}": ${placeholder} inside ${describePath(at)}.${field.description ? ` ${field.description}` : ''}${
          allowed && !isSectionType && allowed.length > 1
            ? ` One of: ${listWords(allowed.map((v) => JSON.stringify(v)))}.`
            : ''
        }`,
  }
}

function placeholderFor(type: SchemaNode['type']): string {
  switch (Array.isArray(type) ? type[0] : type) {
    case 'integer':
    case 'number':
      return '0'
    case 'boolean':
      return 'true'
    case 'array':
      return '[ … ]'
    case 'object':
      return '{ … }'
    default:
      return '"…"'
  }
}

const typeWords: Record<string, string> = {
  string: 'text in double quotes',
  integer: 'a whole number, without quotes',
  number: 'a number, without quotes',
  boolean: 'true or false, without quotes',
  array: 'a list in [ ]',
  object: 'a group of fields in { }',
  null: 'null',
}

function typeOf(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'a list'
  if (typeof value === 'object') return 'a group { … }'
  if (typeof value === 'string') return `text (${describeValue(value)})`
  if (typeof value === 'number') return `the number ${value}`
  if (typeof value === 'boolean') return String(value)
  // Not a JSON value (undefined where the data has none): its JavaScript type, as String() would have written it.
  return typeof value
}

/** What every value explanation draws on: the spot, its schema's own words, the error's params, the value. */
type ValueContext = {
  at: Segment[]
  where: string
  about: string
  examples: string
  params: Record<string, unknown>
  value: unknown
}

function explainValue(error: ErrorObject, at: Segment[], value: unknown): Finding {
  const schema = (error.parentSchema ?? {}) as SchemaNode
  const context: ValueContext = {
    at,
    where: describePath(at),
    about: schema.description ? ` ${schema.description}` : '',
    examples: schema.examples?.length
      ? ` For example: ${schema.examples.map((e) => JSON.stringify(e)).join(', ')}.`
      : '',
    params: error.params as Record<string, unknown>,
    value,
  }
  const { where, about, examples, params } = context
  switch (error.keyword) {
    case 'enum':
      return explainEnum(context)
    case 'const':
      return {
        at,
        message: `${where} must be ${JSON.stringify(params.allowedValue)}, not ${describeValue(value)}.`,
        fix: `Write exactly ${JSON.stringify(params.allowedValue)}.`,
      }
    case 'type':
      return explainType(context)
    case 'format':
      return explainFormat(context)
    case 'pattern':
      return explainPattern(context)
    case 'minLength':
    case 'maxLength':
      return explainLength(context, error.keyword)
    case 'minItems':
    case 'maxItems':
      return explainItems(context, error.keyword)
    case 'minimum':
    case 'maximum':
      return {
        at,
        message: `${where} is ${String(value)}; the ${error.keyword === 'minimum' ? 'smallest' : 'largest'} allowed is ${String(params.limit)}.`,
        fix: `Write a number from the allowed range.${about}`,
      }
    default:
      return { at, message: `${where} ${error.message ?? 'is not valid'}.`, fix: `Correct it.${about}${examples}` }
  }
}

function explainEnum({ at, where, about, params, value }: ValueContext): Finding {
  const allowed = (params.allowedValues as unknown[]).map(String)
  const meant = typeof value === 'string' ? closest(value, allowed) : undefined
  const isSectionType = at.length === 3 && at[0] === 'sections' && at[2] === 'type'
  const guess = meant ? `; did you mean '${meant}'?` : '.'
  return isSectionType
    ? {
        at,
        message: `${where} ${describeValue(value)} is not a section type${guess} The types are: ${allowed.join(', ')}.`,
        fix: `Write one of those types. Each type takes its own fields: see docs/config-reference.md.`,
      }
    : {
        at,
        message: `${where} ${describeValue(value)} is not one of the allowed values${guess}`,
        fix: `Use one of: ${allowed.map((v) => `'${v}'`).join(', ')}.${about}`,
      }
}

function explainType({ at, where, about, params, value }: ValueContext): Finding {
  const expected = String(params.type).split(',')
  const words = listWords(expected.map((t) => typeWords[t] ?? t))
  let fix = `Write ${words}.${about}`
  if (
    typeof value === 'string' &&
    /^-?\d+(\.\d+)?$/.test(value) &&
    (expected.includes('integer') || expected.includes('number'))
  ) {
    fix = `Remove the quotes: write ${value}, not "${value}".`
  } else if (typeof value === 'string' && (value === 'true' || value === 'false') && expected.includes('boolean')) {
    fix = `Remove the quotes: write ${value}, not "${value}".`
  } else if ((typeof value === 'number' || typeof value === 'boolean') && expected.includes('string')) {
    fix = `Put it in double quotes: "${String(value)}".`
  } else if (typeof value === 'string' && expected.includes('array')) {
    fix = `Put it in a list: [${JSON.stringify(value)}].`
  }
  return { at, message: `${where} should be ${words}, but it is ${typeOf(value)}.`, fix }
}

function explainFormat({ at, where, about, examples, params, value }: ValueContext): Finding {
  if (params.format === 'email') {
    return {
      at,
      message: `${where} ${describeValue(value)} is not a valid e-mail address.`,
      fix: 'Write a whole address, such as sales@example.com.',
    }
  }
  if (params.format === 'uri') {
    return {
      at,
      message: `${where} ${describeValue(value)} is not a full web address.`,
      fix: `Write the whole address, starting with https://.${examples}`,
    }
  }
  return {
    at,
    message: `${where} ${describeValue(value)} is not a valid ${String(params.format)}.`,
    fix: `Correct it.${about}${examples}`,
  }
}

function explainPattern({ at, where, about, examples, params, value }: ValueContext): Finding {
  if (params.pattern === brokerageNamePattern) return brokerageNameFinding(at, value)
  if (params.pattern === imageSrcPattern && typeof value === 'string' && climbs(value))
    return climbingImageFinding(at, value)
  return {
    at,
    message: `${where} ${describeValue(value)} is not written the expected way.`,
    fix: `${about.trim() || `It must match ${String(params.pattern)}.`}${examples}`,
  }
}

function explainLength({ at, where, about, params, value }: ValueContext, keyword: 'minLength' | 'maxLength'): Finding {
  const limit = Number(params.limit)
  const length = typeof value === 'string' ? value.length : 0
  if (keyword === 'maxLength') {
    return {
      at,
      message: `${where} is too long: ${length} characters, at most ${limit} allowed.`,
      fix: `Shorten it by ${length - limit} characters.`,
    }
  }
  return length === 0
    ? { at, message: `${where} is empty.`, fix: `Write the text.${about}` }
    : {
        at,
        message: `${where} is too short: ${length} characters, at least ${limit} needed.`,
        fix: `Write a longer text.${about}`,
      }
}

function explainItems({ at, where, about, params, value }: ValueContext, keyword: 'minItems' | 'maxItems'): Finding {
  const count = Array.isArray(value) ? value.length : 0
  return keyword === 'minItems'
    ? {
        at,
        message: `${where} has ${count} entries; it needs at least ${String(params.limit)}.`,
        fix: `Add entries.${about}`,
      }
    : {
        at,
        message: `${where} has ${count} entries; at most ${String(params.limit)} are allowed.`,
        fix: `Remove ${count - Number(params.limit)} of them.`,
      }
}

function explainPropertyName(error: ErrorObject, at: Segment[]): Finding {
  const name = error.propertyName ?? ''
  const allowed = ((error.params as { allowedValues?: unknown[] }).allowedValues ?? []).map(String)
  const meant = closest(name, allowed)
  return {
    at: [...at, name],
    onKey: true,
    message: `${describePath(at)} has the name "${name}", which is not allowed here${meant ? `; did you mean "${meant}"?` : '.'}`,
    fix: allowed.length ? `Use one of: ${listWords(allowed.map((a) => `"${a}"`))}.` : 'Rename or delete it.',
  }
}

/** Whether an image path has a part that leaves its folder (".", "..", empty) or a backslash. */
function climbs(src: string): boolean {
  return (
    src.includes('\\') ||
    src
      .split('/')
      .slice(1)
      .some((part) => part === '' || part === '.' || part === '..')
  )
}
