import type { ClientPageConfig } from '../../../../schema/page-config.ts'
import type { Segment } from '../../../config/json-source.ts'
import type { FramePhase, FromPreview, PagePart } from '../editing/preview-messages.ts'
import { editInPlace } from './canvas-editing.ts'
import { acceptPictureDrops } from './canvas-pictures.ts'
import { markTexts, nameOfPart, type Marks } from './canvas-marks.ts'
import { markHidden } from './canvas-hidden.ts'
import { acceptSectionDrops, showToolbar } from './canvas-toolbar.ts'
import { elementOf, partAt } from './frame-bridge.ts'
import { originOf } from './text-targets.ts'

// The canvas: the studio's preview frame as the editor. Hovering a part outlines it with its name; a text the config
// holds is edited in place (click, or Tab to it and Enter); the selected section has its toolbar; a section is
// dragged by its handle; Ctrl+Z and Ctrl+Shift+Z reach the editing page's one history.

/** What the canvas needs from its frame. */
export type CanvasDeps = {
  root: HTMLElement
  post: (message: FromPreview) => void
  /** The config the frame shows now. */
  config: () => ClientPageConfig | undefined
  /** The phase the frame shows (none for a config without phases). */
  phase: () => FramePhase | undefined
  /** Renders the config again from scratch (after an edit in place, whose typing went around React). */
  remount: (change?: { path: Segment[]; value: string }) => void
}

/**
 * The canvas's side of the frame: call `shown` when the editing page outlines a part, `changed` when it sends a config
 * (the phase's hidden sections may change with the page's DOM staying the same).
 */
export type Canvas = { shown: (part: PagePart | null) => void; changed: () => void }

function floating(doc: Document, className: string, text: string, near: Element): void {
  doc.querySelector(`.${className}`)?.remove()
  const el = doc.createElement('div')
  el.className = className
  el.textContent = text
  if (className === 'studio-canvas-note') el.setAttribute('role', 'status')
  const rect = near.getBoundingClientRect()
  const win = doc.defaultView!
  el.style.top = `${Math.max(0, rect.top + win.scrollY)}px`
  el.style.left = `${Math.max(0, rect.left + win.scrollX)}px`
  doc.body.append(el)
}

function hover(deps: CanvasDeps, target: Element): void {
  const doc = deps.root.ownerDocument
  const part = partAt(deps.root, target)
  const element = part && elementOf(deps.root, part)
  const previous = doc.querySelector('[data-editor-hover]')
  if (previous === element) return
  previous?.removeAttribute('data-editor-hover')
  doc.querySelector('.studio-canvas-label')?.remove()
  const config = deps.config()
  if (!element || !part || !config) return
  element.setAttribute('data-editor-hover', '')
  floating(doc, 'studio-canvas-label', nameOfPart(config, part), element)
}

function startEditing(deps: CanvasDeps, element: HTMLElement, marks: Marks): boolean {
  const leaf = marks.get(element)
  if (!leaf || element.hasAttribute('data-editor-editing')) return false
  editInPlace(element, leaf, {
    post: deps.post,
    onEnd: (path, value) => {
      if (value !== undefined) deps.post({ type: 'edit', path, value })
      deps.remount(value === undefined ? undefined : { path, value })
    },
  })
  return true
}

function onClick(deps: CanvasDeps, marks: () => Marks, event: MouseEvent): void {
  const target = event.target instanceof HTMLElement ? event.target : null
  if (!target || target.closest('.studio-canvas-toolbar')) return
  const text = target.closest('[data-editor-text]')
  const config = deps.config()
  if (text instanceof HTMLElement) {
    // The page's own action (a button opening the dialog, a link) waits: the click is an edit here.
    event.preventDefault()
    startEditing(deps, text, marks())
  } else if (config && partAt(deps.root, target) && target.childNodes.length && target.textContent?.trim()) {
    const own = [...target.childNodes].some((n) => n.nodeType === Node.TEXT_NODE && n.textContent?.trim())
    if (own) floating(target.ownerDocument, 'studio-canvas-note', originOf(config, target.textContent), target)
  }
}

function onKey(deps: CanvasDeps, marks: () => Marks, event: KeyboardEvent): void {
  const target = event.target
  if (target instanceof HTMLElement && target.hasAttribute('data-editor-editing')) return
  if ((event.ctrlKey || event.metaKey) && event.key.toLowerCase() === 'z') {
    event.preventDefault()
    deps.post({ type: 'history', action: event.shiftKey ? 'redo' : 'undo' })
  } else if ((event.ctrlKey || event.metaKey) && event.key.toLowerCase() === 'y') {
    event.preventDefault()
    deps.post({ type: 'history', action: 'redo' })
  } else if (event.key === 'Enter' && target instanceof HTMLElement && target.hasAttribute('data-editor-text')) {
    if (startEditing(deps, target, marks())) event.preventDefault()
  }
}

/** Starts the canvas in an interactive preview frame. */
export function startCanvas(deps: CanvasDeps): Canvas {
  const doc = deps.root.ownerDocument
  let marks: Marks = new WeakMap()
  let pending = 0
  let selected: PagePart | null = null
  const refresh = () => {
    pending = 0
    const config = deps.config()
    if (config) marks = markTexts(deps.root, config)
    const hidden = config ? markHidden(deps.root, config, deps.phase()) : new Set<number>()
    const index = selected?.kind === 'section' ? selected.index : -1
    const section = selected?.kind === 'section' ? elementOf(deps.root, selected) : null
    const phase = deps.phase()
    showToolbar(doc, section, index, deps.post, phase && { words: phase.words, hidden: hidden.has(index) })
  }
  new MutationObserver(() => {
    if (!pending) pending = requestAnimationFrame(refresh)
  }).observe(deps.root, { childList: true, subtree: true, characterData: true })
  doc.addEventListener('mouseover', (event) => event.target instanceof Element && hover(deps, event.target))
  doc.addEventListener('click', (event) => onClick(deps, () => marks, event), true)
  doc.addEventListener('keydown', (event) => onKey(deps, () => marks, event))
  acceptSectionDrops(doc, deps.post)
  acceptPictureDrops(deps.root, deps.config, deps.post)
  return {
    shown: (part) => {
      selected = part
      refresh()
    },
    changed: () => {
      if (!pending) pending = requestAnimationFrame(refresh)
    },
  }
}
