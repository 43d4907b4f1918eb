import { MailIcon, PhoneIcon, PinIcon } from '../ui/icons.tsx'
import { Shell } from '../ui/Shell.tsx'
import type { SectionComponentProps } from '../ui/section-props.ts'

const icons = { phone: PhoneIcon, email: MailIcon, location: PinIcon }

/** Contact cards: the site phone and e-mail as links, and the location. */
export function Contact({ intro, cards, site, ...frame }: SectionComponentProps<'contact'>) {
  return (
    <Shell
      {...frame}
      centered
      footer={
        <ul className="grid gap-6 md:grid-cols-3">
          {cards.map((card) => {
            const Icon = icons[card.kind]
            return (
              <li
                key={card.kind + card.title}
                className="rounded-2xl bg-white p-6 text-center shadow-sm ring-1 ring-cream-200"
              >
                <span className="mx-auto flex size-12 items-center justify-center rounded-full bg-forest-100 text-forest-900">
                  <Icon className="size-6" />
                </span>
                <h3 className="mt-4 text-lg font-semibold text-forest-900">{card.title}</h3>
                {card.text && <p className="mt-2 text-base text-ink-muted">{card.text}</p>}
                {card.kind === 'phone' && (
                  <a
                    href={`tel:${site.phone.dial}`}
                    className="mt-2 inline-block text-lg font-semibold whitespace-nowrap text-brass-700 underline-offset-4 hover:underline"
                  >
                    {site.phone.display}
                  </a>
                )}
                {card.kind === 'email' && (
                  <a
                    href={`mailto:${site.email}`}
                    className="mt-2 inline-block text-lg font-semibold break-all text-brass-700 underline-offset-4 hover:underline"
                  >
                    {site.email}
                  </a>
                )}
              </li>
            )
          })}
        </ul>
      }
    >
      {intro && <p className="text-lg text-ink-muted">{intro}</p>}
    </Shell>
  )
}
