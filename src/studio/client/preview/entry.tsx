import '../../../styles.css'
import './preview.css'
import './canvas.css'
import { StrictMode } from 'react'
import { createRoot, type Root } from 'react-dom/client'
import type { ClientPageConfig } from '../../../../schema/page-config.ts'
import type { Segment } from '../../../config/json-source.ts'
import type { FramePhase } from '../editing/preview-messages.ts'
import { App } from '../../../page/App.tsx'
import { previewLinkImagesBase, studioApi } from '../api.ts'
import { withStudioImages } from '../preview-config.ts'
import { startCanvas, type Canvas } from './canvas.ts'
import { forPreview, startFrameBridge } from './frame-bridge.ts'
import { setDraftValidatorUrl } from './validator-url.ts'

// The studio's preview frame (/studio/preview-frame, and /studio/preview/:token for a signed link): the launch's
// real page code (App, its sections, its form) rendering the draft. Signed in, the studio's editor feeds it the
// config as the person types, and the frame is its canvas (canvas.ts); by a link, it fetches the draft once and
// renders it read-only.

const rootElement = document.getElementById('root') as HTMLElement
let root: Root | undefined
let loadedValidator: string | undefined
let shown: ClientPageConfig | undefined
let shownPhase: FramePhase | undefined
// A new key renders the page from scratch: after an edit in place, whose typing changed the DOM around React.
let generation = 0

function render(config: ClientPageConfig, validatorUrl: string | undefined): void {
  if (validatorUrl) {
    // The form's validator is loaded once per document: a draft with another form is shown by a fresh frame.
    if (loadedValidator !== undefined && loadedValidator !== validatorUrl) {
      window.location.reload()
      return
    }
    loadedValidator = validatorUrl
    setDraftValidatorUrl(validatorUrl)
  }
  shown = config
  document.documentElement.lang = config.site.lang
  root ??= createRoot(rootElement)
  root.render(
    <StrictMode>
      <App key={generation} config={forPreview(config)} pathname="/" />
    </StrictMode>,
  )
}

/** The config with the text at `path` set to `value` (a copy). */
function withText(config: ClientPageConfig, path: Segment[], value: string): ClientPageConfig {
  const copy = structuredClone(config)
  let node = copy as unknown as Record<string, unknown>
  for (const step of path.slice(0, -1)) node = node[String(step)] as Record<string, unknown>
  node[String(path.at(-1))] = value
  return copy
}

function say(text: string): void {
  const p = document.createElement('p')
  p.className = 'studio-preview-note'
  p.textContent = text
  rootElement.replaceChildren(p)
}

const token = document.querySelector<HTMLMetaElement>('meta[name="studio-preview-token"]')?.content
if (token) {
  startFrameBridge({ root: rootElement, render: () => {}, interactive: false })
  studioApi.previewByToken(token).then(
    (preview) =>
      preview.config
        ? render(withStudioImages(preview.config, previewLinkImagesBase(token)), preview.validatorUrl)
        : say('This draft has problems to fix before it can be shown.'),
    (error: unknown) => say((error as Error).message),
  )
} else {
  const later: { canvas?: Canvas } = {}
  const bridge = startFrameBridge({
    root: rootElement,
    render: (message) => {
      shownPhase = message.phase
      render(message.config, message.validatorUrl)
      later.canvas?.changed()
    },
    interactive: true,
    onShow: (part) => later.canvas?.shown(part),
  })
  later.canvas = startCanvas({
    root: rootElement,
    post: bridge.post,
    config: () => shown,
    phase: () => shownPhase,
    remount: (change) => {
      if (!shown) return
      generation += 1
      render(change ? withText(shown, change.path, change.value) : shown, loadedValidator)
    },
  })
  say('The page shows here as soon as the draft has no problems.')
  bridge.ready(false)
}
