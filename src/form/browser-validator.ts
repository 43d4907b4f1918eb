import type { RJSFSchema, RJSFValidationError, ValidatorType } from '@rjsf/utils'
import createPrecompiledValidator from '@rjsf/validator-ajv8/lib/createPrecompiledValidator.js'
import type { ValidatorFunctions } from '@rjsf/validator-ajv8'
import { pickFieldMessages, trimRegistration } from '../../schema/registration-rules.ts'

/** What the form needs to judge input: an RJSF validator and the transform that puts the config's words on errors. */
export type BrowserValidator = {
  validator: ValidatorType
  transformErrors: (errors: RJSFValidationError[]) => RJSFValidationError[]
}

function fieldOf(error: RJSFValidationError): string {
  return (error.property ?? '').replace(/^\./, '').split('.')[0] ?? ''
}

/**
 * Wraps the precompiled validator so it judges trimmed values (whitespace-only is missing) while the inputs keep
 * exactly what the visitor typed, and gives one message per field in the config's words.
 */
export function createBrowserValidator(
  validateFns: ValidatorFunctions,
  formSchema: RJSFSchema,
  messages: Record<string, Record<string, string> | undefined>,
): BrowserValidator {
  const precompiled = createPrecompiledValidator(validateFns, formSchema)
  const validator: ValidatorType = {
    validateFormData: (data, schema, customValidate, transformErrors, uiSchema) =>
      precompiled.validateFormData(
        trimRegistration(data, formSchema),
        schema,
        customValidate,
        transformErrors,
        uiSchema,
      ),
    isValid: (schema, data, rootSchema) => precompiled.isValid(schema, data, rootSchema),
    rawValidation: (schema, data) =>
      precompiled.rawValidation(schema, data === undefined ? data : trimRegistration(data, formSchema)),
  }
  const transformErrors = (errors: RJSFValidationError[]): RJSFValidationError[] => {
    const failures = errors.map((error) => ({
      field: fieldOf(error),
      keyword: error.name ?? '',
      message: error.message,
    }))
    return Object.entries(pickFieldMessages(failures, messages)).map(([field, message]) => ({
      name: 'rule',
      property: `.${field}`,
      message,
      stack: `${field}: ${message}`,
      schemaPath: '',
    }))
  }
  return { validator, transformErrors }
}
