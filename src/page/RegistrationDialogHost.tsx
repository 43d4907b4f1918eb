import { startTransition, useEffect, useState } from 'react'
import type { ModalProps } from '../../schema/page-config.ts'
import { captureAttribution } from '../form/attribution.ts'
import { loadRegistrationForm } from '../form/LazyRegistrationForm.tsx'
import { loadTagManager } from './analytics.ts'
import { shouldOpenDialogByItself } from './dialog-memory.ts'
import { closeDialogByVisitor, openDialog, useDialogOpen } from './dialog-state.ts'
import { computeDelayLeft } from './page-loaded-at.ts'
import { yieldToMain } from './yield-to-main.ts'

type Parts = { Dialog: typeof import('./RegistrationDialog.tsx').default; Toasts: typeof import('../form/Toasts.tsx').default }

let loadingParts: Promise<Parts> | undefined
/** The dialog's and the toasts' code, loaded once (again after a failed attempt). */
function loadParts(): Promise<Parts> {
  loadingParts ??= Promise.all([import('./RegistrationDialog.tsx'), import('../form/Toasts.tsx')]).then(
    ([dialog, toasts]) => ({ Dialog: dialog.default, Toasts: toasts.default }),
    (error: unknown) => {
      loadingParts = undefined
      throw error
    },
  )
  return loadingParts
}

type Props = { modal: ModalProps; tagManagerId?: string | undefined }

/**
 * The landing page's client-only parts, as an island that prerenders to nothing: the registration dialog (opened
 * by itself after the config's delay, or by any button that opens it) and the toasts' container. Also records the
 * visit's attribution, loads the form's code once the page has loaded, and the Tag Manager when configured.
 *
 * The dialog and the toasts mount once their code is here, as a transition of their own: not behind a Suspense
 * boundary, whose reveal React may hold back and then commit together with the dialog's opening, making that one
 * task the longest of the page's first seconds on a phone.
 */
export function RegistrationDialogHost({ modal, tagManagerId }: Props) {
  const open = useDialogOpen()
  const [parts, setParts] = useState<Parts>()

  useEffect(() => {
    let stopped = false
    let timer: number | undefined
    const mount = (loaded: Parts) => {
      if (!stopped) startTransition(() => setParts(loaded))
    }
    // The form, dialog and toast code load once the page has loaded (its main image first), not alongside it,
    // one per task: each import adds its preload links and evaluates what has already arrived.
    const preload = () => {
      void (async () => {
        void loadRegistrationForm()
        await yieldToMain()
        if (stopped) return
        loadParts().then(mount, (error: unknown) => console.error('The registration dialog could not be loaded.', error))
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

  // Opened before its code was here (a tap before the page's load event): load it now.
  useEffect(() => {
    if (!open || parts) return
    let stopped = false
    loadParts().then(
      (loaded) => !stopped && setParts(loaded),
      (error: unknown) => console.error('The registration dialog could not be loaded.', error),
    )
    return () => {
      stopped = true
    }
  }, [open, parts])

  if (!parts) return null
  const { Dialog, Toasts } = parts
  return (
    <>
      <Dialog modal={modal} isOpen={open} onClose={closeDialogByVisitor} />
      <Toasts />
    </>
  )
}
