import type { FromPreview, SectionAction } from '../editing/preview-messages.ts'

// The selected section's toolbar on the canvas (Move up, Move down, Duplicate, Delete, and a handle to drag it),
// and the drop of a dragged section between two others. Built outside React's root: the page's components stay as
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

/** Shows the toolbar of section `index` (its element `section`), or none (null); returns the toolbar shown. */
export function showToolbar(
  doc: Document,
  section: Element | null,
  index: number,
  post: (message: FromPreview) => void,
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
