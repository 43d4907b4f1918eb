import { Island } from '../page/Island.tsx'
import { CtaLink, type CtaLinkProps } from './CtaLink.tsx'

/**
 * A call-to-action wherever a section puts one. One that opens the dialog is an island (hydrated in the
 * browser); a plain link stays static HTML and ships no code.
 */
export function Cta(props: CtaLinkProps) {
  return props.cta.opensModal ? <Island kind="cta" props={props} /> : <CtaLink {...props} />
}
