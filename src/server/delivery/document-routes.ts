/**
 * The document links of every reply (document-links.ts): `GET <path>/documents/<document>?id=…&exp=…&sig=…`.
 *
 *   well signed, in time   200 the PDF (no-store, noindex), the opening logged (lead, document, time) with its
 *                          document.opened webhook call; no account, no sign-in
 *   expired                410 a small page offering fresh links to the registered address
 *   wrong signature        403 the same page (a character changed); nothing logged
 *   not a link of ours     404 a small page; a document no longer offered or an erased lead: 404 too
 *   POST (the page's one button): queues an e-mail with fresh links to the address on file, through the outbox, at most
 *                          one per lead every `resendGapMs` and within the function's rate limit per client; the
 *                          answer is the same whether or not a lead was found, and never shows the address.
 *
 * HEAD answers as GET without logging (a link checker is not a reader). Web-standard only: Node and Deno serve it.
 */
import { Hono, type Context } from 'hono'
import { checkDocumentLink } from './document-links.ts'
import { documentPage, leadOfLink, sendFreshLinks, serveDocument, type DocumentRouteDeps } from './document-answers.ts'

// The type app.ts names its launches with; it lives beside the routes' other dependencies.
export type { DocumentLaunch } from './document-answers.ts'

/** Hono routes for `<path>/documents/:document`, for each of the function's paths. */
export function createDocumentRoutes(paths: string[], deps: DocumentRouteDeps): Hono {
  const app = new Hono()
  for (const path of paths) {
    app.on(['GET', 'HEAD', 'POST'], `${path}/documents/:document`, (c) => answerDocumentLink(c, deps))
    app.all(`${path}/documents/:document`, (c) => {
      const t = deps.fallback.documents.texts
      const response = documentPage(c, deps.fallback, 404, t.heading, t.unavailableText)
      return new Response(response.body, {
        status: 405,
        headers: { ...Object.fromEntries(response.headers), allow: 'GET, HEAD, POST' },
      })
    })
  }
  return app
}

/** One request on a document link: the PDF, or the page that says why not (and offers fresh links). */
async function answerDocumentLink(c: Context, deps: DocumentRouteDeps): Promise<Response> {
  const document = c.req.param('document') ?? ''
  const now = deps.clock()
  const link = await checkDocumentLink(
    deps.secrets,
    document,
    { id: c.req.query('id'), exp: c.req.query('exp'), sig: c.req.query('sig') },
    now,
  )
  if (link.kind === 'malformed') {
    const t = deps.fallback.documents.texts
    return documentPage(c, deps.fallback, 404, t.heading, t.unavailableText)
  }
  const lead = await leadOfLink(deps, link.submissionId)
  const launch = (lead && deps.launchOf(lead.launch)) || deps.fallback
  const t = launch.documents.texts
  // A changed link is not one we sent: it gets no fresh links (they would go to whoever its id names), and no button.
  if (link.kind === 'forged') return documentPage(c, launch, 403, t.heading, t.unavailableText)
  if (c.req.method === 'POST') return sendFreshLinks(c, deps, lead, launch, now)
  if (link.kind === 'expired') return documentPage(c, launch, 410, t.heading, t.text, true)
  const offered = lead ? deps.launchOf(lead.launch)?.documents.list.find((d) => d.id === link.document) : undefined
  if (!lead || !offered) return documentPage(c, launch, 404, t.heading, t.unavailableText)
  return serveDocument(c, deps, { lead, launch, offered }, now)
}
