/** The form schema's precompiled validator, generated at build time by src/build/compile-form-validator.ts. */
declare module 'virtual:form-validator' {
  import type { RJSFSchema } from '@rjsf/utils'
  import type { ValidatorFunctions } from '@rjsf/validator-ajv8'
  /** The form schema's validate function by its $id, and each if/then condition's by its hash. */
  export const validators: ValidatorFunctions
  export const formSchema: RJSFSchema
  export const formUi: import('../schema/form-config.ts').FormUi
}
