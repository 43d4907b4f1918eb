import { lazy, Suspense } from 'react'

/** Loads the form's code (react-jsonschema-form and the validator): after the page paints, or at once. */
export const loadRegistrationForm = () => import('./RegistrationForm.tsx')

const RegistrationForm = lazy(loadRegistrationForm)

/**
 * The registration form as an island: prerendered into the page's HTML, hydrated when its code arrives.
 * What a visitor types before then is kept (the form picks it up when it hydrates).
 */
export function LazyRegistrationForm({ idPrefix }: { idPrefix: string }) {
  return (
    <Suspense fallback={<div className="min-h-96" aria-busy="true" />}>
      <RegistrationForm idPrefix={idPrefix} />
    </Suspense>
  )
}
