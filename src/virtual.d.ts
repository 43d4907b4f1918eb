/** The form schema's precompiled validator, generated at build time by src/build/compile-form-validator.ts. */
declare module 'virtual:form-validator' {
  import type { RJSFSchema } from '@rjsf/utils'
  import type { ValidatorFunctions } from '@rjsf/validator-ajv8'
  export const registration: ValidatorFunctions[string]
  export const formSchema: RJSFSchema
  export const formUi: import('../schema/page-config.ts').FormUi
}
