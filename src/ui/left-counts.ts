/**
 * The page's one reading of what is left (issue 45): `GET /_release/left.json` on the launch's own host (the Node
 * server), or on a static host the hosted function's `…/left.json?launch=<slug>` (the card's `source`, written at
 * build time), asked once when the browser is idle after the page is interactive (never before the first render),
 * shared by every card that counts. Undefined when there is no such answer (a preview) or the launch has no inventory.
 */

/** The server's answer (src/server/release/left-counts.ts). */
export type LeftAnswer = { left: Record<string, number>; available: string[][]; inventory: boolean }

let reading: Promise<LeftAnswer | undefined> | undefined

/** Waits until the browser has nothing more urgent to do (the page is loaded and idle). */
function whenIdle(): Promise<void> {
  return new Promise((resolve) => {
    const idle = () =>
      typeof window.requestIdleCallback === 'function'
        ? window.requestIdleCallback(() => resolve(), { timeout: 3000 })
        : setTimeout(resolve, 200)
    if (document.readyState === 'complete') idle()
    else window.addEventListener('load', idle, { once: true })
  })
}

async function read(source: string): Promise<LeftAnswer | undefined> {
  await whenIdle()
  try {
    // no-cache: the browser asks again with the ETag it holds, and a 304 costs no body.
    const response = await fetch(source, { credentials: 'omit', cache: 'no-cache' })
    if (!response.ok) return undefined
    const answer = (await response.json()) as Partial<LeftAnswer>
    return answer.inventory === true && Array.isArray(answer.available) ? (answer as LeftAnswer) : undefined
  } catch {
    return undefined
  }
}

/** What is left, read once for the page: from `source` when given (every card of a page gives the same), else here. */
export function readLeft(source = '/_release/left.json'): Promise<LeftAnswer | undefined> {
  reading ??= read(source)
  return reading
}

/** How many lots left take any of `models` (a lot that takes two of them counts once). */
export function countLeft(answer: LeftAnswer, models: readonly string[]): number {
  return answer.available.filter((lotModels) => lotModels.some((m) => models.includes(m))).length
}
