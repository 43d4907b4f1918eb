import type { Context } from 'hono'
import type { ReplyConfig } from '../../../schema/reply.ts'
import { registeredPagePath } from '../../../schema/registration-contract.ts'
import { formFieldNames } from '../../../schema/registration-rules.ts'
import { notificationToQueue } from '../compose-later.ts'
import { assignLead } from '../delivery/assignment.ts'
import { followUpMessages } from '../delivery/follow-ups.ts'
import { notificationRecipient } from '../delivery/realtor.ts'
import {
  derivedSubmissionId,
  formPostAttribution,
  formPostPage,
  isFormPost,
  parseFormBody,
} from '../registration/form-post.ts'
import { jsonAnswer, refusal } from '../registration/refusal.ts'
import {
  canonical,
  controlCharacterErrors,
  isHoneypotFilled,
  parseRegistrationBody,
  readSubmissionContext,
  sameFields,
  userAgentOf,
} from '../registration/registration-body.ts'
import { consentOf } from '../store/consent.ts'
import { consentEvidence, ownPageAddress } from '../store/lead-evidence.ts'
import type { NewLead } from '../store/store.ts'
import type { FunctionContext, ServedLaunch } from './context.ts'

/** A registration as read from the request: its launch, its body, where it came from. */
type Received = {
  plain: boolean
  /** The plain form post's site (its origin). */
  site: string | undefined
  launch: ServedLaunch
  body: Record<string, unknown>
  context: ReturnType<typeof readSubmissionContext>
}

/**
 * Reads the body (JSON or a plain form post) and finds its launch; a plain form's values are read by that launch's
 * schema.
 */
async function receive(fn: FunctionContext, c: Context): Promise<Received> {
  const plain = isFormPost(c.req.raw)
  const site = plain ? fn.formPostSite(c)! : undefined
  const bytes = await c.req.arrayBuffer()
  // First as text, to find the launch.
  const sent = plain ? parseFormBody(bytes, {}) : parseRegistrationBody(bytes)
  const launch = fn.launchOf(c, sent.launch, plain ? site : c.req.header('origin'))
  const body = plain ? parseFormBody(bytes, launch.site.form.schema) : sent
  const read = readSubmissionContext(plain ? { submissionId: body.submissionId || undefined } : body, {
    newId: fn.newId,
  })
  // A plain form shows the config's consent note and sends none; its attribution is the page it was sent from (the
  // form shown again after a correction carries that page's address on, as pageUrl).
  const context = plain
    ? { ...read, ...formPostAttribution(formPostPage(body.pageUrl, site!) ?? c.req.header('referer')) }
    : read
  return { plain, site, launch, body, context }
}

/** The fields as the launch's schema reads them; a field breaking a rule refuses the registration with 400. */
function checkedFields({ launch, body, context }: Received): Record<string, unknown> {
  const form = launch.site.form
  const checked = launch.validate(body)
  const errors = { ...controlCharacterErrors(body, form), ...(checked.ok ? {} : checked.errors) }
  if (checked.ok && Object.keys(errors).length === 0) return checked.value
  const values = Object.fromEntries(
    formFieldNames(form.schema)
      .filter((f) => f in body)
      .map((f) => [f, body[f]]),
  )
  throw refusal(400, 'Some fields need attention.', {
    errors,
    values,
    carried: context.pageUrl ? { pageUrl: context.pageUrl } : {},
  })
}

/** The lead to store: the fields, the evidence of consent, the phase in force, where it came from. */
async function newLeadOf(fn: FunctionContext, c: Context, received: Received): Promise<NewLead> {
  const { plain, launch, body, context } = received
  const fields = checkedFields(received)
  const { reportedConsent, ...read } = context
  // Without an id from the page, a plain post's is derived from its values: the same registration posted twice (a
  // double click, the answer reloaded) is stored once, a corrected one is a new submission.
  const now = fn.clock()
  const submissionId =
    plain && !body.submissionId
      ? await derivedSubmissionId(canonical(fields), fn.clientAddressOf(c), now)
      : read.submissionId
  const phase = launch.phases?.at(now)
  const form = launch.site.form
  return {
    ...read,
    ...(await consentEvidence(form.consent, reportedConsent)),
    pageUrl: ownPageAddress(read.pageUrl, (origin) => launch.ownPages(origin, c) !== null),
    submissionId,
    launch: launch.site.slug,
    createdAt: now.toISOString(),
    ...(phase !== undefined ? { phase } : {}),
    fields,
    // Express only when the config's unticked box was ticked; else implied by this inquiry, for six months (CASL).
    ...consentOf(fields, form.expressConsentField, now.toISOString()),
    userAgent: userAgentOf(c.req.header('user-agent')),
    // Bots fill every input, the hidden one too. Kept, flagged and never notified, rather than dropped: a real
    // visitor caught by mistake can be found in the export. The answer is the same as anyone's.
    suspectedSpam: isHoneypotFilled(body),
  }
}

/** Stores the lead with its notification, follow-ups and assignment in one write; nothing acknowledged on failure. */
async function storeLead(fn: FunctionContext, launch: ServedLaunch, lead: NewLead) {
  const { deps, log } = fn
  const spam = lead.suspectedSpam === true
  try {
    // A new lead reaches a person at once: the roster's next salesperson, or the co-op desk (assignment.ts).
    const assigned = spam ? undefined : assignLead(lead, launch.site, fn.timeZone)
    const notification = {
      ...launch.notification,
      recipient: notificationRecipient(lead.fields, launch.site),
      assignedTo: assigned?.assignedTo,
    }
    const later = deps.composeAtDelivery === true
    const phaseReply = (config: ReplyConfig) => launch.phases?.reply(config, lead.phase) ?? config
    const more = spam ? [] : await followUpMessages({ ...deps, log }, lead, launch.site, phaseReply, later)
    const queued = spam ? null : notificationToQueue(lead, notification, later)
    return await deps.store.saveLead(lead, queued, more, assigned?.assignment)
  } catch (error) {
    log.error(`send-contact-email: could not store submission ${lead.submissionId}`, error)
    throw refusal(500, 'Your registration could not be saved. Please try again in a moment.')
  }
}

/** The registration handler: read, check, store (once per submission id), then answer as JSON or as a page. */
export function createRegisterHandler(fn: FunctionContext): (c: Context) => Promise<Response> {
  return async (c) => {
    const received = await receive(fn, c)
    const lead = await newLeadOf(fn, c, received)
    const saved = await storeLead(fn, received.launch, lead)
    if (saved.created) {
      const note = lead.suspectedSpam ? ' as suspected spam (honeypot filled), not notified' : ''
      fn.log.info(`send-contact-email: stored lead ${saved.lead.id}${note}`)
      if (!lead.suspectedSpam) fn.deps.onLeadStored?.()
    } else if (!sameFields(saved.lead.fields, lead.fields)) {
      throw refusal(
        409,
        'This submissionId was already used for a different registration: make a new one for each submission.',
      )
    }
    // After a plain post the browser GETs the thanks, so a reload does not post again.
    if (received.plain)
      return new Response(null, {
        status: 303,
        headers: { location: `${received.site}${registeredPagePath}`, 'cache-control': 'no-store' },
      })
    return jsonAnswer(200, { ok: true })
  }
}
