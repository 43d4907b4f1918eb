import { createContext, useContext } from 'react'

/** What sections may ask of the registration: open its dialog. */
export type RegistrationControls = { openDialog: () => void }

/** Provided by the Page; the default does nothing (prerendering, isolated section tests). */
export const RegistrationContext = createContext<RegistrationControls>({ openDialog: () => undefined })

/** The registration controls of the surrounding Page. */
export function useRegistration(): RegistrationControls {
  return useContext(RegistrationContext)
}
