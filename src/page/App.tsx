import type { ClientPageConfig } from '../../schema/page-config.ts'
import type { RegistrationStore } from '../form/registration-state.tsx'
import { ImageVariantsContext } from '../ui/image-variants-context.ts'
import { Island } from './Island.tsx'
import { Page } from './Page.tsx'

type Props = { config: ClientPageConfig; pathname: string; registration?: RegistrationStore | undefined }

/** The one route: "/" is the landing page; every other path is the not-found page. */
export function App({ config, pathname, registration }: Props) {
  return (
    <ImageVariantsContext value={config.imageVariants ?? {}}>
      {pathname === '/' || pathname === '/index.html' ? (
        <Page config={config} registration={registration} />
      ) : (
        <Island kind="not-found" props={config.notFound} />
      )}
    </ImageVariantsContext>
  )
}
