import { useId, type ReactNode } from 'react'
import type { Tone } from './section-props.ts'

const toneClasses: Record<Tone, string> = {
  light: 'bg-cream-50 text-ink',
  muted: 'bg-cream-100 text-ink',
  dark: 'tone-dark bg-forest-900 text-cream-50',
}

type ShellProps = {
  anchor?: string | undefined
  tone?: Tone | undefined
  eyebrow?: string | undefined
  heading: string
  children?: ReactNode
  /** Centre the heading block (list-style sections) instead of aligning it left. */
  centered?: boolean
  /** A second column beside the heading and content on wide screens (an image, the form). */
  aside?: ReactNode
  asidePosition?: 'start' | 'end' | undefined
  /** Content below the heading (and aside), full width: card grids. */
  footer?: ReactNode
  /** Without an aside: the heading in a column of its own beside the content on wide screens. */
  split?: boolean
}

/**
 * The frame every section shares: a landmark with its anchor id, labelled by its h2, in its tone; the
 * heading block, the content, an optional aside column and an optional full-width part below. A section passes
 * its remaining config props straight in (`<Shell {...frame}>`): Shell reads the frame's fields and no others.
 */
export function Shell(props: ShellProps) {
  const {
    anchor,
    tone = 'light',
    eyebrow,
    heading,
    children,
    centered = false,
    aside,
    asidePosition = 'end',
    footer,
    split = false,
  } = props
  const headingId = useId()
  const dark = tone === 'dark'
  const headingBlock = (
    <>
      {eyebrow && <p className={`eyebrow ${dark ? 'text-brass-300' : 'text-brass-700'}`}>{eyebrow}</p>}
      <h2 id={headingId} className="section-heading mt-3">
        {heading}
      </h2>
    </>
  )
  const main =
    split && !aside ? (
      <div className="grid gap-6 lg:grid-cols-[2fr_3fr] lg:gap-16">
        <div>{headingBlock}</div>
        {children && <div className="lg:pt-8">{children}</div>}
      </div>
    ) : (
      <div className={centered ? 'mx-auto max-w-2xl text-center' : 'max-w-3xl'}>
        {headingBlock}
        {children && <div className="mt-6">{children}</div>}
      </div>
    )
  return (
    <section id={anchor} aria-labelledby={headingId} className={`${toneClasses[tone]} py-16 sm:py-24`}>
      <div className="mx-auto max-w-6xl px-5 sm:px-8">
        {aside ? (
          <div className="grid items-center gap-10 lg:grid-cols-2 lg:gap-16">
            {main}
            <div className={asidePosition === 'start' ? 'lg:order-first' : ''}>{aside}</div>
          </div>
        ) : (
          main
        )}
        {footer && <div className="mt-12">{footer}</div>}
      </div>
    </section>
  )
}

/** Paragraphs of body text. */
export function Paragraphs({ body, className = '' }: { body: readonly string[] | undefined; className?: string }) {
  if (!body) return null
  return (
    <div className={`space-y-4 text-lg leading-relaxed ${className}`}>
      {body.map((text) => (
        <p key={text}>{text}</p>
      ))}
    </div>
  )
}
