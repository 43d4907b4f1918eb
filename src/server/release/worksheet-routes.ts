/**
 * The realtor's worksheet page (issue 45): `<path>/worksheets?id=…&sig=…`, the signed link of the realtor's reply
 * (delivery/document-links.ts). No account: the link is the key, and it names one realtor's registration.
 *
 *   well signed, a realtor's registration   200 the page: their clients, the form (or when worksheets open), their
 *                                           worksheets and outcomes; nothing of anyone else's
 *   POST from the page                      303 back to the page with its notice: the worksheet stored with its number
 *                                           and server time, its confirmations and CRM call queued in the same
 *                                           transaction; 400 the page again with each message under its field and
 *                                           every value kept; 403 outside the window, or from another site (Origin,
 *                                           else Referer, must be this host, the links' origin or one of the launch's
 *                                           origins); 429 over the rate limit (values kept)
 *   a character changed                     403 a plain page, no name, nothing logged of it
 *   not a link of ours, or no such realtor  404 the same plain page
 *
 * Web-standard only; served wherever the function has the release store beside the leads: the Node server, and the
 * Supabase function on the static-host set-up (where its links point at PUBLIC_FUNCTION_URL).
 */
import { Hono, type Context } from 'hono'
import { bodyLimit } from 'hono/body-limit'
import { logValue } from '../../../schema/log-value.ts'
import { worksheetStateAt } from '../../../schema/worksheets.ts'
import { escapeHtml } from '../delivery/escape-html.ts'
import { singleAddress } from '../delivery/mailer.ts'
import { isRealtorLead } from '../delivery/realtor.ts'
import type { StoredWorksheet } from '../store/release.ts'
import type { StoredLead } from '../store/store.ts'
import {
  checkWorksheetValues,
  choiceOptions,
  worksheetValuesOf,
  type WorksheetErrors,
  type WorksheetValues,
} from './worksheet-form.ts'
import { worksheetsPath, checkWorksheetLink } from '../delivery/document-links.ts'
import { receivedMessages } from './worksheet-messages.ts'
import { worksheetDocument, worksheetPageHtml, worksheetCss, type WorksheetView } from './worksheet-page.ts'
import { linkRequestPage, linkRequestPath, requestLink } from './worksheet-link-request.ts'
import { worksheetPageResponse } from './worksheet-response.ts'
import type { WorksheetLaunch, WorksheetRouteDeps } from './worksheet-deps.ts'

/** A link's realtor: their registration, its launch, and the registration their worksheets and clients are under. */
type Found = { lead: StoredLead; launch: WorksheetLaunch; realtorEmail: string; realtorId: number }

/** The plain page of a link that does not work: the launch's words, nothing of the link's. */
function refusedPage(c: Context, launch: WorksheetLaunch, status: 403 | 404 | 405 | 413): Promise<Response> {
  const t = launch.texts
  const fill = (text: string) => text.replaceAll('{site}', () => launch.siteName)
  const css = worksheetCss(launch.pageCss)
  const html = worksheetDocument({
    lang: launch.lang,
    title: fill(t.pageTitle),
    css,
    body: `<h1>${escapeHtml(t.invalidHeading)}</h1><p>${escapeHtml(fill(t.invalidText))}</p>
<p><a href="${worksheetsPath.slice(1)}${linkRequestPath}">${escapeHtml(t.requestLinkLabel)}</a></p>`,
  })
  return worksheetPageResponse(c, html, status, css, status === 405 ? { allow: 'GET, HEAD, POST' } : {})
}

/** The realtor a link names, with their launch; or the refusal. */
async function realtorOf(c: Context, deps: WorksheetRouteDeps): Promise<Found | Response> {
  const id = await checkWorksheetLink(deps.secrets, { id: c.req.query('id'), sig: c.req.query('sig') })
  const wellFormed = /^[0-9a-f-]{36}$/i.test(c.req.query('id') ?? '') && (c.req.query('sig') ?? '') !== ''
  if (id === undefined) return refusedPage(c, deps.fallback, wellFormed ? 403 : 404)
  let lead: StoredLead | undefined
  try {
    lead = await deps.store.findLead(id)
  } catch (error) {
    deps.log.error('worksheets: could not read the registration of a link', error)
  }
  const launch = lead && deps.launchOf(lead.launch)
  const realtorEmail = typeof lead?.fields.email === 'string' ? singleAddress(lead.fields.email) : undefined
  if (!lead || !launch || !isRealtorLead(lead.fields) || !realtorEmail) return refusedPage(c, deps.fallback, 404)
  // A realtor who registered again (the way to ask for the link again) sees the same page from either link.
  return { lead, launch, realtorEmail, realtorId: await deps.release.firstRealtorLead(lead.id) }
}

/** The launch's time in its zone and language. */
function timeOf(launch: WorksheetLaunch): (at: string | number) => string {
  let format = timeFormats.get(launch)
  if (!format) {
    format = new Intl.DateTimeFormat(launch.lang, { timeZone: launch.timeZone, dateStyle: 'long', timeStyle: 'short' })
    timeFormats.set(launch, format)
  }
  const made = format
  return (at) => made.format(new Date(at))
}

// Each launch's formatter, made once (a launch swapped live is a new object, with a formatter of its own).
const timeFormats = new WeakMap<WorksheetLaunch, Intl.DateTimeFormat>()

