import { contactFunctionPath } from '../../schema/function-path.ts'
import { Island } from '../page/Island.tsx'
import { Cta } from '../ui/Cta.tsx'
import { CheckList } from '../ui/CheckList.tsx'
import { Picture } from '../ui/Picture.tsx'
import { Shell } from '../ui/Shell.tsx'
import type { SectionComponentProps } from '../ui/section-props.ts'

/**
 * Where the page reads what is left: a page built for a hosted function (a static host, no server of ours beside it)
 * asks the function for its launch's counts; a page the Node server serves asks its own host (LeftCount's default).
 * Written into the island's props at build time, so the page's first load carries no more code for it.
 */
function leftSourceOf(launch: string): string | undefined {
  const hosted = import.meta.env.VITE_SUPABASE_URL
  if (!hosted) return undefined
  return `${hosted.replace(/\/+$/, '')}${contactFunctionPath}/left.json?launch=${encodeURIComponent(launch)}`
}

/** One card per home type: image, name, badge, summary and details, and what is left of the models it counts. */
export function HomeTypes({ intro, cards, cta, leftTexts, launch, ...frame }: SectionComponentProps<'home-types'>) {
  const source = leftSourceOf(launch)
  return (
    <Shell
      {...frame}
      centered
      footer={
        <>
          <ul className="grid gap-8 md:grid-cols-3">
            {cards.map((card) => (
              <li
                key={card.name}
                className="flex flex-col overflow-hidden rounded-2xl bg-white shadow-md ring-1 ring-cream-200"
              >
                <Picture image={card.image} />
                <div className="flex flex-1 flex-col p-6">
                  <h3 className="font-serif text-2xl font-semibold text-forest-900">{card.name}</h3>
                  {card.badge && (
                    <p className="mt-2 w-fit rounded-full bg-forest-100 px-3 py-1 text-sm font-semibold text-forest-900">
                      {card.badge}
                    </p>
                  )}
                  <p className="mt-4 text-base leading-relaxed text-ink-muted">{card.summary}</p>
                  <CheckList items={card.details} className="mt-4 space-y-2 text-sm" compact />
                  {card.models && (
                    <Island
                      kind="left-count"
                      props={{ models: card.models, texts: leftTexts, ...(source ? { source } : {}) }}
                    />
                  )}
                </div>
              </li>
            ))}
          </ul>
          {cta && (
            <div className="mt-10 text-center">
              <Cta cta={cta} />
            </div>
          )}
        </>
      }
    >
      {intro && <p className="text-lg leading-relaxed text-ink-muted">{intro}</p>}
    </Shell>
  )
}
