import type { ClientPageConfig } from '../../schema/page-config.ts'
import { privacyPagePath } from '../../schema/privacy.ts'
import type { FooterProps } from '../../schema/sections.ts'

type Props = FooterProps & {
  /**
   * site.brokerage: the registered name every page shows (TRESA/RECO), on its own line when no footer text names it.
   */
  brokerage: string
  privacyLabel: string
}

/**
 * The footer's props from a config: the footer's own texts, the brokerage's registered name, the privacy link's label.
 */
export function footerPropsOf(config: Pick<ClientPageConfig, 'footer' | 'site' | 'privacy'>): Props {
  return { ...config.footer, brokerage: config.site.brokerage, privacyLabel: config.privacy.linkLabel }
}

/**
 * The footer of every page: links (the privacy page's first), the disclaimer lines, the brokerage's registered name
 * and the copyright line, whose {year} is the year the page was rendered (the build's, for a built page).
 */
export function Footer({ copyright, disclaimers, links, brokerage, privacyLabel }: Props) {
  const year = String(new Date().getFullYear())
  const line = copyright.replaceAll('{year}', () => year)
  const named = [line, ...disclaimers].some((text) => text.includes(brokerage))
  return (
    <footer className="tone-dark bg-forest-950 text-cream-100">
      <div className="mx-auto max-w-6xl space-y-4 px-5 py-12 text-sm leading-relaxed sm:px-8">
        <ul className="flex flex-wrap gap-x-6 gap-y-2">
          <li>
            <a href={privacyPagePath} className="underline underline-offset-4">
              {privacyLabel}
            </a>
          </li>
          {links?.map((link) => (
            <li key={link.href}>
              <a href={link.href} className="underline underline-offset-4">
                {link.label}
              </a>
            </li>
          ))}
        </ul>
        {disclaimers.map((text) => (
          <p key={text}>{text}</p>
        ))}
        {!named && <p>{brokerage}</p>}
        <p className="border-t border-white/15 pt-4 font-medium text-cream-50">{line}</p>
      </div>
    </footer>
  )
}
