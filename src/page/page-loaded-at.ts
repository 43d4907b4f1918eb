/** The global where the page's boot module (src/build/boot.ts) records when the page loaded. */
export const pageLoadedAtGlobal = '__pageLoadedAt'

/**
 * When the page loaded (the window's load event), on `performance.now()`'s clock: what "1 second after the page
 * loads" counts from, however long the app's code then takes to arrive and hydrate. Where no boot module ran (the
 * dev server), now.
 */
export function readPageLoadedAt(now = performance.now()): number {
  const recorded = (globalThis as Record<string, unknown>)[pageLoadedAtGlobal]
  return typeof recorded === 'number' ? recorded : now
}

/** How long from now until `delayMs` after the page loaded (0 if that has passed). */
export function computeDelayLeft(delayMs: number): number {
  const now = performance.now()
  return Math.max(0, delayMs - (now - readPageLoadedAt(now)))
}
