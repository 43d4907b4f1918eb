import type { ClientPageConfig } from '../../schema/page-config.ts'
import { checkDetailsPagePath, registeredPagePath } from '../../schema/registration-contract.ts'
import { ImageVariantsContext } from '../ui/image-variants-context.ts'
import { NotFound } from './NotFound.tsx'
import { Page } from './Page.tsx'
import { RegistrationNotice } from './RegistrationNotice.tsx'

function route(config: ClientPageConfig, pathname: string) {
  if (pathname === '/' || pathname === '/index.html') return <Page config={config} />
  if (pathname === registeredPagePath) return <RegistrationNotice kind="registered" form={config.form} />
  if (pathname === checkDetailsPagePath) return <RegistrationNotice kind="check-details" form={config.form} />
  return <NotFound {...config.notFound} />
}

/**
 * The routes: "/" is the landing page; the two answers to a registration sent without JavaScript (thanks, check
 * your details); every other path is the not-found page.
 */
export function App({ config, pathname }: { config: ClientPageConfig; pathname: string }) {
  return <ImageVariantsContext value={config.imageVariants ?? {}}>{route(config, pathname)}</ImageVariantsContext>
}
