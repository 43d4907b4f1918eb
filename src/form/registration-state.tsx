import { createContext, useCallback, useContext, useMemo, useRef, useState, type ReactNode } from 'react'
import type { ClientFormConfig, Site } from '../../schema/page-config.ts'
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
  formData: RegistrationData
  setFormData: (data: RegistrationData) => void
  status: SubmitStatus
  /** Field messages from the server's last 400 answer, until the visitor edits again. */
  serverErrors: FieldMessages
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
  return JSON.stringify(Object.keys(data).sort().map((key) => [key, data[key]]))
}

type ProviderProps = {
  form: ClientFormConfig
  analytics?: Site['analytics']
  /** Called after a registration is accepted (the page closes its dialog). */
  onSuccess?: () => void
  children: ReactNode
}

/**
 * Holds the one form state of both forms, and sends registrations: one at a time, with the same submission id
 * while the data stays the same (a retry after a lost answer is stored once) and a new one when it changed (the
 * corrected registration is a new submission, never a conflict with the lost one), and attribution of the visit.
 */
export function RegistrationProvider({ form, analytics, onSuccess, children }: ProviderProps) {
  const [formData, setFormDataState] = useState<RegistrationData>({})
  const [status, setStatus] = useState<SubmitStatus>('idle')
  const [serverErrors, setServerErrors] = useState<FieldMessages>({})
  const sending = useRef(false)
  // The id and data of the last send whose answer was not a success (lost, failed, refused).
  const unanswered = useRef<{ id: string; key: string } | undefined>(undefined)
  const honeypot = useRef('')
  const attribution = useRef<Attribution | undefined>(undefined)

  const setFormData = useCallback((data: RegistrationData) => {
    setFormDataState(data)
    saveDraft(data)
    setServerErrors((current) => (Object.keys(current).length ? {} : current))
  }, [])

  const submit = useCallback(
    async (data: RegistrationData) => {
      // A second click, or the other form's button, while one is on its way sends nothing.
      if (sending.current) return false
      sending.current = true
      setStatus('submitting')
      const key = dataKey(data)
      if (unanswered.current?.key !== key) unanswered.current = { id: crypto.randomUUID(), key }
      attribution.current ??= captureAttribution()
      const body = {
        ...data,
        submissionId: unanswered.current.id,
        pageUrl: window.location.href,
        referrer: attribution.current.referrer,
        utm: attribution.current.utm,
        clickIds: attribution.current.clickIds,
        landingPage: attribution.current.landingPage,
        consentText: form.consent,
        [honeypotField]: honeypot.current,
      }
      try {
        const outcome = await sendRegistration(body)
        if (outcome.ok) {
          unanswered.current = undefined
          setFormDataState({})
          saveDraft({})
          setServerErrors({})
          if (analytics) dataLayer().push({ event: 'generate_lead', form_id: 'vip-registration' })
          void showNotice({ kind: 'success', ...form.toasts.success })
          onSuccess?.()
          return true
        }
        console.error('Registration failed:', outcome.error)
        if (outcome.fieldErrors) setServerErrors(outcome.fieldErrors)
        void showNotice({ kind: 'error', ...form.toasts.error })
        return false
      } finally {
        sending.current = false
        setStatus('idle')
      }
    },
    [form, analytics, onSuccess],
  )

  const value = useMemo<RegistrationState>(
    () => ({ form, formData, setFormData, status, serverErrors, honeypot, submit }),
    [form, formData, setFormData, status, serverErrors, submit],
  )
  return <RegistrationStateContext value={value}>{children}</RegistrationStateContext>
}
