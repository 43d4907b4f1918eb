import { Cta } from '../ui/Cta.tsx'
import { PhoneIcon } from '../ui/icons.tsx'
import { Picture } from '../ui/Picture.tsx'
import type { SectionComponentProps } from '../ui/section-props.ts'

/** The opening banner with the page's only h1, and the bar with Call Now, the hint and Register. */
export function Hero({
  anchor,
  eyebrow,
  heading,
  tagline,
  intro,
  image,
  cta,
  bar,
  site,
}: SectionComponentProps<'hero'>) {
  return (
    <section id={anchor} aria-labelledby="hero-heading" className="tone-dark bg-forest-900 text-cream-50">
      <div className="mx-auto grid max-w-6xl items-center gap-10 px-5 pt-10 pb-12 sm:px-8 lg:grid-cols-[1fr_1.1fr] lg:gap-14 lg:pt-16 lg:pb-20">
        <div>
          {eyebrow && <p className="eyebrow text-brass-300">{eyebrow}</p>}
          <h1
            id="hero-heading"
            className="mt-4 font-serif text-4xl leading-[1.08] font-semibold text-balance sm:text-6xl"
          >
            {heading}
          </h1>
          <p className="mt-5 font-serif text-xl text-brass-300 italic sm:text-2xl">{tagline}</p>
          <p className="mt-5 max-w-xl text-lg leading-relaxed text-cream-100">{intro}</p>
          <div className="mt-8">
            <Cta cta={cta} variant="accent" />
          </div>
        </div>
        <Picture image={image} priority className="rounded-2xl shadow-2xl ring-1 ring-white/10" />
      </div>
      <div className="bg-cream-100 text-ink">
        <div className="mx-auto flex max-w-6xl flex-col items-stretch gap-4 px-5 py-5 sm:flex-row sm:items-center sm:px-8">
          <a href={`tel:${site.phone.dial}`} className="btn-primary shrink-0 whitespace-nowrap">
            <PhoneIcon />
            <span>{bar.callLabel}</span>
            <span className="font-normal">{site.phone.display}</span>
          </a>
          <p className="text-center text-base leading-snug font-medium sm:flex-1 sm:text-left">{bar.hint}</p>
          <Cta cta={bar.cta} variant="outline" className="shrink-0 text-forest-900" />
        </div>
      </div>
    </section>
  )
}
