import type { ClientPageConfig } from '../../schema/page-config.ts'
import { privacyPagePath } from '../../schema/privacy.ts'
import { checkDetailsPagePath, registeredPagePath } from '../../schema/registration-contract.ts'
import type { RegistrationStore } from '../form/registration-state.tsx'
import { ImageVariantsContext } from '../ui/image-variants-context.ts'
import { Footer, footerPropsOf } from './Footer.tsx'
import { Island } from './Island.tsx'
import { Page } from './Page.tsx'
import { PrivacyPage } from './PrivacyPage.tsx'

type Props = { config: ClientPageConfig; pathname: string; registration?: RegistrationStore | undefined }

function route({ config, pathname, registration }: Props) {
  if (pathname === '/' || pathname === '/index.html') return <Page config={config} registration={registration} />
  const footer = <Footer {...footerPropsOf(config)} />
  if (pathname === privacyPagePath || pathname === `${privacyPagePath}.html`) {
    return (
      <>
        <PrivacyPage privacy={config.privacy} header={config.header} />
        {footer}
      </>
    )
  }
  const main =
    pathname === registeredPagePath ? (
      <Island kind="registration-notice" props={{ kind: 'registered', form: config.form }} />
    ) : pathname === checkDetailsPagePath ? (
      <Island kind="registration-notice" props={{ kind: 'check-details', form: config.form }} />
    ) : (
      <Island kind="not-found" props={config.notFound} />
    )
  return (
    <>
      {main}
      {footer}
    </>
  )
}

/**
 * The routes: "/" is the landing page; the privacy page; the two answers to a registration sent without JavaScript
 * (thanks, check your details); every other path is the not-found page. Every page ends with the footer (the
 * brokerage's registered name, the privacy link).
 */
export function App(props: Props) {
  return <ImageVariantsContext value={props.config.imageVariants ?? {}}>{route(props)}</ImageVariantsContext>
}
