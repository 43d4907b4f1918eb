import type * as Compiled from 'virtual:form-validator'
import { readClientConfig } from './client-config.ts'

// In a built page this module stands in for `virtual:form-validator` (src/build/vite-config.ts): the page code is
// the same for every launch, and each launch's form validator (its schema, messages and precompiled Ajv code) is a
// file of its own, named in the page's data block. The form's code loads it only when the form renders.

const compiled = (await import(/* @vite-ignore */ readClientConfig().formValidator)) as typeof Compiled

/** The launch's precompiled validators (by $id and condition hash). */
export const validators = compiled.validators
/** The launch's form schema as the browser uses it. */
export const formSchema = compiled.formSchema
/** The launch's form layout, messages and button labels. */
export const formUi = compiled.formUi
