import type { ComponentProps } from 'react'
import { LazyRegistrationForm } from '../form/LazyRegistrationForm.tsx'
import { CtaLink } from '../ui/CtaLink.tsx'
import { LeftCount } from '../ui/LeftCount.tsx'
import { NotFound } from './NotFound.tsx'
import { RegistrationDialogHost } from './RegistrationDialogHost.tsx'
import { RegistrationNotice } from './RegistrationNotice.tsx'

/**
 * The only components the browser hydrates, by island kind: what a visitor can act on. Everything else on the
 * page stays the prerendered HTML and ships no code. The server renders these same components in place.
 */
export const islandRegistry = {
  cta: CtaLink,
  'registration-form': LazyRegistrationForm,
  'registration-dialog': RegistrationDialogHost,
  'not-found': NotFound,
  'registration-notice': RegistrationNotice,
  'left-count': LeftCount,
}

/** The kinds of island. */
export type IslandKind = keyof typeof islandRegistry
/** The props of an island of kind K (JSON: they travel in the HTML). */
export type IslandProps<K extends IslandKind> = ComponentProps<(typeof islandRegistry)[K]>
