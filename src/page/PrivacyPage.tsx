import { sizesByHeight } from '../ui/image.ts'
import { Picture } from '../ui/Picture.tsx'
import type { ClientPageConfig } from '../../schema/page-config.ts'

type Props = Pick<ClientPageConfig, 'privacy' | 'header'>

const linkClass = 'text-forest-900 underline underline-offset-4'

/** A paragraph with each mention of the privacy e-mail as a link that writes to it. */
function withEmailLinks(text: string, email: string) {
  return text.split(email).flatMap((part, index) =>
    index === 0
      ? [part]
      : [
          <a key={index} href={`mailto:${email}`} className={linkClass}>
            {email}
          </a>,
          part,
        ],
  )
}

/**
 * The launch's privacy page (/privacy): who collects, what, why, how long, and how to withdraw or ask for access and
 * erasure, with the brokerage's contacts. Static: nothing on it hydrates.
 */
export function PrivacyPage({ privacy, header }: Props) {
  const { contact } = privacy
  return (
    <>
      <header className="border-b border-cream-200 bg-cream-50">
        <div className="mx-auto flex max-w-3xl flex-wrap items-center justify-between gap-x-6 gap-y-2 px-5 py-3 sm:px-8">
          <a href="/" className="shrink-0 rounded">
            <Picture
              image={header.logo}
              eager
              fill={false}
              sizes={sizesByHeight(header.logo, [
                [640, 40],
                [0, 32],
              ])}
              className="h-8 w-auto sm:h-10"
            />
          </a>
          <a
            href="/"
            className="inline-block py-2 font-medium text-forest-900 underline underline-offset-4 hover:text-forest-700"
          >
            {privacy.backLabel}
          </a>
        </div>
      </header>
      <main id="main" className="bg-cream-100">
        <div className="mx-auto max-w-3xl px-5 py-12 text-ink sm:px-8 sm:py-16">
          <h1 className="font-serif text-4xl font-semibold text-forest-900 sm:text-5xl">{privacy.title}</h1>
          <p className="mt-4 text-lg leading-relaxed text-ink-muted">{privacy.intro}</p>
          {privacy.sections.map((section) => (
            <section key={section.id} aria-labelledby={`privacy-${section.id}`} className="mt-10">
              <h2 id={`privacy-${section.id}`} className="font-serif text-2xl font-semibold text-forest-900">
                {section.heading}
              </h2>
              {section.paragraphs.map((text) => (
                <p key={text} className="mt-3 leading-relaxed">
                  {withEmailLinks(text, contact.email)}
                </p>
              ))}
              {section.items && (
                <ul className="mt-3 list-disc space-y-1 pl-6">
                  {section.items.map((item) => (
                    <li key={item}>{item}</li>
                  ))}
                </ul>
              )}
              {section.after?.map((text) => (
                <p key={text} className="mt-3 leading-relaxed">
                  {text}
                </p>
              ))}
              {section.id === 'who' && (
                <address className="mt-4 rounded-lg border border-cream-200 bg-cream-50 px-5 py-4 leading-relaxed not-italic">
                  <strong className="font-semibold">{contact.brokerage}</strong>
                  {contact.mailingAddress && <span className="block">{contact.mailingAddress}</span>}
                  <a href={`mailto:${contact.email}`} className={`block break-words ${linkClass}`}>
                    {contact.email}
                  </a>
                  {contact.phone && (
                    <a href={`tel:${contact.phone.dial}`} className={`block whitespace-nowrap ${linkClass}`}>
                      {contact.phone.display}
                    </a>
                  )}
                </address>
              )}
            </section>
          ))}
        </div>
      </main>
    </>
  )
}
