import { Ajv, type ErrorObject, type Options } from 'ajv'
import addFormatsModule from 'ajv-formats'
import type { FormConfig } from './page-config.ts'
import { pickFieldMessages, trimRegistration, type FieldMessages, type RegistrationData, type RuleFailure } from './registration-rules.ts'

export type { FieldMessages, RegistrationData } from './registration-rules.ts'

type AddFormats = (ajv: Ajv) => Ajv

// ajv-formats is CommonJS; under Node ESM and Deno its default export arrives wrapped (and Deno types it so).
const addFormats = ((addFormatsModule as unknown as { default?: AddFormats }).default ?? addFormatsModule) as unknown as AddFormats

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

/** The subset of the form config the rules need. */
export type RegistrationRules = Pick<FormConfig, 'schema' | 'messages'>

/** A new Ajv instance configured exactly as the browser's form validator is. */
export function createRegistrationAjv(extra: Options = {}): Ajv {
  const ajv = new Ajv({ ...registrationAjvOptions, ...extra })
  addFormats(ajv)
  return ajv
}

let emailFormat: ((value: unknown) => boolean) | undefined

/**
 * The one e-mail rule: ajv-formats' "email" as the registration form applies it. The config's addresses, the
 * server's NOTIFY_EMAIL and MAIL_FROM are judged by it, so none passes one check and fails another.
 */
export function isEmailAddress(value: unknown): boolean {
  emailFormat ??= createRegistrationAjv().compile({ type: 'string', format: 'email' })
  return emailFormat(value) as boolean
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
