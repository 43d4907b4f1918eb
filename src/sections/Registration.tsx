import { Island } from '../page/Island.tsx'
import { CheckList } from '../ui/CheckList.tsx'
import { Shell } from '../ui/Shell.tsx'
import type { SectionComponentProps } from '../ui/section-props.ts'

/**
 * The inline VIP registration: heading, what registering gets you, and the form (from the page's "form"), an island.
 */
export function Registration({ intro, points, ...frame }: SectionComponentProps<'registration'>) {
  return (
    <Shell
      {...frame}
      aside={
        <div className="rounded-2xl bg-white p-6 shadow-xl ring-1 ring-cream-200 sm:p-8">
          <Island kind="registration-form" props={{ idPrefix: 'inline' }} />
        </div>
      }
    >
      {intro && <p className="text-lg leading-relaxed text-ink-muted">{intro}</p>}
      <CheckList items={points} className="mt-6 space-y-3" />
    </Shell>
  )
}
