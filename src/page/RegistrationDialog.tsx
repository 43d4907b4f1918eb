import { useEffect, useLayoutEffect, useRef, useState } from 'react'
import Modal, { type OnAfterOpenCallbackOptions } from 'react-modal'
import type { ModalProps } from '../../schema/form-config.ts'
import { FormPlaceholder, LazyRegistrationForm } from '../form/LazyRegistrationForm.tsx'
import { CloseIcon } from '../ui/icons.tsx'
import { RenderedLater } from '../ui/RenderedLater.tsx'
import { yieldToMain } from './yield-to-main.ts'

type Props = { modal: ModalProps; isOpen: boolean; onClose: () => void }

/**
 * The registration dialog (react-modal): focus moves in and stays in while open, Escape and the overlay
 * close it, focus returns to where it was. Holds the same form, sharing its state with the inline one.
 */
export default function RegistrationDialog({ modal, isOpen, onClose }: Props) {
  const open = useOpenAfterMountingClosed(isOpen)
  useHidePageWhileOpen(open)
  const modalKey = useModalPerReopening(open)
  const focus = useFocusAfterFirstFrame()
  return (
    <Modal
      key={modalKey}
      isOpen={open}
      onRequestClose={onClose}
      ariaHideApp={false}
      shouldFocusAfterRender={false}
      onAfterOpen={focus.moveIn}
      onAfterClose={focus.giveBack}
      aria={{ labelledby: 'registration-dialog-title' }}
      closeTimeoutMS={150}
      // Its top stays where it first shows whatever the height of its content: on a phone a sheet of a fixed height
      // from the bottom, wider up a box hung from the top. Centred or sized to its content, it moved up as the form
      // took its placeholder's place, a frame or more after it opened on a slow phone (a layout shift of 0.18).
      overlayClassName="fixed inset-0 z-50 flex items-end justify-center bg-forest-950/70 p-0 sm:items-start sm:px-6 sm:py-[5dvh]"
      className="relative h-[calc(100dvh-3rem)] w-full overflow-y-auto rounded-t-2xl bg-cream-50 p-6 shadow-2xl outline-none sm:h-auto sm:max-h-[90dvh] sm:max-w-lg sm:rounded-2xl sm:p-8"
    >
      <button
        type="button"
        onClick={onClose}
        aria-label={modal.closeLabel}
        className="absolute top-3 right-3 flex size-11 items-center justify-center rounded-full text-ink hover:bg-cream-200"
      >
        <CloseIcon className="size-6" />
      </button>
      <h2
        id="registration-dialog-title"
        className="pr-10 font-serif text-2xl font-semibold text-forest-900 sm:text-3xl"
      >
        {modal.title}
      </h2>
      {modal.intro && <p className="mt-2 text-base text-ink-muted">{modal.intro}</p>}
      <div className="mt-6">
        {/* After the dialog around it: react-modal renders its content at once, and the form is most of that work. */}
        <RenderedLater fallback={<FormPlaceholder />}>
          <LazyRegistrationForm idPrefix="dialog" />
        </RenderedLater>
      </div>
    </Modal>
  )
}

/**
 * Whether the dialog is open, once its react-modal has first been mounted closed. Mounting the react-modal and opening
 * it are then two tasks: opened as it mounts, react-modal renders its content and moves the focus at once (its
 * componentDidMount sets its state, which React renders in the same commit), and on a phone the dialog opening by
 * itself, or at a tap before its code had arrived, was one task of 90-135 ms.
 */
function useOpenAfterMountingClosed(isOpen: boolean): boolean {
  const [mounted, setMounted] = useState(false)
  // The second render is the point: opening waits for a later task than mounting.
  // eslint-disable-next-line react-hooks/set-state-in-effect -- see the line above
  useEffect(() => setMounted(true), [])
  return isOpen && mounted
}

/**
 * The react-modal an opening uses (its key): the first opening uses the one mounted closed, and each later opening a
 * react-modal of its own, so none inherits the state of one still closing. Reopened during its closing animation
 * (closeTimeoutMS), the same react-modal could let its close timer run on: on a loaded phone its state ended closed
 * while it was told to be open, leaving no dialog and the page hidden. The one closing is unmounted (its animation cut
 * short) as the new one opens.
 */
function useModalPerReopening(isOpen: boolean): number {
  const [openings, setOpenings] = useState(isOpen ? 1 : 0)
  const [wasOpen, setWasOpen] = useState(isOpen)
  // React's way to adjust state to a prop as it renders (no effect, no second commit).
  if (isOpen !== wasOpen) {
    setWasOpen(isOpen)
    if (isOpen) setOpenings(openings + 1)
  }
  return Math.max(openings - 1, 0)
}

/**
 * Moves the focus into the dialog just after its first frame is drawn, and back to what had it once the dialog has
 * closed. react-modal's own focusing (shouldFocusAfterRender) runs in the task that renders the dialog, where the focus
 * makes the browser compute the page's style and layout at once and dispatch the focus events: with the rendering,
 * one task of 90-135 ms on a phone. Its first frame (react-modal's onAfterOpen runs in it) computes style and layout
 * anyway, and the focus then finds them done. Tab stays inside the dialog either way (react-modal's key handling).
 */
function useFocusAfterFirstFrame(): { moveIn: (options?: OnAfterOpenCallbackOptions) => void; giveBack: () => void } {
  const hadFocus = useRef<HTMLElement | null>(null)
  return {
    moveIn(options) {
      const content = options?.contentEl
      if (!content) return
      hadFocus.current = document.activeElement instanceof HTMLElement ? document.activeElement : null
      // After the frame is drawn: focus in the frame itself still makes the browser compute style and layout then.
      void yieldToMain().then(() => {
        if (content.isConnected && !content.contains(document.activeElement)) content.focus({ preventScroll: true })
      })
    },
    giveBack() {
      const element = hadFocus.current
      hadFocus.current = null
      if (element?.isConnected) element.focus({ preventScroll: true })
    },
  }
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
