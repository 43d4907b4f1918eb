import { useDeferredValue, useLayoutEffect, useState } from 'react'
import Modal from 'react-modal'
import type { ModalProps } from '../../schema/page-config.ts'
import { FormPlaceholder, LazyRegistrationForm } from '../form/LazyRegistrationForm.tsx'
import { CloseIcon } from '../ui/icons.tsx'

type Props = { modal: ModalProps; isOpen: boolean; onClose: () => void }

/**
 * The registration dialog (react-modal): focus moves in and stays in while open, Escape and the overlay
 * close it, focus returns to where it was. Holds the same form, sharing its state with the inline one.
 */
export default function RegistrationDialog({ modal, isOpen, onClose }: Props) {
  useHidePageWhileOpen(isOpen)
  const opening = useOpening(isOpen)
  return (
    <Modal
      key={opening}
      isOpen={isOpen}
      onRequestClose={onClose}
      ariaHideApp={false}
      aria={{ labelledby: 'registration-dialog-title' }}
      closeTimeoutMS={150}
      overlayClassName="fixed inset-0 z-50 flex items-end justify-center bg-forest-950/70 p-0 sm:items-center sm:p-6"
      className="relative max-h-[100dvh] w-full overflow-y-auto rounded-t-2xl bg-cream-50 p-6 shadow-2xl outline-none sm:max-w-lg sm:rounded-2xl sm:p-8"
    >
      <button
        type="button"
        onClick={onClose}
        aria-label={modal.closeLabel}
        className="absolute top-3 right-3 flex size-11 items-center justify-center rounded-full text-ink hover:bg-cream-200"
      >
        <CloseIcon className="size-6" />
      </button>
      <h2 id="registration-dialog-title" className="pr-10 font-serif text-2xl font-semibold text-forest-900 sm:text-3xl">
        {modal.title}
      </h2>
      {modal.intro && <p className="mt-2 text-base text-ink-muted">{modal.intro}</p>}
      <div className="mt-6">
        <FormAfterDialog />
      </div>
    </Modal>
  )
}

/**
 * Which opening of the dialog this is: one more each time it opens. Each opening is a react-modal of its own (its
 * key), so none inherits the state of one still closing. Reopened during its closing animation (closeTimeoutMS), the
 * same react-modal could let its close timer run on: on a loaded phone its state ended closed while it was told to be
 * open, leaving no dialog and the page hidden. The one closing is unmounted (its animation cut short) as the new one opens.
 */
function useOpening(isOpen: boolean): number {
  const [opening, setOpening] = useState(0)
  const [wasOpen, setWasOpen] = useState(isOpen)
  // React's way to adjust state to a prop as it renders (no effect, no second commit).
  if (isOpen !== wasOpen) {
    setWasOpen(isOpen)
    if (isOpen) setOpening(opening + 1)
  }
  return opening
}

/**
 * Hides the page (#root) from assistive technology while the dialog is open, and shows it again as soon as it closes
 * or this component goes. Not react-modal's own hiding (ariaHideApp): that counts opens and closes in a module-wide
 * counter, and two cases count one open more than they close, which left the page aria-hidden for good: a reopen during
 * its closing animation (closeTimeoutMS), and React's development build under StrictMode, which mounts the open dialog,
 * unmounts it before its open state has committed (no close counted) and mounts it again. Setting the attribute from
 * the state is idempotent.
 */
function useHidePageWhileOpen(isOpen: boolean): void {
  useLayoutEffect(() => {
    const page = document.getElementById('root')
    if (!isOpen || !page) return
    page.setAttribute('aria-hidden', 'true')
    return () => page.removeAttribute('aria-hidden')
  }, [isOpen])
}

/**
 * The dialog's form, rendered just after the dialog around it. react-modal renders its content at once, in one
 * task with moving the focus in; the form is most of that work. Deferred (useDeferredValue), it renders in slices
 * that yield to the main thread, so that neither the dialog opening by itself nor a tap on a button that opens it
 * blocks the phone for long. Until then its place is held at its height.
 */
function FormAfterDialog() {
  const ready = useDeferredValue(true, false)
  return ready ? <LazyRegistrationForm idPrefix="dialog" /> : <FormPlaceholder />
}
