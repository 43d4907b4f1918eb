import type { Context, ErrorHandler } from 'hono'
import { HTTPException } from 'hono/http-exception'
import { checkDetailsPagePath } from '../../../schema/registration-contract.ts'
import { fieldLabel } from '../delivery/notification.ts'
import { fillFormPage } from '../registration/form-page.ts'
import { isFormPost, plainAnswerPage } from '../registration/form-post.ts'
import { noScriptPageDefaults } from '../../../schema/no-script-pages.ts'
import { jsonAnswer, type RefusalDetails } from '../registration/refusal.ts'
import type { FunctionContext } from './context.ts'

const html = { 'content-type': 'text/html; charset=utf-8' }

/**
 * The words of a note answering a plain form post, in the launch's config where the status has them (too many, not
 * saved, failed: what a visitor meets); else the refusal's own (a caller's mistake, e.g. another site's form).
 */
function noteText(fn: FunctionContext, c: Context, status: number, message: string, unexpected: boolean) {
  // A refusal before the body named its launch (too many tries) speaks in the default launch's words.
  const launch = fn.chosenFor(c) ?? fn.launches.get(fn.deps.defaultLaunch)
  const texts = { ...noScriptPageDefaults, ...launch?.site.form.noScript }
  if (unexpected) return { text: texts.failedText, back: texts.answerBackLabel }
  if (status === 429) return { text: texts.tooManyText, back: texts.answerBackLabel }
  if (status === 500) return { text: texts.notSavedText, back: texts.answerBackLabel }
  return { text: message, back: texts.answerBackLabel }
}

/** The answer to a refused plain form post: the form again with its messages, the check-details page, or a note. */
function formRefusal(
  fn: FunctionContext,
  c: Context,
  status: number,
  message: string,
  details: RefusalDetails,
  unexpected = false,
) {
  const site = fn.formPostSite(c)
  const chosen = fn.chosenFor(c)
  const launch = chosen?.site
  const headers = { 'cache-control': 'no-store', ...details.headers }
  if (details.errors && site && launch) {
    const phase = chosen.phases?.at(fn.clock()) // the page of the phase in force: its words, its submit label
    const formPageHtml = (phase !== undefined ? launch.phasePages?.[phase] : undefined) ?? launch.formPageHtml
    if (!formPageHtml)
      return new Response(null, { status: 303, headers: { ...headers, location: `${site}${checkDetailsPagePath}` } })
    const labelOf = (field: string) => fieldLabel(launch.form, field)
    const page = fillFormPage(formPageHtml, details.values ?? {}, details.errors, labelOf, details.carried)
    return new Response(page, { status, headers: { ...headers, ...html } })
  }
  const back = site && status !== 403 ? `${site}/` : undefined
  const note = noteText(fn, c, status, message, unexpected)
  return new Response(plainAnswerPage(note.text, back ? { href: back, label: note.back } : undefined), {
    status,
    headers: { ...headers, ...html },
  })
}

/** Every refusal and failure, answered as the caller reads it: JSON, or a page for a plain form post. */
export function refusalAnswer(fn: FunctionContext): ErrorHandler {
  return (error, c) => {
    const unexpected = 'The registration could not be saved just now. Please try again in a moment.'
    if (!(error instanceof HTTPException)) fn.log.error('send-contact-email: unexpected error', error)
    if (isFormPost(c.req.raw)) {
      if (!(error instanceof HTTPException)) return formRefusal(fn, c, 500, unexpected, {}, true)
      return formRefusal(fn, c, error.status, error.message, error.cause ?? {})
    }
    if (error instanceof HTTPException) return error.getResponse()
    return jsonAnswer(500, { error: unexpected })
  }
}
