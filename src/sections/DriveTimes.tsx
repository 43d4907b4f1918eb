import { ClockIcon } from '../ui/icons.tsx'
import { Picture } from '../ui/Picture.tsx'
import { Paragraphs, Shell } from '../ui/Shell.tsx'
import type { SectionComponentProps } from '../ui/section-props.ts'

/** The location with its drive times, beside a map. */
export function DriveTimes({ body, items, image, ...frame }: SectionComponentProps<'drive-times'>) {
  return (
    <Shell {...frame} aside={image && <Picture image={image} className="rounded-2xl shadow-lg" />}>
      <Paragraphs body={body} className="text-ink-muted" />
      <ul className="mt-8 divide-y divide-cream-200 rounded-2xl bg-white px-6 shadow-sm ring-1 ring-cream-200">
        {items.map((item) => (
          <li key={item.label} className="flex items-center gap-4 py-5">
            <ClockIcon className="size-7 shrink-0 text-forest-700" />
            <div className="flex-1">
              <p className="font-semibold">{item.label}</p>
              {item.examples && <p className="text-sm text-ink-muted">{item.examples}</p>}
            </div>
            <p className="font-serif text-xl font-semibold whitespace-nowrap text-forest-900 sm:text-2xl">
              {item.time}
            </p>
          </li>
        ))}
      </ul>
    </Shell>
  )
}
