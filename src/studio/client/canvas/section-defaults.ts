import { sectionSchemas, type SectionType } from '../../../../schema/sections.ts'

// A new section's first content, from its schema: each required field (and the eyebrow and intro, which every
// section shows) gets its default, else its first example, else words that say what to write there. A picture is
// borrowed from the page (a new file would have to be uploaded first), so the new section passes the checker at once.

type Schema = {
  type?: string
  const?: unknown
  title?: string
  default?: unknown
  examples?: unknown[]
  enum?: unknown[]
  properties?: Record<string, Schema>
  required?: readonly string[]
  items?: Schema
  minItems?: number
}

const alsoShown = ['eyebrow', 'intro']

/** The first picture of the page's config (an object with a "src"), to borrow for a section that needs one. */
function firstPicture(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(firstPicture).find(Boolean)
  if (value && typeof value === 'object') {
    if ('src' in value && 'width' in value) return value
    return Object.values(value).map(firstPicture).find(Boolean)
  }
  return undefined
}

function valueOf(schema: Schema, name: string, config: unknown): unknown {
  if (schema.const !== undefined) return schema.const
  if (schema.default !== undefined) return schema.default
  if (schema.examples?.length) return schema.examples[0]
  if (schema.enum?.length) return schema.enum[0]
  if (schema.properties?.src) return firstPicture(config)
  if (schema.type === 'array' && schema.items)
    return Array.from({ length: Math.max(1, schema.minItems ?? 1) }, () => valueOf(schema.items!, name, config))
  if (schema.type === 'object' && schema.properties) return objectOf(schema, config)
  if (schema.type === 'string') return `${schema.title ?? name}: write it here`
  if (schema.type === 'boolean') return false
  return undefined
}

function objectOf(schema: Schema, config: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const [name, property] of Object.entries(schema.properties ?? {})) {
    if (!schema.required?.includes(name) && !alsoShown.includes(name)) continue
    const value = valueOf(property, name, config)
    if (value !== undefined) out[name] = value
  }
  return out
}

/** A new section of type `type` with sensible first content; `config`: the page, to borrow a picture from. */
export function sectionDefaults(type: SectionType, config: unknown): Record<string, unknown> {
  return objectOf(sectionSchemas[type] as unknown as Schema, config)
}

/** The section types as the palette offers them: name ("Checklist"), sentence, type. */
export function sectionChoices(): { type: SectionType; title: string; description: string }[] {
  return Object.entries(sectionSchemas).map(([type, schema]) => ({
    type: type as SectionType,
    title: schema.title.replace(/ section$/, ''),
    description: schema.description,
  }))
}
