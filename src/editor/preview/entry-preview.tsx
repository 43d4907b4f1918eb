import '../../styles.css'
import { StrictMode } from 'react'
import { createRoot, type Root } from 'react-dom/client'
import type { ClientPageConfig } from '../../../schema/page-config.ts'
import { App } from '../../page/App.tsx'
import { configScriptId } from '../../page/client-config.ts'
import { forPreview, startFrameBridge } from '../../studio/client/preview/frame-bridge.ts'

// One preview frame of `npm run edit`: the real page (App) with the editor's latest config without problems,
// re-rendered in place when it changes, so the frame keeps its scroll position. The round trip with the editor page
// (click to locate, the cursor's part outlined) is the studio's (src/studio/client/preview/frame-bridge.ts).

const rootElement = document.getElementById('root') as HTMLElement
let root: Root | undefined

function render(config: ClientPageConfig): void {
  root ??= createRoot(rootElement)
  root.render(
    <StrictMode>
      <App config={forPreview(config)} pathname="/" />
    </StrictMode>,
  )
}

const highlight = document.createElement('style')
highlight.textContent = '[data-editor-current]{outline:3px solid #2563eb;outline-offset:-3px}'
document.head.append(highlight)

const bridge = startFrameBridge({ root: rootElement, render: (message) => render(message.config), interactive: true })
const initial = document.getElementById(configScriptId)?.textContent
if (initial) render(JSON.parse(initial) as ClientPageConfig)
else rootElement.textContent = 'The page will show here as soon as page.config.json has no problems.'
bridge.ready(Boolean(initial))
