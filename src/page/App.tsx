import type { ClientPageConfig } from '../../schema/page-config.ts'
import { checkDetailsPagePath, registeredPagePath } from '../../schema/registration-contract.ts'
import type { RegistrationStore } from '../form/registration-state.tsx'
import { ImageVariantsContext } from '../ui/image-variants-context.ts'
import { Island } from './Island.tsx'
import { Page } from './Page.tsx'

type Props = { config: ClientPageConfig; pathname: string; registration?: RegistrationStore | undefined }

function route({ config, pathname, registration }: Props) {
  if (pathname === '/' || pathname === '/index.html') return <Page config={config} registration={registration} />
  if (pathname === registeredPagePath) return <Island kind="registration-notice" props={{ kind: 'registered', form: config.form }} />
  if (pathname === checkDetailsPagePath) return <Island kind="registration-notice" props={{ kind: 'check-details', form: config.form }} />
  return <Island kind="not-found" props={config.notFound} />
}

/**
 * The routes: "/" is the landing page; the two answers to a registration sent without JavaScript (thanks, check
 * your details); every other path is the not-found page.
 */
export function App(props: Props) {
  return <ImageVariantsContext value={props.config.imageVariants ?? {}}>{route(props)}</ImageVariantsContext>
}
