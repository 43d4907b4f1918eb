import type { Context } from 'hono'
import type { FunctionDocument, FunctionDocuments } from '../../../schema/documents.ts'
import { noticePage } from './unsubscribe.ts'
import { composeDocumentOpened } from './webhook.ts'
import type { LeadStore, OutgoingMail, StoredLead } from '../store/store.ts'

// The answers of the document routes (document-routes.ts), and what they need.

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

/** The statuses a document link's page answers with. */
export type DocumentPageStatus = 200 | 403 | 404 | 410 | 429 | 500

/** A document link's small page in the launch's words, {site} filled; `button` offers fresh links. */
export function documentPage(
  c: Context,
  launch: DocumentLaunch,
  status: DocumentPageStatus,
  heading: string,
  text: string,
  button = false,
): Response {
  const t = launch.documents.texts
  const fill = (line: string) => line.replaceAll('{site}', () => launch.siteName)
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
export async function leadOfLink(deps: DocumentRouteDeps, submissionId: string): Promise<StoredLead | undefined> {
  try {
    return await deps.store.findLead(submissionId)
  } catch (error) {
    deps.log.error('documents: could not read the lead of a link', error)
    return undefined
  }
}

/**
 * A well-signed link in time: the PDF, its opening logged on GET (with its webhook call); 404 when the file is gone.
 */
export async function serveDocument(
  c: Context,
  deps: DocumentRouteDeps,
  found: { lead: StoredLead; launch: DocumentLaunch; offered: FunctionDocument },
  now: Date,
): Promise<Response> {
  const { lead, launch, offered } = found
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
    const t = launch.documents.texts
    return documentPage(c, launch, 404, t.heading, t.unavailableText)
  }
  if (c.req.method === 'GET') await logOpening(deps, found, now)
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

async function logOpening(
  deps: DocumentRouteDeps,
  { lead, launch, offered }: { lead: StoredLead; launch: DocumentLaunch; offered: FunctionDocument },
  now: Date,
): Promise<void> {
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

/**
 * The page's button: queues an e-mail with fresh links to the address on file, at most one a lead every `resendGapMs`
 * and within the rate limit; the same answer whether or not a lead was found.
 */
export async function sendFreshLinks(
  c: Context,
  deps: DocumentRouteDeps,
  lead: StoredLead | undefined,
  launch: DocumentLaunch,
  now: Date,
): Promise<Response> {
  const t = launch.documents.texts
  const gapMs = deps.resendGapMs ?? 10 * 60_000
  if (await deps.overLimit(c)) return documentPage(c, launch, 429, t.heading, t.tooManyText, true)
  try {
    const mail = lead && !lead.suspectedSpam ? await deps.freshReply(lead, now) : undefined
    if (lead && mail && (await deps.store.queueDocumentsReply(lead.id, mail, now, new Date(now.getTime() - gapMs)))) {
      deps.log.info(`documents: fresh links queued for lead ${lead.id}`)
      deps.onQueued?.()
    }
  } catch (error) {
    deps.log.error('documents: could not queue fresh links', error)
    return documentPage(c, launch, 500, t.heading, t.failedText, true)
  }
  // The same answer whether a lead was found, was sent links or had them sent minutes ago: a link tells no one
  // anything.
  return documentPage(c, launch, 200, t.sentHeading, t.sentText)
}
