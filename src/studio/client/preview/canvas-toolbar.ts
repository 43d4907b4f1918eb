import type { FromPreview, SectionAction } from '../editing/preview-messages.ts'

// The selected section's toolbar on the canvas (Move up, Move down, Duplicate, Delete, Hide in this phase when a
// phase is shown, and a handle to drag it), and the drop of a dragged section between two others. Built outside
// React's root: the page's components stay as
// the public page has them.

const dragType = 'application/x-studio-section'

function button(doc: Document, label: string, title: string, onClick: () => void): HTMLButtonElement {
  const el = doc.createElement('button')
  el.type = 'button'
  el.textContent = label
  el.title = title
  el.addEventListener('click', (event) => {
    event.preventDefault()
    event.stopPropagation()
    onClick()
  })
  return el
}

/** The phase the previews show, for the toolbar: its name in the team's words and whether it hides this section. */
export type ToolbarPhase = { words: string; hidden: boolean }

/** Hide in this phase, or Show in this phase for a section the shown phase hides. */
function phaseButton(doc: Document, index: number, phase: ToolbarPhase, post: (message: FromPreview) => void) {
  const hide = !phase.hidden
  return button(
    doc,
    hide ? 'Hide in this phase' : 'Show in this phase',
    hide
      ? `Leave this section out of the page during ${phase.words} (the other phases still show it)`
      : `Show this section again during ${phase.words}`,
    () => post({ type: 'phase-hide', index, hide }),
  )
}

/**
 * Shows the toolbar of section `index` (its element `section`), or none (null). With a phase shown (`phase`), it has
 * Hide in this phase (or Show in this phase); a config without phases has none.
 */
export function showToolbar(
  doc: Document,
  section: Element | null,
  index: number,
  post: (message: FromPreview) => void,
  phase?: ToolbarPhase,
): void {
  doc.querySelector('.studio-canvas-toolbar')?.remove()
  if (!section) return
  const bar = doc.createElement('div')
  bar.className = 'studio-canvas-toolbar'
  bar.setAttribute('role', 'toolbar')
  bar.setAttribute('aria-label', `Section ${index + 1}`)
  const act = (action: SectionAction['action']) => () => post({ type: 'section', action, index } as FromPreview)
  const handle = doc.createElement('span')
  handle.textContent = '⠿ Drag'
  handle.title = 'Drag this section to another place'
  handle.draggable = true
  handle.addEventListener('dragstart', (event) => {
    event.dataTransfer?.setData(dragType, String(index))
    if (event.dataTransfer) event.dataTransfer.effectAllowed = 'move'
  })
  bar.append(
    handle,
    button(doc, 'Move up', 'Move this section above the one before', act('up')),
    button(doc, 'Move down', 'Move this section below the one after', act('down')),
    button(doc, 'Duplicate', 'Add a copy of this section after it', act('duplicate')),
    button(doc, 'Delete', 'Remove this section (Undo brings it back)', act('delete')),
  )
  if (phase) bar.append(phaseButton(doc, index, phase, post))
  doc.body.append(bar)
  const rect = section.getBoundingClientRect()
  const win = doc.defaultView!
  bar.style.top = `${Math.max(0, rect.top + win.scrollY) + 8}px`
  bar.style.left = `${Math.max(8, rect.right + win.scrollX - bar.offsetWidth - 8)}px`
}

/** Where a section dropped at height `y` goes: before or after the section under it, as a final index. */
function dropIndex(main: Element, from: number, y: number): number | undefined {
  const sections = [...main.children]
  const over = sections.findIndex((s) => {
    const r = s.getBoundingClientRect()
    return y >= r.top && y < r.bottom
  })
  if (over < 0) return undefined
  const r = sections[over]!.getBoundingClientRect()
  const before = y < r.top + r.height / 2
  const slot = before ? over : over + 1
  return slot > from ? slot - 1 : slot
}

/** Lets a section dragged by its handle be dropped between the others; the move is asked of the editing page. */
export function acceptSectionDrops(doc: Document, post: (message: FromPreview) => void): void {
  const main = () => doc.querySelector('main#main')
  doc.addEventListener('dragover', (event) => {
    if (event.dataTransfer?.types.includes(dragType)) event.preventDefault()
  })
  doc.addEventListener('drop', (event) => {
    const from = Number(event.dataTransfer?.getData(dragType) ?? NaN)
    const sections = main()
    if (!sections || Number.isNaN(from) || !event.dataTransfer?.types.includes(dragType)) return
    event.preventDefault()
    const to = dropIndex(sections, from, event.clientY)
    if (to !== undefined && to !== from) post({ type: 'section', action: 'move', index: from, to })
  })
}
