import { Cta } from '../ui/Cta.tsx'
import { CheckList } from '../ui/CheckList.tsx'
import { Picture } from '../ui/Picture.tsx'
import { Paragraphs, Shell } from '../ui/Shell.tsx'
import type { SectionComponentProps } from '../ui/section-props.ts'

/** A heading with paragraphs, and optionally an image, bullets, key figures and a button. */
export function Feature(props: SectionComponentProps<'feature'>) {
  const { body, bullets, facts, image, imagePosition, cta, ...frame } = props
  const dark = frame.tone === 'dark'
  return (
    <Shell
      {...frame}
      aside={image && <Picture image={image} className="rounded-2xl shadow-lg" />}
      asidePosition={imagePosition}
      split
    >
      <Paragraphs body={body} className={dark ? 'text-cream-100' : 'text-ink-muted'} />
      <CheckList items={bullets} className="mt-6 grid gap-3 sm:grid-cols-2" dark={dark} />
      {facts && facts.length > 0 && (
        // Each figure on one line and at the top of its column, so the three figures and their labels line up even
        // where a label wraps; a size a phone's third of the width holds ("40' & 45'" at 375 px).
        <dl className="mt-8 grid grid-cols-3 gap-3 border-t border-cream-200 pt-6 sm:gap-4">
          {facts.map((fact) => (
            <div key={fact.label} className="flex flex-col-reverse justify-end">
              <dt className="mt-1 text-sm text-ink-muted">{fact.label}</dt>
              <dd className="font-serif text-xl font-semibold whitespace-nowrap text-forest-900 min-[400px]:text-2xl sm:text-3xl">
                {fact.value}
              </dd>
            </div>
          ))}
        </dl>
      )}
      {cta && (
        <div className="mt-8">
          <Cta cta={cta} variant={dark ? 'accent' : 'primary'} />
        </div>
      )}
    </Shell>
  )
}
