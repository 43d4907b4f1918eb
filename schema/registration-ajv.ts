import { _, Ajv, type ErrorObject, type KeywordCxt, type KeywordDefinition, type Options } from 'ajv'
import addFormatsModule from 'ajv-formats'
import type { FormConfig } from './form-config.ts'
import {
  pickFieldMessages,
  trimRegistration,
  type FieldMessages,
  type RegistrationData,
  type RuleFailure,
} from './registration-rules.ts'

export type { FieldMessages, RegistrationData } from './registration-rules.ts'

type AddFormats = (ajv: Ajv) => Ajv

// ajv-formats is CommonJS; under Node ESM and Deno its default export arrives wrapped (and Deno types it so).
const addFormats = ((addFormatsModule as unknown as { default?: AddFormats }).default ??
  addFormatsModule) as unknown as AddFormats

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

/** The subset of the form config the rules need (uiSchema says which fields are several lines). */
export type RegistrationRules = Pick<FormConfig, 'schema' | 'messages' | 'uiSchema'>

// Characters nobody types into a form field but that change what a reader (or a mail header, a CSV, a terminal)
// sees: C0 and C1 controls (NEL U+0085 included), DEL, the Unicode line and paragraph separators, and the
// bidirectional embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069) that reorder text on screen.
// Several-line fields keep tab, line feed and carriage return.
const refusedInLine = '[\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069]'
const refusedInLines =
  '[\\u0000-\\u0008\\u000b\\u000c\\u000e-\\u001f\\u007f-\\u009f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069]'

/** The message for a plainText failure when the config has none of its own. */
export const defaultPlainTextMessage = 'Remove the invisible or control characters'

/**
 * The `plainText` keyword: `"line"` refuses every control, line-separator and direction-override character;
 * `"lines"` allows tab and line breaks. Generated as code (no closure), so Ajv's standalone output, i.e. the
 * browser's precompiled validator, carries it too.
 */
export const plainTextKeyword: KeywordDefinition = {
  keyword: 'plainText',
  type: 'string',
  schemaType: 'string',
  metaSchema: { enum: ['line', 'lines'] },
  error: { message: defaultPlainTextMessage },
  code(cxt: KeywordCxt) {
    const source = cxt.schema === 'lines' ? refusedInLines : refusedInLine
    const pattern = cxt.gen.scopeValue('pattern', {
      key: `plainText:${source}`,
      ref: new RegExp(source, 'u'),
      code: _`new RegExp(${source}, "u")`,
    })
    cxt.fail(_`${pattern}.test(${cxt.data})`)
  },
}

/** A new Ajv instance configured exactly as the browser's form validator is, plainText keyword included. */
export function createRegistrationAjv(extra: Options = {}): Ajv {
  const ajv = new Ajv({ ...registrationAjvOptions, ...extra })
  addFormats(ajv)
  return addPlainTextKeyword(ajv)
}

/** Adds the plainText keyword to an Ajv instance (the browser's build passes this as RJSF's extenderFn). */
export function addPlainTextKeyword(ajv: Ajv): Ajv {
  if (!ajv.getKeyword('plainText')) ajv.addKeyword(plainTextKeyword)
  return ajv
}

let emailFormat: ((value: unknown) => boolean) | undefined

/**
 * The one e-mail rule: ajv-formats' "email" as the registration form applies it. The config's addresses, the
 * server's NOTIFY_EMAIL and MAIL_FROM are judged by it, so none passes one check and fails another.
 */
export function isEmailAddress(value: unknown): boolean {
  emailFormat ??= createRegistrationAjv().compile({ type: 'string', format: 'email' })
  return emailFormat(value)
}

function allowsString(type: unknown): boolean {
  return type === 'string' || (Array.isArray(type) && type.includes('string'))
}

/**
 * The form schema as browser, server and checker compile it: every string field gets `plainText: "line"`, or
 * `"lines"` when the uiSchema shows it as a textarea, unless the config already says which. Other fields as they are.
 */
export function withPlainTextRule<S extends RegistrationRules['schema']>(
  schema: S,
  uiSchema: RegistrationRules['uiSchema'] | undefined,
): S {
  const ui = uiSchema as Record<string, { 'ui:widget'?: unknown } | undefined> | undefined
  // Conditional fields (if/then/else, also inside allOf) get the rule too; the `if` itself only reads values.
  const rule = (node: unknown): unknown => {
    if (typeof node !== 'object' || node === null || Array.isArray(node)) return node
    const out: Record<string, unknown> = { ...(node as Record<string, unknown>) }
    if (typeof out.properties === 'object' && out.properties !== null) {
      const properties: Record<string, unknown> = {}
      for (const [field, fieldSchema] of Object.entries(out.properties as Record<string, unknown>)) {
        const own = fieldSchema as Record<string, unknown> | null
        properties[field] =
          typeof own !== 'object' || own === null || !allowsString(own.type) || 'plainText' in own
            ? fieldSchema
            : { ...own, plainText: ui?.[field]?.['ui:widget'] === 'textarea' ? 'lines' : 'line' }
      }
      out.properties = properties
    }
    for (const key of ['then', 'else'] as const) if (key in out) out[key] = rule(out[key])
    if (Array.isArray(out.allOf)) out.allOf = out.allOf.map(rule)
    return out
  }
  return rule(schema) as S
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
export type RegistrationVerdict = { ok: true; value: RegistrationData } | { ok: false; errors: FieldMessages }

/**
 * Compiles the form schema once and returns a checker for submissions: trims, drops unknown fields, validates
 * with the browser's Ajv options, and answers the config's messages per field.
 */
export function createRegistrationValidator(rules: RegistrationRules): (input: unknown) => RegistrationVerdict {
  const validate = createRegistrationAjv().compile(withPlainTextRule(rules.schema, rules.uiSchema))
  return (input) => {
    const value = trimRegistration(input, rules.schema)
    if (validate(value)) return { ok: true, value }
    const failures = (validate.errors ?? []).map(ajvErrorToFailure)
    return { ok: false, errors: pickFieldMessages(failures, rules.messages) }
  }
}
