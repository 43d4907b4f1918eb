import type { ClientPageConfig } from '../../../../schema/page-config.ts'
import type { FromPreview, PagePart, ToPreview } from '../editing/preview-messages.ts'

// The preview frame's half of the round trip with its editing page (the studio's, or `npm run edit`'s): the page is
// rendered by the caller; clicking a part of it tells the editing page which part; the editing page tells the frame
// which part the cursor is in. Like Puck's preview, the frame renders the real components; unlike it, the frame is a
// document of its own fed by postMessage, so the page's own stylesheet and a strict CSP apply as on the live site.

/** The page as visitors see it, less what would get in the way of editing or leave this machine. */
export function forPreview(config: ClientPageConfig): ClientPageConfig {
  const site = { ...config.site }
  delete site.analytics
  // The registration dialog opens by itself after a delay: over the page being edited, in both frames, after
  // every reload. In the preview it opens only from its buttons. (Just under the largest timer delay browsers keep.)
  return { ...config, site, modal: { ...config.modal, openDelayMs: 2_000_000_000 } }
}

/** The element that shows a part of the page: the header, the footer, or the index-th section of <main>. */
export function elementOf(root: Element, part: PagePart): Element | null {
  if (part.kind === 'header') return root.querySelector(':scope > header')
  if (part.kind === 'footer') return root.querySelector(':scope > footer')
  return root.ownerDocument.querySelector('main#main')?.children[part.index] ?? null
}

/** The part of the page an element is in (null: none of them, e.g. the dialog). */
export function partAt(root: Element, target: Element): PagePart | null {
  const main = root.ownerDocument.querySelector('main#main')
  for (let el: Element | null = target; el; el = el.parentElement) {
    if (main && el.parentElement === main)
      return { kind: 'section', index: Array.prototype.indexOf.call(main.children, el) }
    if (el.tagName === 'HEADER' && el.parentElement === root) return { kind: 'header' }
    if (el.tagName === 'FOOTER' && el.parentElement === root) return { kind: 'footer' }
  }
  return null
}

function show(root: Element, part: PagePart | null, scroll: boolean): void {
  const doc = root.ownerDocument
  for (const el of doc.querySelectorAll('[data-editor-current]')) el.removeAttribute('data-editor-current')
  const el = part && elementOf(root, part)
  if (!el) return
  el.setAttribute('data-editor-current', '')
  // Instant, whatever the page's smooth scrolling says: the frame should be there when the person looks.
  // Sections land below the sticky header, not under it.
  const header =
    part.kind === 'section' ? (root.querySelector(':scope > header')?.getBoundingClientRect().height ?? 0) : 0
  const win = doc.defaultView
  if (scroll && win) win.scrollTo({ top: el.getBoundingClientRect().top + win.scrollY - header, behavior: 'instant' })
}

/** What the frame does with a page config: render it (and, in the studio, load the draft form's validator first). */
export type FrameBridgeOptions = {
  root: HTMLElement
  render: (message: Extract<ToPreview, { type: 'config' }>) => void
  interactive: boolean
  /** The editing page outlined a part (the cursor's): the canvas shows its toolbar. */
  onShow?: (part: PagePart | null) => void
}

/**
 * Starts the frame's side: answers the editing page's messages (same origin, from the parent only) and, when
 * `interactive`, reports clicks on parts of the page. Links that would leave the page do nothing in a preview.
 */
export function startFrameBridge({ root, render, interactive, onShow }: FrameBridgeOptions): {
  ready: (hasPage: boolean) => void
  post: (message: FromPreview) => void
} {
  const win = root.ownerDocument.defaultView!
  const post = (message: FromPreview) => {
    if (win.parent !== win) win.parent.postMessage(message, win.location.origin)
  }
  root.ownerDocument.addEventListener(
    'click',
    (event) => {
      const target = event.target instanceof Element ? event.target : null
      if (!target) return
      const link = target.closest('a[href]')
      if (link && !(link.getAttribute('href') ?? '').startsWith('#')) event.preventDefault()
      const part = interactive ? partAt(root, target) : null
      // A click that edits a text in place keeps the focus here: the code follows without taking it.
      if (part) post({ type: 'select', part, ...(target.closest('[data-editor-text]') ? { keepFocus: true } : {}) })
    },
    true,
  )
  if (interactive) {
    win.addEventListener('message', (event: MessageEvent<ToPreview>) => {
      if (event.origin !== win.location.origin || event.source !== win.parent) return
      const message = event.data
      if (message.type === 'config') render(message)
      else if (message.type === 'show') {
        show(root, message.part, message.scroll)
        onShow?.(message.part)
      } else if (message.type === 'scroll-to') win.scrollTo({ top: message.y, behavior: 'instant' })
    })
  }
  return { ready: (hasPage) => post({ type: 'ready', hasPage }), post }
}
