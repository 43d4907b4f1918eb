import { createContext, useContext, useMemo, useSyncExternalStore, type ReactNode } from 'react'
import type { ClientFormConfig } from '../../schema/form-config.ts'
import type { Site } from '../../schema/site.ts'
import { dataLayer } from '../page/analytics.ts'
import { captureAttribution, type Attribution } from './attribution.ts'
import { saveDraft } from './draft.ts'
import { showNotice } from './notify.ts'
import type { FieldMessages, RegistrationData } from '../../schema/registration-rules.ts'
import { honeypotField } from '../../schema/registration-contract.ts'
import { sendRegistration } from './send-registration.ts'

/** Idle, or a registration is on its way (buttons disabled, label 'Submitting…'). */
export type SubmitStatus = 'idle' | 'submitting'

/** The registration state both form instances share. */
export type RegistrationState = {
  form: ClientFormConfig
  /** The page's launch (launch.slug): sent with each registration, so the function files it there. */
  launch: string
  formData: RegistrationData
  setFormData: (data: RegistrationData) => void
  status: SubmitStatus
  /** Field messages from the server's last 400 answer, until the visitor edits again. */
  serverErrors: FieldMessages
  /**
   * How many registrations this page has sent successfully: a change tells each form to start afresh, without messages.
   */
  accepted: number
  /** The honeypot's value: a field people never see, that bots fill. */
  honeypot: { current: string }
  /** Sends the (already validated and trimmed) data; resolves true when the server accepted it. */
  submit: (data: RegistrationData) => Promise<boolean>
}

const RegistrationStateContext = createContext<RegistrationState | undefined>(undefined)

/** The shared registration state; throws outside a RegistrationProvider (a wiring mistake, not a runtime case). */
export function useRegistrationState(): RegistrationState {
  const state = useContext(RegistrationStateContext)
  if (!state) throw new Error('useRegistrationState() needs a <RegistrationProvider> above it')
  return state
}

/** The data as a key: the same trimmed values give the same key, whatever their order. */
function dataKey(data: RegistrationData): string {
  return JSON.stringify(
    Object.keys(data)
      .sort()
      .map((key) => [key, data[key]]),
  )
}

type Snapshot = Pick<RegistrationState, 'formData' | 'status' | 'serverErrors' | 'accepted'>

/**
 * The one registration state of a page, outside React, so that every island (each its own React root) shares it:
 * the inline form, the dialog's form, the buttons. Create one per page (per prerender on the server).
 */
export type RegistrationStore = Pick<RegistrationState, 'form' | 'launch' | 'setFormData' | 'honeypot' | 'submit'> & {
  subscribe: (listener: () => void) => () => void
  getSnapshot: () => Snapshot
}

type StoreOptions = {
  form: ClientFormConfig
  launch: string
  analytics?: Site['analytics'] | undefined
  /** Called after a registration is accepted (the page closes its dialog). */
  onSuccess?: () => void
}

/**
 * Holds the one form state of both forms, and sends registrations: one at a time, with the same submission id
 * while the data stays the same (a retry after a lost answer is stored once) and a new one when it changed (the
 * corrected registration is a new submission, never a conflict with the lost one), and attribution of the visit.
 */
export function createRegistrationStore({ form, launch, analytics, onSuccess }: StoreOptions): RegistrationStore {
  let snapshot: Snapshot = { formData: {}, status: 'idle', serverErrors: {}, accepted: 0 }
  const listeners = new Set<() => void>()
  const update = (change: Partial<Snapshot>) => {
    snapshot = { ...snapshot, ...change }
    for (const listener of listeners) listener()
  }
  let sending = false
  // The id and data of the last send whose answer was not a success (lost, failed, refused).
  let unanswered: { id: string; key: string } | undefined
  let attribution: Attribution | undefined
  const honeypot = { current: '' }

  const setFormData = (data: RegistrationData) => {
    saveDraft(data)
    update(Object.keys(snapshot.serverErrors).length ? { formData: data, serverErrors: {} } : { formData: data })
  }

  const submit = async (data: RegistrationData) => {
    // A second click, or the other form's button, while one is on its way sends nothing.
    if (sending) return false
    sending = true
    update({ status: 'submitting' })
    const key = dataKey(data)
    if (unanswered?.key !== key) unanswered = { id: crypto.randomUUID(), key }
    attribution ??= captureAttribution()
    const body = {
      ...data,
      launch,
      submissionId: unanswered.id,
      pageUrl: window.location.href,
      referrer: attribution.referrer,
      utm: attribution.utm,
      clickIds: attribution.clickIds,
      landingPage: attribution.landingPage,
      consentText: form.consent,
      [honeypotField]: honeypot.current,
    }
    try {
      const outcome = await sendRegistration(body)
      if (outcome.ok) {
        unanswered = undefined
        saveDraft({})
        update({ formData: {}, serverErrors: {}, accepted: snapshot.accepted + 1 })
        if (analytics) dataLayer().push({ event: 'generate_lead', form_id: 'vip-registration' })
        void showNotice({ kind: 'success', ...form.toasts.success })
        onSuccess?.()
        return true
      }
      console.error('Registration failed:', outcome.error)
      if (outcome.fieldErrors) update({ serverErrors: outcome.fieldErrors })
      void showNotice({ kind: 'error', ...form.toasts.error })
      return false
    } finally {
      sending = false
      update({ status: 'idle' })
    }
  }

  return {
    form,
    launch,
    setFormData,
    honeypot,
    submit,
    subscribe: (listener) => {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
    getSnapshot: () => snapshot,
  }
}

/** Gives the store's state to the forms below it; every island of a page wraps itself in one, with the same store. */
export function RegistrationProvider({ store, children }: { store: RegistrationStore; children: ReactNode }) {
  const snapshot = useSyncExternalStore(store.subscribe, store.getSnapshot, store.getSnapshot)
  const value = useMemo<RegistrationState>(
    () => ({
      form: store.form,
      launch: store.launch,
      setFormData: store.setFormData,
      honeypot: store.honeypot,
      submit: store.submit,
      ...snapshot,
    }),
    [store, snapshot],
  )
  return <RegistrationStateContext value={value}>{children}</RegistrationStateContext>
}
