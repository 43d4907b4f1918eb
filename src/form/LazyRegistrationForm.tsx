import { lazy, Suspense } from 'react'

/**
 * Loads the form's code (react-jsonschema-form) and what the build compiled from the config's `form` (schema,
 * layout and messages, precompiled validator): after the page paints, or at once. The only module that imports
 * the build-time `virtual:form-validator`; RegistrationForm itself takes all of it as props.
 */
export const loadRegistrationForm = async () => {
  const [{ RegistrationForm }, compiled] = await Promise.all([
    import('./RegistrationForm.tsx'),
    import('virtual:form-validator'),
  ])
  function ConfiguredRegistrationForm({ idPrefix }: { idPrefix: string }) {
    return (
      <RegistrationForm
        idPrefix={idPrefix}
        schema={compiled.formSchema}
        ui={compiled.formUi}
        validators={compiled.validators}
      />
    )
  }
  return { default: ConfiguredRegistrationForm }
}

// If the form's code cannot be loaded (blocked, offline), once more and then never settle: the island then stays as
// prerendered, a plain form that posts to the function, instead of an error that would take the page down with it.
const RegistrationForm = lazy(() =>
  loadRegistrationForm()
    .catch(() => loadRegistrationForm())
    .catch((error: unknown) => {
      console.error('The form code could not be loaded; the form works as a plain web form.', error)
      return new Promise<never>(() => {})
    }),
)

/**
 * What stands in the form's place until its code has arrived or its turn to render has come: the form's height, busy.
 */
export function FormPlaceholder() {
  return <div className="min-h-96" aria-busy="true" />
}

/**
 * The registration form as an island: prerendered into the page's HTML, hydrated when its code arrives.
 * What a visitor types before then is kept (the form picks it up when it hydrates).
 */
export function LazyRegistrationForm({ idPrefix }: { idPrefix: string }) {
  return (
    <Suspense fallback={<FormPlaceholder />}>
      <RegistrationForm idPrefix={idPrefix} />
    </Suspense>
  )
}
