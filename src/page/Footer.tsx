import type { FooterProps } from '../../schema/sections.ts'

/** The footer: copyright, optional links, and the disclaimer lines. */
export function Footer({ copyright, disclaimers, links }: FooterProps) {
  return (
    <footer className="tone-dark bg-forest-950 text-cream-100">
      <div className="mx-auto max-w-6xl space-y-4 px-5 py-12 text-sm leading-relaxed sm:px-8">
        {links && links.length > 0 && (
          <ul className="flex flex-wrap gap-4">
            {links.map((link) => (
              <li key={link.href}>
                <a href={link.href} className="underline underline-offset-4">
                  {link.label}
                </a>
              </li>
            ))}
          </ul>
        )}
        {disclaimers.map((line) => (
          <p key={line}>{line}</p>
        ))}
        <p className="border-t border-white/15 pt-4 font-medium text-cream-50">{copyright}</p>
      </div>
    </footer>
  )
}
