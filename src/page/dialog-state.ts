import { startTransition, useEffect, useState } from 'react'
import { rememberDialogClosed, rememberRegistered } from './dialog-memory.ts'

// Module-level, so every island (each its own React root) opens and closes the same dialog.
let open = false
const setters = new Set<(open: boolean) => void>()

/**
 * Opens the registration dialog (from any button, in any island, or the timer). As a transition: React renders
 * the dialog and its form in slices, yielding to the main thread between them, instead of one long task.
 */
export function openDialog(): void {
  open = true
  startTransition(() => {
    for (const set of setters) set(true)
  })
}

/** Closes the registration dialog at once (Escape, the close button, a successful registration). */
export function closeDialog(): void {
  open = false
  for (const set of setters) set(false)
}

/** The visitor closed the dialog: it stays shut by itself for the config's snoozeDays (dialog-memory.ts). */
export function closeDialogByVisitor(): void {
  rememberDialogClosed()
  closeDialog()
}

/** A registration from this browser was accepted: the dialog closes and no longer opens by itself here. */
export function closeDialogAfterRegistration(): void {
  rememberRegistered()
  closeDialog()
}

/** Whether the registration dialog is open; re-renders the caller when that changes. */
export function useDialogOpen(): boolean {
  // State, not useSyncExternalStore: a store's updates always render synchronously, never as a transition.
  const [value, setValue] = useState(false)
  useEffect(() => {
    setters.add(setValue)
    // Catches up with an opening between the render and this subscription (a tap before hydration).
    // eslint-disable-next-line react-hooks/set-state-in-effect -- see the line above
    setValue(open)
    return () => {
      setters.delete(setValue)
    }
  }, [])
  return value
}
