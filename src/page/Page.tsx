import { useMemo, type ComponentType } from 'react'
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

type Props = {
  config: ClientPageConfig
  /** The page's registration state; the browser passes its own (the dev server renders the page there). */
  registration?: RegistrationStore | undefined
}

/**
 * The landing page: header, the phase's banner (when it has one), the config's sections in order, footer, and the registration dialog. Rendered whole
 * at build time; in the browser only its islands (buttons that open the dialog, the forms, the dialog) hydrate.
 */
export function Page({ config, registration }: Props) {
  // A new store only when the form's texts or analytics change (the editor's preview re-renders with each edit).
  const formKey = JSON.stringify([config.form, config.site.analytics])
  const store = useMemo(
    () => registration ?? createRegistrationStore({ form: config.form, launch: config.launch.slug, analytics: config.site.analytics, onSuccess: closeDialogAfterRegistration }),
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [registration, formKey],
  )
  const shared: SharedProps = { site: config.site }
  return (
    <RegistrationProvider store={store}>
      <Header {...config.header} site={config.site} />
      <main id="main">
        {config.banner && <p className="bg-brass-300 px-5 py-2 text-center text-sm font-semibold text-forest-900 sm:text-base">{config.banner}</p>}
        {config.sections.map((section, index) => renderSection(section, index, shared))}
      </main>
      <Footer {...footerPropsOf(config)} />
      <Island kind="registration-dialog" props={{ modal: config.modal, tagManagerId: config.site.analytics?.gtmId }} />
    </RegistrationProvider>
  )
}
