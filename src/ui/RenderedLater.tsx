import { useDeferredValue, type ReactNode } from 'react'

/**
 * Its children rendered in a commit after the one that mounts it (useDeferredValue), `fallback` until then: work that
 * would make one long task with what mounts around it becomes a render of its own, in slices that yield to the main
 * thread.
 */
export function RenderedLater({ children, fallback = null }: { children: ReactNode; fallback?: ReactNode }) {
  const ready = useDeferredValue(true, false)
  return ready ? children : fallback
}
