import '../../../styles.css'
import './preview.css'
import { StrictMode } from 'react'
import { createRoot, type Root } from 'react-dom/client'
import type { ClientPageConfig } from '../../../../schema/page-config.ts'
import { App } from '../../../page/App.tsx'
import { previewLinkImagesBase, studioApi } from '../api.ts'
import { withStudioImages } from '../preview-config.ts'
import { forPreview, startFrameBridge } from './frame-bridge.ts'
import { setDraftValidatorUrl } from './validator-url.ts'

// The studio's preview frame (/studio/preview-frame, and /studio/preview/:token for a signed link): the launch's
// real page code (App, its sections, its form) rendering the draft. Signed in, the studio's editor feeds it the
// config as the person types; by a link, it fetches the draft once and renders it read-only.

const rootElement = document.getElementById('root') as HTMLElement
let root: Root | undefined
let loadedValidator: string | undefined

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
  document.documentElement.lang = config.site.lang
  root ??= createRoot(rootElement)
  root.render(
    <StrictMode>
      <App config={forPreview(config)} pathname="/" />
    </StrictMode>,
  )
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
  const bridge = startFrameBridge({
    root: rootElement,
    render: (message) => render(message.config, message.validatorUrl),
    interactive: true,
  })
  say('The page shows here as soon as the draft has no problems.')
  bridge.ready(false)
}
