/**
 * A realtor asks for their worksheet link again (issue 45: "in their reply and on request"):
 * `<path>/worksheets/link?launch=<slug>`, a server-rendered page that works without JavaScript.
 *
 *   GET                      200 the page: one field, the address the realtor registered with, and a button
 *   POST from the page       200 the same answer whatever the address: "if it is registered, the link is on its way".
 *                            When it is a realtor's of this launch (their first registration, not suspected spam) and
 *                            the launch has a worksheet window open or ahead, the e-mail with their signed link is
 *                            queued through the outbox to the registered address, at most one e-mail asked for a lead
 *                            every 10 minutes (fresh document links included): a stranger can neither learn who
 *                            registered nor flood an inbox.
 *                            400 the page again with the field's message; 403 from another site (Origin, else Referer,
 *                            must be this host or one of the launch's origins); 429 over the rate limit; 500 not queued
 *   an unknown launch        404 the plain page of a link that does not work
 *
 * The typed address is never logged, never put in the mail, nor in an address bar (the form posts).
 */
import type { Context } from 'hono'
import { fillWorksheetText, hasWorksheetWindow } from '../../../schema/worksheets.ts'
import { escapeHtml } from '../delivery/escape-html.ts'
import { singleAddress } from '../delivery/mailer.ts'
import { worksheetCss, worksheetDocument } from './worksheet-page.ts'
import { emailPattern } from './worksheet-form.ts'
import { linkMail } from './worksheet-messages.ts'
import { worksheetPageResponse } from './worksheet-response.ts'
import type { WorksheetLaunch, WorksheetRouteDeps } from './worksheet-deps.ts'

/** The path of the request page, after the worksheet page's. */
export const linkRequestPath = '/link'

const maxEmailLength = 254

type RequestView = {
  launch: WorksheetLaunch
  action: string
  value?: string | undefined
  error?: string | undefined
  notice?: string | undefined
  sent?: boolean | undefined
}

/** The page: the launch's words, {site} filled; the form, or the answer once sent. */
export function linkRequestHtml(view: RequestView): string {
  const { launch } = view
  const t = launch.texts
  const fill = (text: string) => escapeHtml(fillWorksheetText(text, { site: launch.siteName }))
  const invalid = view.error !== undefined
  const body = view.sent
    ? `<h1>${fill(t.requestSentHeading)}</h1><div class="box" role="status"><p>${fill(t.requestSentText)}</p></div>`
    : `<h1>${fill(t.requestHeading)}</h1><p>${fill(t.requestText)}</p>
${view.notice ? `<div class="box bad" role="alert"><p>${escapeHtml(view.notice)}</p></div>` : ''}
<form method="post" action="${escapeHtml(view.action)}" novalidate>
<div class="f"><label for="email">${escapeHtml(t.requestEmail)}</label>
<input type="email" id="email" name="email" autocomplete="email" required maxlength="${maxEmailLength}" value="${escapeHtml(view.value ?? '')}"${
        invalid ? ' aria-invalid="true" aria-describedby="email-error"' : ''
      }>
${invalid ? `<p class="e" id="email-error">${escapeHtml(view.error!)}</p>` : ''}</div>
<button type="submit">${escapeHtml(t.requestButton)}</button>
</form>`
  return worksheetDocument({
    lang: launch.lang,
    title: fillWorksheetText(t.requestHeading, { site: launch.siteName }),
    css: worksheetCss(launch.pageCss),
    body,
  })
}

function respond(c: Context, view: RequestView, status: number): Promise<Response> {
  return worksheetPageResponse(c, linkRequestHtml(view), status, worksheetCss(view.launch.pageCss))
}

/**
 * The request page's own address, its launch named: the query alone, so the browser keeps the page's path, which on
 * Supabase is not the one the function sees (as the worksheet page's form: worksheet-routes.ts).
 */
function actionOf(launch: WorksheetLaunch): string {
  return `?launch=${encodeURIComponent(launch.slug)}`
}

/** Queues the realtor's link when the address is a realtor's of the launch; false when nothing needed queuing. */
async function queueLinkFor(deps: WorksheetRouteDeps, launch: WorksheetLaunch, email: string, now: Date) {
  if (!hasWorksheetWindow(launch.phases, launch.timeZone, now.getTime())) return false
  const realtor = await deps.release.realtorOfAddress(launch.slug, deps.defaultLaunch, email)
  const to = realtor && singleAddress(realtor.email)
  if (!realtor || !to) return false
  const mail = linkMail({
    siteName: launch.siteName,
    texts: launch.texts,
    fromName: launch.fromName,
    to,
    url: await deps.linkOf(launch.slug, realtor.submissionId),
    newId: deps.newId,
  })
  const gapMs = deps.resendGapMs ?? 10 * 60_000
  const queued = await deps.store.queueWorksheetLinkReply(realtor.id, mail, now, new Date(now.getTime() - gapMs))
  if (queued) deps.log.info(`worksheets: a worksheet link was asked for and queued for lead ${realtor.id}`)
  return queued
}

/** The page's form, posted: checked, then the same answer whether or not a link was queued. */
export async function requestLink(c: Context, deps: WorksheetRouteDeps, launch: WorksheetLaunch): Promise<Response> {
  const action = actionOf(launch)
  if (!deps.sameSite(c, launch)) return respond(c, { launch, action, notice: launch.texts.invalidText }, 403)
  const posted = (await c.req.parseBody()).email
  const value = typeof posted === 'string' ? posted.slice(0, maxEmailLength) : ''
  if (await deps.overLimit(c)) return respond(c, { launch, action, value, notice: launch.texts.tooMany }, 429)
  const email = value.trim()
  if (!emailPattern.test(email))
    return respond(c, { launch, action, value, error: launch.texts.requestEmailInvalid }, 400)
  try {
    if (await queueLinkFor(deps, launch, email, deps.clock())) deps.onQueued?.()
  } catch (error) {
    deps.log.error('worksheets: a worksheet link asked for could not be queued', error)
    return respond(c, { launch, action, value, notice: launch.texts.requestFailed }, 500)
  }
  return respond(c, { launch, action, sent: true }, 200)
}

/** The page as first opened. */
export function linkRequestPage(c: Context, launch: WorksheetLaunch): Promise<Response> {
  return respond(c, { launch, action: actionOf(launch) }, 200)
}
