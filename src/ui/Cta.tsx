import type { MouseEvent } from 'react'
import type { ctaSchema, FromConfigSchema } from '../../schema/parts.ts'
import { useRegistration } from '../page/registration-context.tsx'

/** A call-to-action as the config names it. */
export type CtaProps = FromConfigSchema<typeof ctaSchema>

// Whole class names, so Tailwind's source scan finds them.
const variants = { primary: 'btn-primary', accent: 'btn-accent', outline: 'btn-outline' } as const

type Props = { cta: CtaProps; variant?: keyof typeof variants; className?: string }

/**
 * A call-to-action link. With `opensModal` it opens the registration dialog; without scripts it still
 * follows its href (e.g. to #register), so it works before and without JavaScript.
 */
export function Cta({ cta, variant = 'primary', className = '' }: Props) {
  const { openDialog } = useRegistration()
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
