import { useMemo, type ComponentType } from 'react'
import { contactFunctionPath } from '../../schema/function-path.ts'
import type { ClientPageConfig } from '../../schema/page-config.ts'
import type { Section } from '../../schema/sections.ts'
import { createRegistrationStore, RegistrationProvider, type RegistrationStore } from '../form/registration-state.tsx'
import { sectionRegistry } from '../sections/registry.ts'
import type { SharedProps } from '../ui/section-props.ts'
import { closeDialogAfterRegistration } from './dialog-state.ts'
import { Footer, footerPropsOf } from './Footer.tsx'
import { Header } from './Header.tsx'
import { Island } from './Island.tsx'

function renderSection(section: Section, index: number, shared: SharedProps) {
  // Validation guarantees section.type has a component; the registry's type ties each to its props.
  const Component = sectionRegistry[section.type] as ComponentType<Section & SharedProps>
  return <Component key={section.anchor ?? `${section.type}-${index}`} {...section} {...shared} />
}

/**
 * A page built for a hosted function (a static host serves it, no server of ours sees it opened) asks the function for
 * a 1×1 image, which counts the visit as the Node server counts the pages it serves (src/server/site/visit-counter.ts):
 * no script, no cookie, no referrer. Nothing where the Node server serves the page and counts it itself, or where the
 * launch's visits are not counted (launch.countVisits false).
 */
function VisitImage({ launch }: { launch: ClientPageConfig['launch'] }) {
  const hosted = import.meta.env.VITE_SUPABASE_URL
  if (!hosted || launch.countVisits === false) return null
  const src = `${hosted.replace(/\/+$/, '')}${contactFunctionPath}/visit/${encodeURIComponent(launch.slug)}`
  return (
    <img
      src={src}
      alt=""
      width={1}
      height={1}
      referrerPolicy="no-referrer"
      decoding="async"
      className="pointer-events-none absolute h-px w-px opacity-0"
    />
  )
}

type Props = {
  config: ClientPageConfig
  /** The page's registration state; the browser passes its own (the dev server renders the page there). */
  registration?: RegistrationStore | undefined
}

/**
 * The landing page: header, the phase's banner (when it has one), the config's sections in order, footer, and the
 * registration dialog. Rendered whole
 * at build time; in the browser only its islands (buttons that open the dialog, the forms, the dialog) hydrate.
 */
export function Page({ config, registration }: Props) {
  // A new store only when the form's texts or analytics change (the editor's preview re-renders with each edit).
  const formKey = JSON.stringify([config.form, config.site.analytics])
  const store = useMemo(
    () =>
      registration ??
      createRegistrationStore({
        form: config.form,
        launch: config.launch.slug,
        analytics: config.site.analytics,
        onSuccess: closeDialogAfterRegistration,
      }),
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [registration, formKey],
  )
  const shared: SharedProps = { site: config.site, launch: config.launch.slug }
  return (
    <RegistrationProvider store={store}>
      <Header {...config.header} site={config.site} />
      <main id="main">
        {config.banner && (
          <p className="bg-brass-300 px-5 py-2 text-center text-sm font-semibold text-forest-900 sm:text-base">
            {config.banner}
          </p>
        )}
        {config.sections.map((section, index) => renderSection(section, index, shared))}
      </main>
      <Footer {...footerPropsOf(config)} />
      <VisitImage launch={config.launch} />
      <Island kind="registration-dialog" props={{ modal: config.modal, tagManagerId: config.site.analytics?.gtmId }} />
    </RegistrationProvider>
  )
}
