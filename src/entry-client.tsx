import './styles.css'
import { StrictMode } from 'react'
import { createRoot, hydrateRoot } from 'react-dom/client'
import { App } from './page/App.tsx'
import { readClientConfig } from './page/client-config.ts'

const root = document.getElementById('root')
if (!root) throw new Error('index.html has no #root element')
const config = readClientConfig()
const app = (
  <StrictMode>
    <App config={config} pathname={window.location.pathname} />
  </StrictMode>
)
// Built pages arrive prerendered and are hydrated; the dev server sends an empty root.
if (root.firstElementChild) hydrateRoot(root, app)
else createRoot(root).render(app)
