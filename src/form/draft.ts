import type { RegistrationData } from '../../schema/registration-rules.ts'

// Session storage: a draft survives a reload or a wrong tap on the back button, and is gone with the tab.
const draftKey = 'registration-draft'

/** The registration the visitor was filling in this tab, if any. */
export function readDraft(): RegistrationData {
  try {
    const raw = sessionStorage.getItem(draftKey)
    const draft: unknown = raw ? JSON.parse(raw) : {}
    return draft && typeof draft === 'object' && !Array.isArray(draft) ? (draft as RegistrationData) : {}
  } catch {
    return {} // storage blocked or a damaged value: start empty
  }
}

/** Keeps what the visitor typed so far; an empty form removes the draft. */
export function saveDraft(data: RegistrationData): void {
  try {
    if (Object.values(data).some((value) => value !== undefined && value !== ''))
      sessionStorage.setItem(draftKey, JSON.stringify(data))
    else sessionStorage.removeItem(draftKey)
  } catch {
    // storage blocked (private mode): the draft is a convenience, the form still works
  }
}
