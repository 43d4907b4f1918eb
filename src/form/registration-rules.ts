import { Ajv, type ErrorObject, type Options } from 'ajv'
import addFormatsModule from 'ajv-formats'
import type { FormConfig } from '../../schema/page-config.ts'

// ajv-formats is CommonJS; under Node ESM and Deno its default export arrives wrapped.
const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ??
  addFormatsModule) as typeof addFormatsModule

/**
 * The Ajv options of @rjsf/validator-ajv8 (its AJV_CONFIG). The browser's precompiled validator and the
 * server's both use these and ajv-formats' defaults, so they give the same verdict on the same input.
 */
export const registrationAjvOptions = {
  allErrors: true,
  multipleOfPrecision: 8,
  strict: false,
  verbose: true,
  discriminator: false,
} as const satisfies Options

/** A new Ajv instance configured exactly as the browser's form validator is. */
export function createRegistrationAjv(extra: Options = {}): Ajv {
  const ajv = new Ajv({ ...registrationAjvOptions, ...extra })
  addFormats(ajv)
  return ajv
}

/** A field's value as the form holds it: strings, or anything a custom field type produces. */
export type RegistrationData = Record<string, unknown>

/** The field messages to show, keyed by field name: one message per field. */
export type FieldMessages = Record<string, string>

/** The subset of the form config the rules need. */
export type RegistrationRules = Pick<FormConfig, 'schema' | 'messages'>

type FieldSchema = { type?: unknown }

function fieldSchemas(schema: RegistrationRules['schema']): Record<string, FieldSchema> {
  return (schema.properties ?? {}) as Record<string, FieldSchema>
}

/**
 * Keeps only the schema's fields, trims every string and drops strings that are empty once trimmed, so
 * whitespace-only counts as missing. Objects without own fields (or not objects) give {}.
 */
export function trimRegistration(input: unknown, schema: RegistrationRules['schema']): RegistrationData {
  const out: RegistrationData = {}
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return out
  for (const field of Object.keys(fieldSchemas(schema))) {
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
const keywordPriority = ['required', 'type', 'enum', 'const', 'format', 'pattern', 'minLength', 'maxLength', 'minimum', 'maximum']

function rank(keyword: string): number {
  const i = keywordPriority.indexOf(keyword)
  return i === -1 ? keywordPriority.length : i
}

/** The one message per field for these failures, in the config's words (Ajv's own text where it has none). */
export function pickFieldMessages(failures: RuleFailure[], messages: RegistrationRules['messages']): FieldMessages {
  const best = new Map<string, RuleFailure>()
  for (const failure of failures) {
    const current = best.get(failure.field)
    if (!current || rank(failure.keyword) < rank(current.keyword)) best.set(failure.field, failure)
  }
  const out: FieldMessages = {}
  for (const [field, failure] of best) {
    out[field] = messages[field]?.[failure.keyword] ?? failure.message ?? 'Check this field'
  }
  return out
}

/** The field and rule an Ajv error is about ("required" errors name the missing field in params). */
export function ajvErrorToFailure(error: ErrorObject): RuleFailure {
  const missing = (error.params as { missingProperty?: string }).missingProperty
  const field =
    error.keyword === 'required' && missing !== undefined
      ? missing
      : (error.instancePath.split('/')[1] ?? '').replace(/~1/g, '/').replace(/~0/g, '~')
  return { field, keyword: error.keyword, message: error.message }
}

/** The outcome of checking one registration. */
export type RegistrationVerdict =
  | { ok: true; value: RegistrationData }
  | { ok: false; errors: FieldMessages }

/**
 * Compiles the form schema once and returns a checker for submissions: trims, drops unknown fields, validates
 * with the browser's Ajv options, and answers the config's messages per field.
 */
export function createRegistrationValidator(rules: RegistrationRules): (input: unknown) => RegistrationVerdict {
  const validate = createRegistrationAjv().compile(rules.schema)
  return (input) => {
    const value = trimRegistration(input, rules.schema)
    if (validate(value)) return { ok: true, value }
    const failures = (validate.errors ?? []).map(ajvErrorToFailure)
    return { ok: false, errors: pickFieldMessages(failures, rules.messages) }
  }
}
