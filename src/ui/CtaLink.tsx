import type { MouseEvent } from 'react'
import type { ctaSchema, FromConfigSchema } from '../../schema/parts.ts'
import { openDialog } from '../page/dialog-state.ts'

/**
 * A call-to-action as the config names it. Here, not in Cta.tsx: the island registry imports this file, and Cta.tsx
 * imports the island.
 */
export type CtaProps = FromConfigSchema<typeof ctaSchema>

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
    <a
      href={cta.href}
      onClick={onClick}
      aria-haspopup={cta.opensModal ? 'dialog' : undefined}
      className={`${variants[variant]} ${className}`}
    >
      {cta.label}
    </a>
  )
}
