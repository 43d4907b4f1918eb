import { startTransition, useEffect, useState } from 'react'
import type { ModalProps } from '../../schema/form-config.ts'
import { captureAttribution } from '../form/attribution.ts'
import { loadRegistrationForm } from '../form/LazyRegistrationForm.tsx'
import { RenderedLater } from '../ui/RenderedLater.tsx'
import { loadTagManager } from './analytics.ts'
import { shouldOpenDialogByItself } from './dialog-memory.ts'
import { closeDialogByVisitor, openDialog, useDialogOpen } from './dialog-state.ts'
import { computeDelayLeft } from './page-loaded-at.ts'
import { yieldToMain } from './yield-to-main.ts'

type Parts = {
  Dialog: typeof import('./RegistrationDialog.tsx').default
  Toasts: typeof import('../form/Toasts.tsx').default
}

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
  // Whether the page has loaded, after which the dialog's and the toasts' code loads; a visitor opening the dialog
  // before then (a tap before the load event) needs it at once.
  const [pageLoaded, setPageLoaded] = useState(false)
  const [parts, setParts] = useState<Parts>()
  const partsNeeded = pageLoaded || open

  useEffect(() => {
    let stopped = false
    let timer: number | undefined
    // The form's code loads once the page has loaded (its main image first), not alongside it; the dialog's and the
    // toasts' in the next task: each import adds its preload links and evaluates what has already arrived.
    const preload = () => {
      void (async () => {
        void loadRegistrationForm()
        await yieldToMain()
        if (!stopped) setPageLoaded(true)
      })()
    }
    // Each step in a task of its own: the first reads of this browser's storage can wait on the browser.
    void (async () => {
      captureAttribution()
      await yieldToMain()
      if (stopped) return
      // Not when the config (a phase) turns it off, after a registration in this browser, nor within modal.snoozeDays
      // of the visitor closing it. The delay counts from the page's load, not from this island's hydration.
      if (modal.opensByItself !== false && shouldOpenDialogByItself(modal.snoozeDays ?? 0))
        timer = window.setTimeout(openDialog, computeDelayLeft(modal.openDelayMs))
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

  useEffect(() => {
    if (!partsNeeded || parts) return
    let stopped = false
    loadParts().then(
      (loaded) => {
        if (!stopped) startTransition(() => setParts(loaded))
      },
      (error: unknown) => console.error('The registration dialog could not be loaded.', error),
    )
    return () => {
      stopped = true
    }
  }, [partsNeeded, parts])

  if (!parts) return null
  const { Dialog, Toasts } = parts
  return (
    <>
      <Dialog modal={modal} isOpen={open} onClose={closeDialogByVisitor} />
      {/* In a commit after the dialog's: each mount a task of its own on a phone, not one long one. */}
      <RenderedLater>
        <Toasts />
      </RenderedLater>
    </>
  )
}
