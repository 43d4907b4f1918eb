import type * as Compiled from 'virtual:form-validator'
import { draftValidatorUrl } from './validator-url.ts'

// In the studio's preview frame this module stands in for `virtual:form-validator` (see src/build/studio-client.ts):
// the registration form imports the draft's form validator, which the server compiles from the draft and serves as
// an ES module, instead of one fixed at build time. The form's code loads it only when the form renders.

const compiled = (await import(/* @vite-ignore */ await draftValidatorUrl)) as typeof Compiled

/** The draft form's precompiled validators (by $id and condition hash). */
export const validators = compiled.validators
/** The draft form's schema as the browser uses it. */
export const formSchema = compiled.formSchema
/** The draft form's layout, messages and button labels. */
export const formUi = compiled.formUi
