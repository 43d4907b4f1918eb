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
import type { FunctionDocuments } from '../../../schema/documents.ts'
import { checkDocumentLink } from './document-links.ts'
import { noticePage } from './unsubscribe.ts'
import { composeDocumentOpened } from './webhook.ts'
import type { LeadStore, OutgoingMail, StoredLead } from '../store/store.ts'

/** A launch as its document links need it. */
export type DocumentLaunch = {
  slug: string
  siteName: string
  lang: string
  pageCss?: string | undefined
  documents: FunctionDocuments
}

/** What the document routes need. */
export type DocumentRouteDeps = {
  store: LeadStore
  /** The secrets a link may be signed with (every launch's links secret; normally one). */
  secrets: string[]
  /** The launch of this slug when it has documents and a reply. */
  launchOf(slug: string): DocumentLaunch | undefined
  /** Whose words a link naming no known lead gets (the default launch's, or the first with documents). */
  fallback: DocumentLaunch
  /** The bytes of a launch's document file, or undefined when it cannot be read. */
  readFile(launch: string, file: string): Promise<Uint8Array | undefined>
  /** The e-mail with fresh links for a lead, made at `now` (follow-ups.ts: composeDocumentsReply). */
  freshReply(lead: StoredLead, now: Date): Promise<OutgoingMail | undefined>
  /** Queue a document.opened webhook call with each opening (WEBHOOK_URL set). */
  webhook: boolean
  /** Whether this caller is over the function's rate limit (counted here too). */
  overLimit(c: Context): Promise<boolean>
  /** Called once a fresh-link e-mail is queued: wake the outbox. */
  onQueued?: (() => void) | undefined
  /** At most one fresh-link e-mail a lead this often (default 10 minutes). */
  resendGapMs?: number
  clock: () => Date
  newId: () => string
  log: { info(message: string): void; error(message: string, error?: unknown): void }
}

type Status = 200 | 403 | 404 | 410 | 429 | 500

/** Hono routes for `<path>/documents/:document`, for each of the function's paths. */
export function createDocumentRoutes(paths: string[], deps: DocumentRouteDeps): Hono {
  const gapMs = deps.resendGapMs ?? 10 * 60_000

  function page(
    c: Context,
    launch: DocumentLaunch,
    status: Status,
    heading: string,
    text: string,
    button = false,
  ): Response {
    const t = launch.documents.texts
    const fill = (line: string) => line.replaceAll('{site}', launch.siteName)
    return noticePage(c, {
      lang: launch.lang,
      pageCss: launch.pageCss,
      title: fill(t.pageTitle),
      heading: fill(heading),
      text: fill(text),
      button: button ? fill(t.button) : undefined,
      status,
    })
  }

  /** The lead a submission id names, or undefined (none, or the store could not say). */
  async function leadOf(submissionId: string): Promise<StoredLead | undefined> {
    try {
      return await deps.store.findLead(submissionId)
    } catch (error) {
      deps.log.error('documents: could not read the lead of a link', error)
      return undefined
    }
  }

  async function answer(c: Context): Promise<Response> {
    const document = c.req.param('document') ?? ''
    const now = deps.clock()
    const link = await checkDocumentLink(
      deps.secrets,
      document,
      { id: c.req.query('id'), exp: c.req.query('exp'), sig: c.req.query('sig') },
      now,
    )
    if (link.kind === 'malformed')
      return page(
        c,
        deps.fallback,
        404,
        deps.fallback.documents.texts.heading,
        deps.fallback.documents.texts.unavailableText,
      )
    const lead = await leadOf(link.submissionId)
    const launch = (lead && deps.launchOf(lead.launch)) || deps.fallback
    const t = launch.documents.texts
    if (c.req.method === 'POST') return sendFresh(c, lead, launch, now)
    if (link.kind === 'forged') return page(c, launch, 403, t.heading, t.text, true)
    if (link.kind === 'expired') return page(c, launch, 410, t.heading, t.text, true)
    const offered = lead ? deps.launchOf(lead.launch)?.documents.list.find((d) => d.id === link.document) : undefined
    if (!lead || !offered) return page(c, launch, 404, t.heading, t.unavailableText)
    let bytes: Uint8Array | undefined
    try {
      bytes = await deps.readFile(lead.launch, offered.file)
    } catch (error) {
      deps.log.error(`documents: could not read ${offered.file} of launch ${lead.launch}`, error)
    }
    if (!bytes) {
      deps.log.error(
        `documents: ${offered.file} of launch ${lead.launch} is missing: its links answer 404 until it is back`,
      )
      return page(c, launch, 404, t.heading, t.unavailableText)
    }
    if (c.req.method === 'GET') {
      const openedAt = now.toISOString()
      const webhook = deps.webhook
        ? composeDocumentOpened({
            eventId: deps.newId(),
            lead: { submissionId: lead.submissionId, launch: lead.launch },
            siteName: launch.siteName,
            document: { id: offered.id, title: offered.title },
            openedAt,
          })
        : undefined
      try {
        await deps.store.recordDocumentOpened(
          { leadId: lead.id, document: offered.id, title: offered.title, openedAt },
          webhook,
        )
        deps.log.info(`documents: lead ${lead.id} opened ${offered.id}`)
        if (webhook) deps.onQueued?.()
      } catch (error) {
        // The reader still gets the document: losing one line of the log is better than refusing it.
        deps.log.error(`documents: could not log lead ${lead.id} opening ${offered.id}`, error)
      }
    }
    return new Response(c.req.method === 'HEAD' ? null : (bytes as Uint8Array<ArrayBuffer>), {
      status: 200,
      headers: {
        'content-type': 'application/pdf',
        'content-length': String(bytes.byteLength),
        'content-disposition': `inline; filename="${offered.id}.pdf"`,
        'cache-control': 'no-store',
        'x-robots-tag': 'noindex',
        'referrer-policy': 'no-referrer',
        'x-content-type-options': 'nosniff',
      },
    })
  }

  async function sendFresh(
    c: Context,
    lead: StoredLead | undefined,
    launch: DocumentLaunch,
    now: Date,
  ): Promise<Response> {
    const t = launch.documents.texts
    if (await deps.overLimit(c))
      return page(
        c,
        launch,
        429,
        t.heading,
        'Too many requests from this address. Please wait a minute and try again.',
        true,
      )
    try {
      const mail = lead && !lead.suspectedSpam ? await deps.freshReply(lead, now) : undefined
      if (lead && mail && (await deps.store.queueDocumentsReply(lead.id, mail, now, new Date(now.getTime() - gapMs)))) {
        deps.log.info(`documents: fresh links queued for lead ${lead.id}`)
        deps.onQueued?.()
      }
    } catch (error) {
      deps.log.error('documents: could not queue fresh links', error)
      return page(
        c,
        launch,
        500,
        t.heading,
        'Fresh links could not be sent just now. Please try again in a moment.',
        true,
      )
    }
    // The same answer whether a lead was found, was sent links or had them sent minutes ago: a link tells no one anything.
    return page(c, launch, 200, t.sentHeading, t.sentText)
  }

  const app = new Hono()
  for (const path of paths) {
    app.on(['GET', 'HEAD', 'POST'], `${path}/documents/:document`, answer)
    app.all(`${path}/documents/:document`, (c) => {
      const response = page(
        c,
        deps.fallback,
        404,
        deps.fallback.documents.texts.heading,
        deps.fallback.documents.texts.unavailableText,
      )
      return new Response(response.body, {
        status: 405,
        headers: { ...Object.fromEntries(response.headers), allow: 'GET, HEAD, POST' },
      })
    })
  }
  return app
}
