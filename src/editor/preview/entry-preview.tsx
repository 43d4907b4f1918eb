import '../../styles.css'
import { StrictMode } from 'react'
import { createRoot, type Root } from 'react-dom/client'
import type { ClientPageConfig } from '../../../schema/page-config.ts'
import { App } from '../../page/App.tsx'
import { configScriptId } from '../../page/client-config.ts'
import type { FromPreview, PagePart, ToPreview } from '../client/protocol.ts'

// One preview frame of the editor: the real page (App) with the editor's latest config without problems, re-rendered
// in place when it changes, so the frame keeps its scroll position. Clicking a part of the page tells the editor
// which part; the editor tells the frame which part the cursor is in.

const rootElement = document.getElementById('root') as HTMLElement
let root: Root | undefined

/** The page as visitors see it, less what would get in the way of editing or leave this machine. */
function forPreview(config: ClientPageConfig): ClientPageConfig {
  const { analytics: _analytics, ...site } = config.site
  // The registration dialog opens by itself after a delay: over the page being edited, in both frames, after
  // every reload. In the preview it opens only from its buttons. (Just under the largest timer delay browsers keep.)
  return { ...config, site, modal: { ...config.modal, openDelayMs: 2_000_000_000 } }
}

function render(config: ClientPageConfig): void {
  root ??= createRoot(rootElement)
  root.render(
    <StrictMode>
      <App config={forPreview(config)} pathname="/" />
    </StrictMode>,
  )
}

function post(message: FromPreview): void {
  window.parent.postMessage(message, window.location.origin)
}

/** The element that shows a part of the page: the header, the footer, or the index-th section of <main>. */
function elementOf(part: PagePart): Element | null {
  if (part.kind === 'header') return document.querySelector('#root > header')
  if (part.kind === 'footer') return document.querySelector('#root > footer')
  return document.querySelector('main#main')?.children[part.index] ?? null
}

function partAt(target: Element): PagePart | null {
  const main = document.querySelector('main#main')
  for (let el: Element | null = target; el; el = el.parentElement) {
    if (el.parentElement === main && main) return { kind: 'section', index: Array.prototype.indexOf.call(main.children, el) }
    if (el.tagName === 'HEADER' && el.parentElement === rootElement) return { kind: 'header' }
    if (el.tagName === 'FOOTER' && el.parentElement === rootElement) return { kind: 'footer' }
  }
  return null
}

const highlight = document.createElement('style')
highlight.textContent = '[data-editor-current]{outline:3px solid #2563eb;outline-offset:-3px}'
document.head.append(highlight)

function show(part: PagePart | null, scroll: boolean): void {
  for (const el of document.querySelectorAll('[data-editor-current]')) el.removeAttribute('data-editor-current')
  const el = part && elementOf(part)
  if (!el) return
  el.setAttribute('data-editor-current', '')
  // Instant, whatever the page's smooth scrolling says: the frame should be there when the person looks.
  // Sections land below the sticky header, not under it.
  const header = part.kind === 'section' ? (document.querySelector('#root > header')?.getBoundingClientRect().height ?? 0) : 0
  if (scroll) window.scrollTo({ top: el.getBoundingClientRect().top + window.scrollY - header, behavior: 'instant' })
}

document.addEventListener(
  'click',
  (event) => {
    const target = event.target instanceof Element ? event.target : null
    if (!target) return
    // Links that leave the page would take the preview away from it; links within the page still scroll.
    const link = target.closest('a[href]')
    if (link && !(link.getAttribute('href') ?? '').startsWith('#')) event.preventDefault()
    const part = partAt(target)
    if (part) post({ type: 'select', part })
  },
  true,
)

window.addEventListener('message', (event: MessageEvent<ToPreview>) => {
  if (event.origin !== window.location.origin || event.source !== window.parent) return
  const message = event.data
  if (message.type === 'config') render(message.config)
  else if (message.type === 'show') show(message.part, message.scroll)
  else if (message.type === 'scroll-to') window.scrollTo({ top: message.y, behavior: 'instant' })
})

const initial = document.getElementById(configScriptId)?.textContent
if (initial) render(JSON.parse(initial) as ClientPageConfig)
else rootElement.textContent = 'The page will show here as soon as page.config.json has no problems.'
post({ type: 'ready', hasPage: Boolean(initial) })
