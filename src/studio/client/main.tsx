import './studio.css'
import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import { StudioApp } from './StudioApp.tsx'

const root = document.getElementById('studio-root')
if (!root) throw new Error('The studio page has no #studio-root element')
createRoot(root).render(
  <StrictMode>
    <StudioApp />
  </StrictMode>,
)