type PageParts = { values?: WorksheetValues; errors?: WorksheetErrors; notice?: string; sent?: number }

/** Renders the realtor's page from the store as it is now. */
async function renderPage(c: Context, deps: WorksheetRouteDeps, found: Found, status: number, parts: PageParts = {}) {
  const { launch, realtorId } = found
  const [clients, worksheets, lots] = await Promise.all([
    deps.release.clientsOf(realtorId),
    deps.release.listWorksheets(launch.slug, realtorId),
    deps.release.listLotModels(launch.slug),
  ])
  const url = new URL(c.req.url)
  url.searchParams.delete('sent')
  const view: WorksheetView = {
    lang: launch.lang,
    siteName: launch.siteName,
    texts: launch.texts,
    pageCss: launch.pageCss,
    // The query alone: the browser keeps the page's own path, which on Supabase is not the one the function sees
    // (…/functions/v1/send-contact-email/… outside, /send-contact-email/… inside).
    action: url.search,
    clients,
    worksheets,
    state: worksheetStateAt(launch.phases, launch.timeZone, deps.clock().getTime()),
    options: choiceOptions(lots, launch.texts),
    values: parts.values,
    errors: parts.errors,
    notice: parts.notice,
    sent: worksheets.find((w: StoredWorksheet) => w.number === parts.sent),
    time: timeOf(launch),
  }
  return worksheetPageResponse(c, worksheetPageHtml(view), status, worksheetCss(launch.pageCss))
}

/** A posted worksheet: checked, then stored with its messages; the page again when refused. */
async function receive(c: Context, deps: WorksheetRouteDeps, found: Found): Promise<Response> {
  const { launch, lead } = found
  if (!deps.sameSite(c, launch)) return refusedPage(c, launch, 403)
  const values = worksheetValuesOf(await c.req.parseBody())
  if (await deps.overLimit(c)) return renderPage(c, deps, found, 429, { values, notice: launch.texts.tooMany })
  const now = deps.clock()
  if (!worksheetStateAt(launch.phases, launch.timeZone, now.getTime()).open) return renderPage(c, deps, found, 403)
  const options = choiceOptions(await deps.release.listLotModels(launch.slug), launch.texts)
  const checked = checkWorksheetValues(values, options, launch.texts)
  if (!checked.ok) return renderPage(c, deps, found, 400, { values, errors: checked.errors })
  const realtorName =
    typeof lead.fields.name === 'string' && lead.fields.name.trim() ? lead.fields.name.trim() : found.realtorEmail
  const context = {
    siteName: launch.siteName,
    texts: launch.texts,
    desk: launch.desk,
    fromName: launch.fromName,
    realtorName,
    time: timeOf(launch)(now.getTime()),
    webhook: deps.webhook,
    newId: deps.newId,
  }
  let stored: StoredWorksheet
  try {
    stored = await deps.release.saveWorksheet(
      {
        launch: launch.slug,
        realtorLeadId: found.realtorId,
        realtorEmail: found.realtorEmail,
        ...checked.worksheet,
        choices: checked.choices,
        depositAccepted: true,
        receivedAt: now.toISOString(),
      },
      (worksheet) => receivedMessages(worksheet, context),
    )
  } catch (error) {
    deps.log.error(`worksheets: a worksheet of launch ${logValue(launch.slug)} could not be stored`, error)
    return renderPage(c, deps, found, 500, { values, notice: launch.texts.failed })
  }
  deps.log.info(
    `worksheets: worksheet ${stored.number} of launch ${logValue(launch.slug)} received from lead ${lead.id}`,
  )
  deps.onQueued?.()
  const back = new URL(c.req.url)
  back.searchParams.set('sent', String(stored.number))
  // Relative, as the form's action: the browser resolves it against the address it posted to.
  return new Response(null, { status: 303, headers: { location: back.search, 'cache-control': 'no-store' } })
}

/** Hono routes for `<path>/worksheets`, for each of the function's paths. */
export function createWorksheetRoutes(paths: readonly string[], deps: WorksheetRouteDeps): Hono {
  const app = new Hono()
  const limit = bodyLimit({ maxSize: 16 * 1024, onError: (c) => refusedPage(c, deps.fallback, 413) })
  for (const path of paths) {
    app.on(['GET', 'HEAD', 'POST'], `${path}${worksheetsPath}`, limit, async (c) => {
      const found = await realtorOf(c, deps)
      if (found instanceof Response) return found
      if (c.req.method === 'POST') return receive(c, deps, found)
      return renderPage(c, deps, found, 200, { sent: Number(c.req.query('sent') ?? 0) })
    })
    app.all(`${path}${worksheetsPath}`, (c) => refusedPage(c, deps.fallback, 405))
    app.on(['GET', 'HEAD', 'POST'], `${path}${worksheetsPath}${linkRequestPath}`, limit, async (c) => {
      const named = c.req.query('launch')
      const launch = named === undefined ? (deps.launchOfRequest(c) ?? deps.fallback) : deps.launchOf(named)
      if (!launch) return refusedPage(c, deps.fallback, 404)
      return c.req.method === 'POST' ? requestLink(c, deps, launch) : linkRequestPage(c, launch)
    })
    app.all(`${path}${worksheetsPath}${linkRequestPath}`, (c) => refusedPage(c, deps.fallback, 405))
  }
  return app
}
