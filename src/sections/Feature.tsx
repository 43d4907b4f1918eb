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
        <dl className="mt-8 grid grid-cols-3 gap-4 border-t border-cream-200 pt-6">
          {facts.map((fact) => (
            <div key={fact.label} className="flex flex-col-reverse">
              <dt className="mt-1 text-sm text-ink-muted">{fact.label}</dt>
              <dd className="font-serif text-2xl font-semibold text-forest-900 sm:text-3xl">{fact.value}</dd>
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
