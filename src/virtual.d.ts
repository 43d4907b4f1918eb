/** The validated page.config.json (for the prerenderer), provided by src/build/vite-plugin-page-config.ts. */
declare module 'virtual:page-config' {
  const config: import('../schema/page-config.ts').PageConfig
  export default config
}

/** The form schema's precompiled validator, generated at build time by src/build/compile-form-validator.ts. */
declare module 'virtual:form-validator' {
  import type { RJSFSchema } from '@rjsf/utils'
  import type { ValidatorFunctions } from '@rjsf/validator-ajv8'
  export const registration: ValidatorFunctions[string]
  export const formSchema: RJSFSchema
  export const formUi: import('./build/compile-form-validator.ts').FormUi
}
