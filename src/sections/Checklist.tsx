import { CheckIcon } from '../ui/icons.tsx'
import { Shell } from '../ui/Shell.tsx'
import type { SectionComponentProps } from '../ui/section-props.ts'

/** Reasons to choose the development, each with a check mark, title and text. */
export function Checklist({ intro, items, ...frame }: SectionComponentProps<'checklist'>) {
  return (
    <Shell
      {...frame}
      centered
      footer={
        <ul className="grid gap-6 sm:grid-cols-2 lg:grid-cols-3">
          {items.map((item) => (
            <li key={item.title} className="flex gap-4 rounded-2xl bg-white p-6 shadow-sm ring-1 ring-cream-200">
              <span className="flex size-10 shrink-0 items-center justify-center rounded-full bg-forest-900 text-brass-300">
                <CheckIcon className="size-5" />
              </span>
              <div>
                <h3 className="text-lg font-semibold text-forest-900">{item.title}</h3>
                <p className="mt-1 text-base leading-relaxed text-ink-muted">{item.text}</p>
              </div>
            </li>
          ))}
        </ul>
      }
    >
      {intro && <p className="text-lg text-ink-muted">{intro}</p>}
    </Shell>
  )
}
