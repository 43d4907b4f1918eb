import { useSyncExternalStore } from 'react'

// Module-level, so every island (each its own React root) opens and closes the same dialog.
let open = false
const listeners = new Set<() => void>()

function set(next: boolean): void {
  if (open === next) return
  open = next
  for (const listener of listeners) listener()
}

/** Opens the registration dialog (from any button, in any island). */
export function openDialog(): void {
  set(true)
}

/** Closes the registration dialog. */
export function closeDialog(): void {
  set(false)
}

/** Whether the registration dialog is open; re-renders the caller when that changes. */
export function useDialogOpen(): boolean {
  return useSyncExternalStore(
    (listener) => {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
    () => open,
    () => false,
  )
}
