import type { JSONSchema7 } from 'json-schema'
import { pageConfigSchema } from '../../../../schema/page-config.ts'
import { formSchema } from '../../../../schema/form-config.ts'
import { footerSchema, headerSchema, sectionSchemas } from '../../../../schema/sections.ts'
import { insertMembers, removeMember, replaceValue } from '../../../config/json-edit.ts'
import type { Segment } from '../../../config/json-source.ts'

// The form view's parts: which part of the config the cursor is in (a section, a form field, the SEO block…), the
// part of the page-config schema that describes it, and edits of the JSON text that change only what the form changed.

/** A part of the config the form view edits: where it is in the file, what it is called, and its schema. */
export type FormPart = { path: Segment[]; title: string; schema: JSONSchema7 }

type Json = null | boolean | number | string | Json[] | { [key: string]: Json }

const topParts = ['seo', 'site', 'header', 'footer', 'modal', 'notFound', 'launch', 'reply'] as const
const partSchemas: Record<(typeof topParts)[number], unknown> = {
  seo: pageConfigSchema.properties.seo,
  site: pageConfigSchema.properties.site,
  header: headerSchema,
  footer: footerSchema,
  modal: pageConfigSchema.properties.modal,
  notFound: pageConfigSchema.properties.notFound,
  launch: pageConfigSchema.properties.launch,
  reply: pageConfigSchema.properties.reply,
}

/** What one form field's layout ("form.uiSchema.<field>") may say, for the form view. */
const fieldLayoutSchema = {
  type: 'object',
  properties: {
    'ui:title': { type: 'string', title: 'Label', description: 'The label a visitor reads above the field.' },
    'ui:placeholder': { type: 'string', title: 'Placeholder', description: 'The grey hint inside the empty field.' },
    'ui:help': { type: 'string', title: 'Help', description: 'A line of help under the field.' },
    'ui:autocomplete': {
      type: 'string',
      title: 'Autocomplete',
      description: 'What the browser may fill in, e.g. "email" or "tel".',
    },
  },
} as const

/** The JSON pointer "/sections/2/heading" as path segments. */
export function segmentsOf(pointer: string): string[] {
  if (!pointer) return []
  return pointer
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
}

function valueAt(config: unknown, path: Segment[]): unknown {
  let node = config
  for (const step of path) {
    if (node === null || typeof node !== 'object') return undefined
    node = (node as Record<string, unknown>)[String(step)]
  }
  return node
}

const clone = <T>(value: T): JSONSchema7 => JSON.parse(JSON.stringify(value)) as JSONSchema7

/**
 * The part the cursor at `pointer` is in, for a config `config` (parsed from the text), or undefined when the form
 * view has nothing for that spot (the top level, the form's JSON Schema rules, a section of an unknown type).
 */
export function partAt(config: unknown, pointer: string): FormPart | undefined {
  const [top, second, third, fourth] = segmentsOf(pointer)
  if (top === 'sections' && second !== undefined && /^\d+$/.test(second)) {
    const index = Number(second)
    const type = (valueAt(config, ['sections', index, 'type']) ?? '') as string
    const schema = (sectionSchemas as Record<string, unknown>)[type]
    if (!schema) return undefined
    return { path: ['sections', index], title: `Section ${index + 1}: ${type}`, schema: clone(schema) }
  }
  if (top === 'form') {
    const fields = valueAt(config, ['form', 'schema', 'properties']) as Record<string, unknown> | undefined
    const field =
      second === 'schema' && third === 'properties'
        ? fourth
        : second === 'uiSchema' || second === 'messages'
          ? third
          : undefined
    if (field !== undefined && fields && field in fields) {
      if (second === 'messages') {
        return {
          path: ['form', 'messages', field],
          title: `Form field “${field}”: messages`,
          schema: clone(formSchema.properties.messages.additionalProperties),
        }
      }
      return { path: ['form', 'uiSchema', field], title: `Form field “${field}”`, schema: clone(fieldLayoutSchema) }
    }
    // The form's rules, layout and messages have parts of their own; the rest are its texts.
    const texts = Object.fromEntries(
      Object.entries(formSchema.properties).filter(([key]) => !['schema', 'uiSchema', 'messages'].includes(key)),
    )
    return { path: ['form'], title: 'Form texts', schema: clone({ type: 'object', properties: texts }) }
  }
  if (top && (topParts as readonly string[]).includes(top)) {
    const schema = partSchemas[top as (typeof topParts)[number]] as { title?: string }
    return { path: [top], title: schema.title ?? top, schema: clone(schema) }
  }
  return undefined
}

/** The value of a part in the config (what the form view shows). */
export function partValue(config: unknown, part: FormPart): unknown {
  return valueAt(config, part.path)
}

const isObject = (value: unknown): value is Record<string, Json> =>
  value !== null && typeof value === 'object' && !Array.isArray(value)

/** A new value as JSON text: on one line, as the page's short groups are written. */
function writeJson(value: unknown): string {
  return JSON.stringify(value)
}

/**
 * The text with the value at `path` changed from `before` to `after`, touching only what differs: a changed text or
 * number is replaced where it stands, a removed field is cut with its comma, a new one is added after its neighbour.
 * Fields the form view does not know (a "$comment") are kept, since `after` is compared with `before`, not the file.
 */
export function applyPartEdit(text: string, path: Segment[], before: unknown, after: unknown): string {
  if (JSON.stringify(before) === JSON.stringify(after)) return text
  if (isObject(before) && isObject(after)) {
    let result = text
    for (const key of Object.keys(before)) {
      if (!(key in after) || after[key] === undefined) result = removeMember(result, path, key)
    }
    let previous: string | undefined
    for (const [key, value] of Object.entries(after)) {
      if (value === undefined) continue
      if (key in before && before[key] !== undefined) result = applyPartEdit(result, [...path, key], before[key], value)
      else
        result = insertMembers(result, path, [[key, writeJson(value)]], previous ?? lastKeyBefore(before, after, key))
      previous = key
    }
    return result
  }
  if (Array.isArray(before) && Array.isArray(after) && before.length === after.length) {
    let result = text
    after.forEach((item, i) => (result = applyPartEdit(result, [...path, i], before[i], item)))
    return result
  }
  return replaceValue(text, path, writeJson(after))
}

/**
 * The key of `before` that comes just before `key` in `after`'s order, so a new field lands where the form shows it.
 */
function lastKeyBefore(before: Record<string, Json>, after: Record<string, Json>, key: string): string | undefined {
  const keys = Object.keys(after)
  for (let i = keys.indexOf(key) - 1; i >= 0; i--) if (keys[i]! in before) return keys[i]
  return undefined
}
