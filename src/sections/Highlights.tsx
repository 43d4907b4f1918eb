import { Paragraphs, Shell } from '../ui/Shell.tsx'
import type { SectionComponentProps } from '../ui/section-props.ts'

/** Paragraphs followed by a grid of numbered highlights (e.g. the builder's). */
export function Highlights({ body, items, ...frame }: SectionComponentProps<'highlights'>) {
  const dark = frame.tone === 'dark'
  return (
    <Shell
      {...frame}
      footer={
        <ol className="grid gap-6 sm:grid-cols-2 lg:grid-cols-4">
          {items.map((item) => (
            <li
              key={item.title}
              className={`card-number rounded-2xl p-6 ${dark ? 'bg-forest-800' : 'bg-white shadow-sm ring-1 ring-cream-200'}`}
            >
              <h3 className="mt-3 text-lg font-semibold">{item.title}</h3>
              <p className={`mt-2 text-base leading-relaxed ${dark ? 'text-cream-100' : 'text-ink-muted'}`}>
                {item.text}
              </p>
            </li>
          ))}
        </ol>
      }
    >
      <Paragraphs body={body} className={dark ? 'text-cream-100' : 'text-ink-muted'} />
    </Shell>
  )
}
