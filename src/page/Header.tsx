import type { HeaderProps } from '../../schema/sections.ts'
import type { Site } from '../../schema/site.ts'
import { Cta } from '../ui/Cta.tsx'
import { PhoneIcon } from '../ui/icons.tsx'
import { sizesByHeight } from '../ui/image.ts'
import { Picture } from '../ui/Picture.tsx'

/** The sticky header: logo, section links, phone link and the Register button. */
export function Header({ logo, navLabel, links, phoneLabel, cta, site }: HeaderProps & { site: Site }) {
  return (
    <header className="sticky top-0 z-40 border-b border-cream-200 bg-cream-50/95 backdrop-blur supports-[backdrop-filter]:bg-cream-50/85">
      <div className="mx-auto flex max-w-6xl flex-wrap items-center gap-x-3 gap-y-1 sm:gap-x-6 px-4 pt-2.5 pb-1 sm:px-8 lg:flex-nowrap lg:py-3">
        <a href="/" className="shrink-0 rounded">
          <Picture
            image={logo}
            eager
            fill={false}
            sizes={sizesByHeight(logo, [
              [640, 44],
              [400, 32],
              [0, 28],
            ])}
            className="h-7 w-auto min-[400px]:h-8 sm:h-11"
          />
        </a>
        <nav aria-label={navLabel} className="order-last -mx-2 w-full overflow-x-auto lg:order-none lg:mx-0 lg:w-auto">
          <ul className="flex gap-1 whitespace-nowrap lg:gap-2">
            {links.map((link) => (
              <li key={link.href}>
                <a
                  href={link.href}
                  className="inline-block rounded px-2 py-2 text-sm font-medium text-ink hover:text-forest-700 hover:underline sm:text-base"
                >
                  {link.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <div className="ml-auto flex items-center gap-2 sm:gap-4">
          <a
            href={`tel:${site.phone.dial}`}
            className="inline-flex min-h-11 min-w-11 items-center justify-center gap-2 rounded-full font-semibold whitespace-nowrap text-forest-900 hover:text-forest-700"
          >
            <PhoneIcon className="size-5" />
            <span className="sr-only">{phoneLabel} </span>
            <span className="sr-only md:not-sr-only">{site.phone.display}</span>
          </a>
          <Cta cta={cta} className="px-4 py-2 text-sm sm:px-6 sm:text-base" />
        </div>
      </div>
    </header>
  )
}
