import { lazy, Suspense, useEffect, useState } from 'react'
import type { ModalProps } from '../../schema/page-config.ts'
import { captureAttribution } from '../form/attribution.ts'
import { loadRegistrationForm } from '../form/LazyRegistrationForm.tsx'
import { loadTagManager } from './analytics.ts'
import { shouldOpenDialogByItself } from './dialog-memory.ts'
import { closeDialogByVisitor, openDialog, useDialogOpen } from './dialog-state.ts'

const loadDialog = () => import('./RegistrationDialog.tsx')
const RegistrationDialog = lazy(loadDialog)
const loadToasts = () => import('../form/Toasts.tsx')
const Toasts = lazy(loadToasts)

type Props = { modal: ModalProps; tagManagerId?: string | undefined }

/**
 * The landing page's client-only parts, as an island that prerenders to nothing: the registration dialog (opened
 * by itself after the config's delay, or by any button that opens it) and the toasts' container. Also records the
 * visit's attribution, loads the form's code once the page has loaded, and the Tag Manager when configured.
 */
export function RegistrationDialogHost({ modal, tagManagerId }: Props) {
  const open = useDialogOpen()
  // Mounted after hydration, so the prerendered HTML (nothing) matches.
  const [hydrated, setHydrated] = useState(false)

  useEffect(() => {
    setHydrated(true)
    captureAttribution()
    // The form, dialog and toast code load once the page has loaded (its main image first), not alongside it.
    const preload = () => {
      void loadRegistrationForm()
      void loadDialog()
      void loadToasts()
    }
    if (document.readyState === 'complete') preload()
    else window.addEventListener('load', preload, { once: true })
    if (tagManagerId) loadTagManager(tagManagerId)
    // Not after a registration in this browser, nor within modal.snoozeDays of the visitor closing it.
    const timer = shouldOpenDialogByItself(modal.snoozeDays ?? 0) ? window.setTimeout(openDialog, modal.openDelayMs) : undefined
    return () => {
      window.clearTimeout(timer)
      window.removeEventListener('load', preload)
    }
  }, [modal.openDelayMs, modal.snoozeDays, tagManagerId])

  if (!hydrated) return null
  return (
    <Suspense fallback={null}>
      <RegistrationDialog modal={modal} isOpen={open} onClose={closeDialogByVisitor} />
      <Toasts />
    </Suspense>
  )
}
