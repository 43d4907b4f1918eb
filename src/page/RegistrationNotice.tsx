import { useEffect, type MouseEvent } from 'react'
import { noScriptPageDefaults } from '../../schema/no-script-pages.ts'
import type { ClientFormConfig } from '../../schema/form-config.ts'
import { rememberRegistered } from './dialog-memory.ts'

/** Which answer to a registration sent as a plain form post (no JavaScript) this page is. */
export type NoticeKind = 'registered' | 'check-details'

/**
 * The pages a plain form post lands on: the thanks (the success notice's words, a link home), or, where the
 * function cannot show the form again with its messages (Supabase), a request to check the details whose link goes
 * back in history, to the form as the visitor filled it.
 */
export function RegistrationNotice({ kind, form }: { kind: NoticeKind; form: ClientFormConfig }) {
  const texts = { ...noScriptPageDefaults, ...form.noScript }
  useEffect(() => {
    // Registered without the form's code (it was blocked or slow): the dialog need not open by itself any more.
    if (kind === 'registered') rememberRegistered()
  }, [kind])
  const goBack = (event: MouseEvent<HTMLAnchorElement>) => {
    // The browser's own Back keeps what was typed; the link's address (the empty form) is for when there is no history.
    if (window.history.length > 1) {
      event.preventDefault()
      window.history.back()
    }
  }
  const [title, text, link] =
    kind === 'registered'
      ? [
          form.toasts.success.title,
          form.toasts.success.text,
          <a href="/" className="btn-primary mt-8">
            {texts.backLabel}
          </a>,
        ]
      : [
          texts.checkTitle,
          texts.checkText,
          <a href="/#register" onClick={goBack} className="btn-primary mt-8">
            {texts.checkBackLabel}
          </a>,
        ]
  return (
    <main className="flex min-h-screen items-center justify-center bg-cream-100 px-5">
      <div className="max-w-xl text-center">
        <h1 className="font-serif text-4xl font-semibold text-forest-900 sm:text-5xl">{title}</h1>
        <p className="mt-4 text-xl text-ink-muted">{text}</p>
        {link}
      </div>
    </main>
  )
}
