import type * as Compiled from 'virtual:form-validator'

// In the prerenderer every launch shares (src/build/page-code.ts) this module stands in for `virtual:form-validator`:
// the prerender sets the launch's validator here before it renders that launch's pages (src/build/prerender.tsx).
// The form reads these bindings at render time, so one loaded prerenderer serves one launch after another.

/** The current launch's precompiled validators. */
export let validators: typeof Compiled.validators = {}
/** The current launch's form schema as the browser uses it. */
export let formSchema: typeof Compiled.formSchema = {}
/** The current launch's form layout, messages and button labels. */
export let formUi: typeof Compiled.formUi = { uiSchema: {}, messages: {} } as unknown as typeof Compiled.formUi

/** Makes `compiled` (a launch's validator module) what the form renders with, until the next call. */
export function setFormValidator(compiled: typeof Compiled): void {
  validators = compiled.validators
  formSchema = compiled.formSchema
  formUi = compiled.formUi
}
