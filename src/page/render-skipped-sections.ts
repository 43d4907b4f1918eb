/**
 * Renders, one at a time while the browser is idle, the parts of the page its first render skipped (those the
 * stylesheet gives `content-visibility: auto`: the sections after the first, the footer). The first paint stays
 * cheap on a phone, and soon after it the page is whole: exact heights for scrolling and anchors, and every box
 * laid out for tools that measure the page (axe's contrast check looks for the colour behind text by hit testing,
 * which skipped content does not take part in). One element per idle slot, so no task grows long.
 */
export function renderSkippedSections(root: ParentNode = document): void {
  const pending = [...root.querySelectorAll<HTMLElement>('#main > *, #root > *')].filter(
    (element) => getComputedStyle(element).contentVisibility === 'auto',
  )
  const schedule = (task: () => void) => (typeof requestIdleCallback === 'function' ? requestIdleCallback(task, { timeout: 2000 }) : setTimeout(task, 50))
  const next = () => {
    const element = pending.shift()
    if (!element) return
    element.style.contentVisibility = 'visible'
    schedule(next)
  }
  schedule(next)
}
