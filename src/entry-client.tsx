import './styles.css'
// First: it evaluates React DOM in a task of its own and ends that task before the modules below run.
import './page/react-dom-first.ts'
import { createRegistrationStore } from './form/registration-state.tsx'
import { readClientConfig, readWholePageConfig } from './page/client-config.ts'
import { closeDialogAfterRegistration } from './page/dialog-state.ts'
import { hydrateIslands } from './page/hydrate-islands.tsx'

const root = document.getElementById('root')
if (!root) throw new Error('index.html has no #root element')
const config = readClientConfig()
const registration = createRegistrationStore({
  form: config.form,
  launch: config.launch.slug,
  analytics: config.site.analytics,
  onSuccess: closeDialogAfterRegistration,
})

// Built pages arrive prerendered: only their islands hydrate, and the static sections ship no code. The dev
// server sends an empty root, so there the whole page renders in the browser (this branch is not in a build).
if (root.firstElementChild) {
  void hydrateIslands(root, registration)
} else if (import.meta.env.DEV) void renderWholePage(root)

async function renderWholePage(element: HTMLElement): Promise<void> {
  const [{ StrictMode }, { createRoot }, { App }] = await Promise.all([
    import('react'),
    import('react-dom/client'),
    import('./page/App.tsx'),
  ])
  createRoot(element).render(
    <StrictMode>
      <App config={readWholePageConfig()} pathname={window.location.pathname} registration={registration} />
    </StrictMode>,
  )
}
