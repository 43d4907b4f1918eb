import { LazyRegistrationForm } from '../form/LazyRegistrationForm.tsx'
import { CheckIcon } from './icons.tsx'
import { Shell } from './Shell.tsx'
import type { SectionComponentProps } from './types.ts'

/** The inline VIP registration: heading, what registering gets you, and the form (from the page's "form"). */
export function Registration({ anchor, eyebrow, heading, intro, points, tone }: SectionComponentProps<'registration'>) {
  return (
    <Shell
      anchor={anchor}
      tone={tone}
      eyebrow={eyebrow}
      heading={heading}
      aside={
        <div className="rounded-2xl bg-white p-6 shadow-xl ring-1 ring-cream-200 sm:p-8">
          <LazyRegistrationForm idPrefix="inline" />
        </div>
      }
    >
      {intro && <p className="text-lg leading-relaxed text-ink-muted">{intro}</p>}
      {points && points.length > 0 && (
        <ul className="mt-6 space-y-3">
          {points.map((point) => (
            <li key={point} className="flex gap-3 text-base">
              <CheckIcon className="mt-0.5 size-5 shrink-0 text-forest-700" />
              <span>{point}</span>
            </li>
          ))}
        </ul>
      )}
    </Shell>
  )
}
