import { lazy, Suspense, useEffect, useState } from 'react'
import type { ModalProps } from '../../schema/page-config.ts'
import { captureAttribution } from '../form/attribution.ts'
import { loadRegistrationForm } from '../form/LazyRegistrationForm.tsx'
import { loadTagManager } from './analytics.ts'
import { shouldOpenDialogByItself } from './dialog-memory.ts'
import { closeDialogByVisitor, openDialog, useDialogOpen } from './dialog-state.ts'
import { computeDelayLeft } from './page-loaded-at.ts'
import { yieldToMain } from './yield-to-main.ts'

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
    let stopped = false
    let timer: number | undefined
    // The form, dialog and toast code load once the page has loaded (its main image first), not alongside it,
    // one per task: each import adds its preload links and evaluates what has already arrived.
    const preload = () => {
      void (async () => {
        for (const load of [loadRegistrationForm, loadDialog, loadToasts]) {
          if (stopped) return
          void load()
          await yieldToMain()
        }
      })()
    }
    // Each step in a task of its own: the first reads of this browser's storage can wait on the browser.
    void (async () => {
      captureAttribution()
      await yieldToMain()
      if (stopped) return
      // Not when the config (a phase) turns it off, after a registration in this browser, nor within modal.snoozeDays
      // of the visitor closing it. The delay counts from the page's load, not from this island's hydration.
      if (modal.opensByItself !== false && shouldOpenDialogByItself(modal.snoozeDays ?? 0)) timer = window.setTimeout(openDialog, computeDelayLeft(modal.openDelayMs))
      if (tagManagerId) {
        await yieldToMain()
        if (stopped) return
        loadTagManager(tagManagerId)
      }
      if (document.readyState === 'complete') preload()
      else window.addEventListener('load', preload, { once: true })
    })()
    return () => {
      stopped = true
      window.clearTimeout(timer)
      window.removeEventListener('load', preload)
    }
  }, [modal.openDelayMs, modal.snoozeDays, modal.opensByItself, tagManagerId])

  if (!hydrated) return null
  return (
    <Suspense fallback={null}>
      <RegistrationDialog modal={modal} isOpen={open} onClose={closeDialogByVisitor} />
      <Toasts />
    </Suspense>
  )
}
