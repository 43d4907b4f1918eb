import type { MouseEvent } from 'react'
import { openDialog } from '../page/dialog-state.ts'
import type { CtaProps } from './Cta.tsx'

// Whole class names, so Tailwind's source scan finds them.
const variants = { primary: 'btn-primary', accent: 'btn-accent', outline: 'btn-outline' } as const

/** How a call-to-action looks. */
export type CtaVariant = keyof typeof variants

/** The props of a call-to-action link: what the config says, and how it looks where it is. */
export type CtaLinkProps = { cta: CtaProps; variant?: CtaVariant; className?: string }

/**
 * A call-to-action link. With `opensModal` it opens the registration dialog; before its island hydrates (or
 * without scripts) it follows its href (e.g. to #register).
 */
export function CtaLink({ cta, variant = 'primary', className = '' }: CtaLinkProps) {
  const onClick = cta.opensModal
    ? (event: MouseEvent<HTMLAnchorElement>) => {
        event.preventDefault()
        openDialog()
      }
    : undefined
  return (
    <a href={cta.href} onClick={onClick} aria-haspopup={cta.opensModal ? 'dialog' : undefined} className={`${variants[variant]} ${className}`}>
      {cta.label}
    </a>
  )
}
