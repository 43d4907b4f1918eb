import { lazy, Suspense, useCallback, useEffect, useMemo, useState, type ComponentType } from 'react'
import type { ClientPageConfig } from '../../schema/page-config.ts'
import type { Section } from '../../schema/sections.ts'
import { captureAttribution } from '../form/attribution.ts'
import { loadRegistrationForm } from '../form/LazyRegistrationForm.tsx'
import { RegistrationProvider } from '../form/registration-state.tsx'
import { sectionRegistry } from '../sections/registry.ts'
import type { SharedProps } from '../ui/section-props.ts'
import { loadTagManager } from './analytics.ts'
import { Footer } from './Footer.tsx'
import { rememberDialogClosed, rememberRegistered, shouldOpenDialogByItself } from './dialog-memory.ts'
import { Header } from './Header.tsx'
import { RegistrationContext } from './registration-context.tsx'

const loadDialog = () => import('./RegistrationDialog.tsx')
const RegistrationDialog = lazy(loadDialog)
const loadToasts = () => import('../form/Toasts.tsx')
const Toasts = lazy(loadToasts)

function renderSection(section: Section, index: number, shared: SharedProps) {
  // Validation guarantees section.type has a component; the registry's type ties each to its props.
  const Component = sectionRegistry[section.type] as ComponentType<Section & SharedProps>
  return <Component key={section.anchor ?? `${section.type}-${index}`} {...section} {...shared} />
}

/** The landing page: header, the config's sections in order, footer, and the registration dialog. */
export function Page({ config }: { config: ClientPageConfig }) {
  const [dialogOpen, setDialogOpen] = useState(false)
  // Client-only parts (dialog, toasts) mount after hydration, so the prerendered HTML matches.
  const [hydrated, setHydrated] = useState(false)

  useEffect(() => {
    setHydrated(true)
    captureAttribution()
    // The form, dialog and toast code load once the page has loaded (its main image first), not alongside it.
    const preload = () => {
      void loadRegistrationForm()
      void loadDialog()
      void loadToasts()
    }
    if (document.readyState === 'complete') preload()
    else window.addEventListener('load', preload, { once: true })
    const containerId = config.site.analytics?.gtmId
    if (containerId) loadTagManager(containerId)
    const timer = shouldOpenDialogByItself(config.modal.snoozeDays ?? 0)
      ? window.setTimeout(() => setDialogOpen(true), config.modal.openDelayMs)
      : undefined
    return () => {
      window.clearTimeout(timer)
      window.removeEventListener('load', preload)
    }
  }, [config.modal.openDelayMs, config.modal.snoozeDays, config.site.analytics?.gtmId])

  const controls = useMemo(() => ({ openDialog: () => setDialogOpen(true) }), [])
  const closeDialog = useCallback(() => {
    rememberDialogClosed()
    setDialogOpen(false)
  }, [])
  const registered = useCallback(() => {
    rememberRegistered()
    setDialogOpen(false)
  }, [])
  // The same element on every render: opening the dialog must not re-render the page, least of all the
  // form's Suspense boundary before it has hydrated (React would then discard its prerendered HTML, and
  // with it anything the visitor had typed).
  const content = useMemo(() => {
    const shared: SharedProps = { site: config.site }
    return (
      <>
        <Header {...config.header} site={config.site} />
        <main id="main">{config.sections.map((section, index) => renderSection(section, index, shared))}</main>
        <Footer {...config.footer} />
      </>
    )
  }, [config])

  return (
    <RegistrationContext value={controls}>
      <RegistrationProvider form={config.form} analytics={config.site.analytics} onSuccess={registered}>
        {content}
        {hydrated && (
          <Suspense fallback={null}>
            <RegistrationDialog modal={config.modal} isOpen={dialogOpen} onClose={closeDialog} />
            <Toasts />
          </Suspense>
        )}
      </RegistrationProvider>
    </RegistrationContext>
  )
}
