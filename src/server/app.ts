/**
 * The send-contact-email function: one Hono app, web-standard APIs only, run by src/server/node.ts (Node, with
 * SQLite) and supabase/functions/send-contact-email/index.ts (Deno, with Postgres). Its store, clock and
 * outbox wake-up are passed in; nothing here reads env or touches a runtime.
 *
 * ## Request contract
 *
 * POST /functions/v1/send-contact-email   (also /send-contact-email: the path a Supabase function sees)
 *   What supabase-js `functions.invoke('send-contact-email', { body })` sends:
 *   headers  apikey: <anon key>  and/or  authorization: Bearer <anon key>
 *            content-type: application/json
 *   body     {
 *              name, email, phone, isRealtor,        the form fields (the launch's page.config.json form.schema)
 *              launch: "<slug>",                     which launch (launch.slug of the page's config); optional when
 *                                                    the caller's origin or host leaves one launch, or the default
 *                                                    launch is among them (launch-choice.ts)
 *              submissionId: "<uuid>",               made once per submission by the browser; a retry with the
 *                                                    same id and data is stored once (optional: made here if absent)
 *              pageUrl: "https://…",                 location.href (optional): kept as scheme://host/path only when
 *                                                    it is a page of the launch's (same origin, its origins or
 *                                                    ALLOWED_ORIGINS), else not kept; the registration succeeds anyway
 *              referrer: "https://…" | "",           document.referrer (optional)
 *              utm: { utm_source: "…", … },          the page's utm_* parameters (optional)
 *              clickIds: { gclid: "…", … },          ad click ids of the landing address (optional)
 *              landingPage: "/",                     the landing page's path (optional; query and fragment dropped)
 *              consentText: "By submitting, …",      the consent note shown (optional): a report only; the config's
 *                                                    text and its SHA-256 are stored, this only if it differs
 *              hp_leave_empty: ""                    honeypot: a hidden input people leave empty ("website" in
 *                                                    older pages). Filled: stored flagged as suspected spam, never
 *                                                    notified, answered like any other.
 *            }
 *   Unknown fields are dropped: a field of another launch's form too. Keys named __proto__, constructor or
 *   prototype are refused. Everything after the choice of launch is that launch's: its schema and messages, consent
 *   note, notification address, reply, webhook payload (with `launch`) and pages; the lead is stored with its slug.
 *
 * The same path takes the plain form post of a visitor without JavaScript: content-type
 * application/x-www-form-urlencoded, the form's inputs by field name (a hidden `launch` among them), the same rules
 * (schema, trimming, messages, honeypot, rate limit, body limit, idempotency). No anon key (a form cannot send one):
 * its Origin (or, without one, its Referer) must be one of the site's origins, else 403. Attribution comes from the
 * Referer; the submission id, when not sent, is derived from the values, the client and a 10-minute window (see
 * form-post.ts). Answers are pages:
 *   303 → <site>/registered.html                    stored (the prerendered thanks)
 *   400 text/html                                   fields to correct, Node server: the launch's home page, its form
 *                                                    filled in, each message under its field (formPageHtml)
 *   303 → <site>/check-details.html                 fields to correct, without formPageHtml (Supabase)
 *   4xx/500 text/html                               any other refusal: its message and a link back
 *
 * Answers to JSON (always JSON; never a stack trace):
 *   200 { ok: true }                                stored (or already stored)
 *   400 { error, errors: { field: message } }       a field breaks a rule: the config's message for it
 *   400 { error }                                   not JSON, not an object, a bad submissionId/utm…, no launch of
 *                                                    that name ('There is no launch "x" here.') or none named where
 *                                                    several could be meant
 *   401 { error }                                   no or wrong anon key
 *   403 { error }                                   the Origin is not one of the site's origins, or the launch named
 *                                                    is not one this page (origin or host) may register for
 *   405 { error }                                   not POST/OPTIONS
 *   409 { error }                                   this submissionId was already used for different data
 *   413 { error }                                   body larger than the limit (MAX_BODY_BYTES, 16 KiB by default)
 *   415 { error }                                   neither application/json nor a form post
 *   429 { error } + Retry-After                     over RATE_LIMIT_PER_MINUTE for this client IP
 *   500 { error }                                   could not be stored: nothing was acknowledged
 * OPTIONS: CORS preflight, 204 for the site's origins (same origin, a launch's origins, or ALLOWED_ORIGINS), 403
 * for others.
 *
 * POST …/send-contact-email/deliver-pending with `authorization: Bearer <OUTBOX_SECRET>` delivers due
 * notifications now (the scheduled retry on Supabase) and answers { ok, sent, failed }.
 */
import { consentOf } from './store/consent.ts'
import { Hono, type Context } from 'hono'
import { bearerAuth } from 'hono/bearer-auth'
import { HTTPException } from 'hono/http-exception'
import { timingSafeEqual } from 'hono/utils/buffer'
import { createRegistrationValidator } from '../../schema/registration-ajv.ts'
import { contactFunctionPath } from '../../schema/function-path.ts'
import { createOriginPolicy, requestHost, type OriginPolicy } from './registration/caller.ts'
import { checkDetailsPagePath, registeredPagePath } from '../../schema/registration-contract.ts'
import { formFieldNames } from '../../schema/registration-rules.ts'
import { fillFormPage } from './registration/form-page.ts'
import {
  derivedSubmissionId,
  formPostAttribution,
  formPostOrigin,
  formPostPage,
  isFormPost,
  parseFormBody,
  plainAnswerPage,
} from './registration/form-post.ts'
import { healthHandler } from './site/health.ts'
import { consentEvidence, ownPageAddress } from './store/lead-evidence.ts'
import { deliverySettings } from './delivery/settings.ts'
import { fieldLabel, type NotificationSettings } from './delivery/notification.ts'
import { composingLaunchOf, notificationToQueue } from './compose-later.ts'
import { createRateLimiter, type RateLimiter } from './registration/rate-limit.ts'
import { allowMethods, createRequestGuards } from './registration/request-guards.ts'
import { registrationSettings } from './registration/settings.ts'
import { jsonAnswer, refusal, type RefusalDetails } from './registration/refusal.ts'
import {
  canonical,
  controlCharacterErrors,
  isHoneypotFilled,
  parseRegistrationBody,
  readSubmissionContext,
  sameFields,
  userAgentOf,
} from './registration/registration-body.ts'
import { createLaunchChooser } from './registration/launch-choice.ts'
import type { LaunchPhases } from './registration/launch-phase.ts'
import type { LaunchSite } from './site/launch-site.ts'
import type { VisitImageCounter } from './site/visit-requests.ts'
import { notificationRecipient } from './delivery/realtor.ts'
import { assignLead } from './delivery/assignment.ts'
import { composeDocumentsReply, followUpMessages } from './delivery/follow-ups.ts'
import { createDocumentRoutes, type DocumentLaunch } from './delivery/document-routes.ts'
import { rateLimitKey } from './registration/client-address.ts'
import type { AddressKey, LeadStore, NewLead } from './store/store.ts'
import { createUnsubscribeRoutes, type UnsubscribePageTexts } from './delivery/unsubscribe.ts'

/** Where the app reports what happened; console by default. Never given visitors' personal data. */
export type AppLog = {
  info(message: string): void
  error(message: string, error?: unknown): void
}

/** The scheduled-retry endpoint: its secret, and the delivery run it triggers. */
export type OutboxTrigger = {
  secret: string
  run(): Promise<{ sent: number; failed: number }>
}

/** What createApp needs: everything from outside is passed in. */
export type AppDeps = {
  /** Every launch served (launch-site.ts: launchSiteOf); each registration is for exactly one of them. */
  launches: LaunchSite[]
  /** The slug of the launch a caller gets when it names none and could mean several (the root page.config.json's). */
  defaultLaunch: string
  /**
   * The slug of the launch a host name serves (the Node server's host routing; any other host: the default launch).
   * Absent (Supabase): same-origin and Origin-less callers may register for any launch they name.
   */
  launchOfHost?: ((host: string) => string | undefined) | undefined
  /** IANA time zone for times in the notification. Default: NOTIFY_TIME_ZONE's (env.ts). */
  timeZone?: string
  store: LeadStore
  /** Now. Injected so tests control time. */
  clock?: () => Date
  /** Keys accepted in `apikey` / `authorization: Bearer`. At least one. */
  anonKeys: string[]
  /** Origins (scheme://host[:port]) allowed to call from a browser besides the same origin; ['*'] allows any. */
  allowedOrigins?: string[]
  /** Largest accepted body in bytes. Default: MAX_BODY_BYTES's (env.ts). */
  bodyLimitBytes?: number
  /** Requests a minute per client IP; 0 turns the limit off. Default: RATE_LIMIT_PER_MINUTE's (env.ts). */
  rateLimitPerMinute?: number
  /** The limiter to count with, when it must outlive this app (the Node server makes a new app at each publish). */
  rateLimiter?: RateLimiter
  /** How many proxies in front set X-Forwarded-Host (the page's host, for same-origin checks); 0 (default) ignores it. */
  trustProxy?: number
  /**
   * The visitor's address, as the entry trusts it (forwarded-address.ts on Node, the platform's header on
   * Supabase): never a value the client wrote. IPv6 visitors are counted by their /64.
   */
  clientAddress?: (c: Context) => string | undefined
  /** Called after a lead and its notification are committed: wake the outbox worker. Must not throw. */
  onLeadStored?: () => void
  /** Queue a new lead's notification and reply to be composed when sent (compose-later.ts): the Node server's. */
  composeAtDelivery?: boolean
  /** Enables POST …/deliver-pending. */
  outboxTrigger?: OutboxTrigger
  log?: AppLog
  /** Makes a submission id when the browser sent none. Default crypto.randomUUID. */
  newId?: () => string
  /** Queue a CRM webhook call with every new lead (WEBHOOK_URL is set). Never for an address that has withdrawn. */
  webhook?: boolean
  /**
   * The suppression-list key of an address (suppression.ts, with the server's secret): an address that withdrew and
   * was then erased is found there, no longer among the leads. Absent: only the leads' withdrawn_at is checked.
   */
  suppressionKeyOf?: (email: string) => Promise<AddressKey>
  /** Counts the pages' visit images, GET …/visit/<launch> (site/visit-counter.ts); absent: answered, nothing counted. */
  visits?: VisitImageCounter | undefined
  /** Writes each visit image's count before answering: the Edge Function's instance may end once it has answered. */
  flushVisits?: boolean
  /**
   * The bytes of a launch's document (page.config.json `documents`, its path from the launch's folder): the Node
   * server reads the launch's folder, the Deno function its own copy. Absent: every document link answers 404.
   */
  documentFiles?: (launch: string, file: string) => Promise<Uint8Array | undefined>
}

// A transparent 1×1 GIF: the visit image's answer.
const visitImage = Uint8Array.from(atob('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7'), (c) =>
  c.charCodeAt(0),
)

/** One launch as the app answers for it: its site, and what is made of it once at creation. */
type ServedLaunch = {
  site: LaunchSite
  validate: ReturnType<typeof createRegistrationValidator>
  notification: NotificationSettings
  /** Whether a page address is this launch's (pageUrl is kept only then). */
  ownPages: OriginPolicy
  /** Its phases, when it has them: each registration is stored, answered and shown again in the phase in force. */
  phases: LaunchPhases | undefined
}

/** The function's paths (the second is the one a Supabase function sees), for routes mounted beside it. */
export const contactFunctionPaths = [contactFunctionPath, '/send-contact-email']
const functionPaths = contactFunctionPaths

/**
 * Builds the function's Hono app. Mount it with `root.route('/', app)`: it only answers the function's paths,
 * so a host app can serve everything else.
 */
export function createApp(deps: AppDeps): Hono {
  if (deps.anonKeys.length === 0) throw new Error('createApp needs at least one anon key.')
  const clock = deps.clock ?? (() => new Date())
  const log: AppLog = deps.log ?? { info: (m) => console.log(m), error: (m, e) => console.error(m, e ?? '') }
  const newId = deps.newId ?? (() => crypto.randomUUID())
  const trustProxy = deps.trustProxy ?? 0
  const limiter =
    deps.rateLimiter ?? createRateLimiter(deps.rateLimitPerMinute ?? registrationSettings.RATE_LIMIT_PER_MINUTE.default)
  const timeZone = deps.timeZone ?? deliverySettings.NOTIFY_TIME_ZONE.default
  const allowedOrigins = deps.allowedOrigins ?? []
  const launches = new Map<string, ServedLaunch>()
  for (const site of deps.launches) {
    if (launches.has(site.slug)) throw new Error(`createApp was given two launches named "${site.slug}".`)
    launches.set(site.slug, {
      ...composingLaunchOf(site, timeZone),
      validate: createRegistrationValidator(site.form),
      // A page is the launch's when it is on this host, one of its origins or an origin named outright: '*' lets any
      // page call, but makes none its own.
      ownPages: createOriginPolicy([...allowedOrigins.filter((origin) => origin !== '*'), ...site.origins], trustProxy),
    })
  }
  const chooseLaunch = createLaunchChooser({
    launches: deps.launches,
    defaultLaunch: deps.defaultLaunch,
    allowedOrigins,
    launchOfHost: deps.launchOfHost,
  })
  // Every launch's pages may call, as may the operator's ALLOWED_ORIGINS; which launch they may file into is decided
  // once the body names it.
  const originPolicy = createOriginPolicy(
    [...allowedOrigins, ...deps.launches.flatMap((site) => site.origins)],
    trustProxy,
  )
  /** The launch each request being answered was found to be for (a refused plain post shows that launch's form). */
  const chosen = new WeakMap<Request, ServedLaunch>()
  const maxSize = deps.bodyLimitBytes ?? registrationSettings.MAX_BODY_BYTES.default
  const clientAddressOf = (c: Context) => {
    try {
      return deps.clientAddress?.(c) ?? 'unknown'
    } catch {
      return 'unknown'
    }
  }

  /** The site a plain form post comes from (its Origin, or without one its Referer's), when it is one of ours. */
  const formPostSite = (c: Context): string | undefined => {
    const origin = formPostOrigin(c.req.header('origin'), c.req.header('referer'))
    return origin !== undefined && originPolicy(origin, c) !== null ? origin : undefined
  }

  const { sameSiteOnly, corsHeaders, rateLimited, anonKeyRequired, jsonOnly, sizeLimited } = createRequestGuards({
    originPolicy,
    formPostSite,
    limiter,
    clock,
    clientAddressOf,
    anonKeys: deps.anonKeys,
    maxSize,
  })

  /** The launch a registration is for (launch-choice.ts), or the refusal saying why there is none. */
  function launchOf(c: Context, named: unknown, origin: string | undefined): ServedLaunch {
    const choice = chooseLaunch({ origin, host: requestHost(c, trustProxy), named })
    if (!choice.ok) throw refusal(choice.status, choice.error)
    const launch = launches.get(choice.slug)!
    chosen.set(c.req.raw, launch)
    return launch
  }

  async function register(c: Context): Promise<Response> {
    const plain = isFormPost(c.req.raw)
    const site = plain ? formPostSite(c)! : undefined
    const bytes = await c.req.arrayBuffer()
    // A plain form's values are read by the launch's schema (numbers, booleans): first as text, to find the launch.
    const sent = plain ? parseFormBody(bytes, {}) : parseRegistrationBody(bytes)
    const launch = launchOf(c, sent.launch, plain ? site : c.req.header('origin'))
    const form = launch.site.form
    const body = plain ? parseFormBody(bytes, form.schema) : sent
    const { reportedConsent, ...read } = readSubmissionContext(
      plain ? { submissionId: body.submissionId || undefined } : body,
      { newId },
    )
    // A plain form shows the config's consent note and sends none; its attribution is the page it was sent from (the
    // form shown again after a correction carries that page's address on, as pageUrl).
    const context = plain
      ? { ...read, ...formPostAttribution(formPostPage(body.pageUrl, site!) ?? c.req.header('referer')) }
      : read
    const checked = launch.validate(body)
    const errors = { ...controlCharacterErrors(body, form), ...(checked.ok ? {} : checked.errors) }
    if (!checked.ok || Object.keys(errors).length > 0) {
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
    // Bots fill every input, the hidden one too. Kept, flagged and never notified, rather than dropped: a real
    // visitor caught by mistake can be found in the export. The answer is the same as anyone's.
    const suspectedSpam = isHoneypotFilled(body)
    // Without an id from the page, a plain post's is derived from its values: the same registration posted twice (a
    // double click, the answer reloaded) is stored once, a corrected one is a new submission.
    const now = clock()
    const submissionId =
      plain && !body.submissionId
        ? await derivedSubmissionId(canonical(checked.value), clientAddressOf(c), now)
        : context.submissionId
    const phase = launch.phases?.at(now)
    const lead: NewLead = {
      ...context,
      ...(await consentEvidence(form.consent, reportedConsent)),
      pageUrl: ownPageAddress(context.pageUrl, (origin) => launch.ownPages(origin, c) !== null),
      submissionId,
      launch: launch.site.slug,
      createdAt: now.toISOString(),
      ...(phase !== undefined ? { phase } : {}),
      fields: checked.value,
      // Express only when the config's unticked box was ticked; else implied by this inquiry, for six months (CASL).
      ...consentOf(checked.value, form.expressConsentField, now.toISOString()),
      userAgent: userAgentOf(c.req.header('user-agent')),
      suspectedSpam,
    }
    let saved
    try {
      // A new lead reaches a person at once: the roster's next salesperson, or the co-op desk (assignment.ts).
      const assigned = suspectedSpam ? undefined : assignLead(lead, launch.site, timeZone)
      const notification = {
        ...launch.notification,
        recipient: notificationRecipient(lead.fields, launch.site),
        assignedTo: assigned?.assignedTo,
      }
      const later = deps.composeAtDelivery === true
      const more = suspectedSpam
        ? []
        : await followUpMessages(
            { ...deps, log },
            lead,
            launch.site,
            (config) => launch.phases?.reply(config, lead.phase) ?? config,
            later,
          )
      saved = await deps.store.saveLead(
        lead,
        suspectedSpam ? null : notificationToQueue(lead, notification, later),
        more,
        assigned?.assignment,
      )
    } catch (error) {
      log.error(`send-contact-email: could not store submission ${lead.submissionId}`, error)
      throw refusal(500, 'Your registration could not be saved. Please try again in a moment.')
    }
    if (saved.created) {
      log.info(
        `send-contact-email: stored lead ${saved.lead.id}${suspectedSpam ? ' as suspected spam (honeypot filled), not notified' : ''}`,
      )
      if (!suspectedSpam) deps.onLeadStored?.()
    } else if (!sameFields(saved.lead.fields, lead.fields)) {
      throw refusal(
        409,
        'This submissionId was already used for a different registration: make a new one for each submission.',
      )
    }
    // After a plain post the browser GETs the thanks, so a reload does not post again.
    if (plain)
      return new Response(null, {
        status: 303,
        headers: { location: `${site}${registeredPagePath}`, 'cache-control': 'no-store' },
      })
    return jsonAnswer(200, { ok: true })
  }

  /** The answer to a refused plain form post: the form again with its messages, the check-details page, or a note. */
  function formRefusal(c: Context, status: number, message: string, details: RefusalDetails): Response {
    const site = formPostSite(c)
    const launch = chosen.get(c.req.raw)?.site
    const headers = { 'cache-control': 'no-store', ...details.headers }
    if (details.errors && site && launch) {
      const phase = chosen.get(c.req.raw)?.phases?.at(clock()) // the page of the phase in force: its words, its submit label
      const formPageHtml = (phase !== undefined ? launch.phasePages?.[phase] : undefined) ?? launch.formPageHtml
      if (!formPageHtml)
        return new Response(null, { status: 303, headers: { ...headers, location: `${site}${checkDetailsPagePath}` } })
      const labelOf = (field: string) => fieldLabel(launch.form, field)
      const html = fillFormPage(formPageHtml, details.values ?? {}, details.errors, labelOf, details.carried)
      return new Response(html, { status, headers: { ...headers, 'content-type': 'text/html; charset=utf-8' } })
    }
    const back = site && status !== 403 ? `${site}/` : undefined
    return new Response(plainAnswerPage(message, back), {
      status,
      headers: { ...headers, 'content-type': 'text/html; charset=utf-8' },
    })
  }

  const app = new Hono()
  app.onError((error, c) => {
    const unexpected = 'The registration could not be saved just now. Please try again in a moment.'
    if (!(error instanceof HTTPException)) log.error('send-contact-email: unexpected error', error)
    if (isFormPost(c.req.raw)) {
      if (!(error instanceof HTTPException)) return formRefusal(c, 500, unexpected, {})
      return formRefusal(c, error.status, error.message, (error.cause ?? {}) as RefusalDetails)
    }
    if (error instanceof HTTPException) return error.getResponse()
    return jsonAnswer(500, { error: unexpected })
  })

  for (const path of functionPaths) app.get(`${path}/healthz`, healthHandler(deps.store, log))
  const replying = deps.launches.filter((site) => site.reply !== undefined)
  if (replying.length > 0) {
    const wordsOf = (site: LaunchSite): UnsubscribePageTexts => ({
      texts: site.reply!.config.unsubscribe,
      siteName: site.site.name,
      lang: site.site.lang,
      pageCss: site.reply!.pageCss,
    })
    // A link that is not well signed names no lead: the default launch's words, or the first launch that replies.
    const fallback = replying.find((site) => site.slug === deps.defaultLaunch) ?? replying[0]!
    const textsFor = async (submissionId: string | undefined): Promise<UnsubscribePageTexts> => {
      if (submissionId === undefined) return wordsOf(fallback)
      try {
        const lead = await deps.store.findLead(submissionId)
        const site = launches.get(lead?.launch ?? deps.defaultLaunch)?.site
        return wordsOf(site?.reply ? site : fallback)
      } catch (error) {
        log.error('unsubscribe: could not read the lead of a link', error)
        return wordsOf(fallback)
      }
    }
    const secrets = [...new Set(replying.map((site) => site.reply!.links.secret))]
    app.route('/', createUnsubscribeRoutes(functionPaths, { store: deps.store, secrets, textsFor, clock, log }))

    // Each reply links the launch's documents; their links are signed with the same secrets (delivery/document-links.ts).
    const documented = new Map(replying.filter((site) => site.documents !== undefined).map((site) => [site.slug, site]))
    if (documented.size > 0) {
      const documentLaunchOf = (site: LaunchSite): DocumentLaunch => ({
        slug: site.slug,
        siteName: site.site.name,
        lang: site.site.lang,
        pageCss: site.reply!.pageCss,
        documents: site.documents!,
      })
      const first = documented.get(deps.defaultLaunch) ?? [...documented.values()][0]!
      app.route(
        '/',
        createDocumentRoutes(functionPaths, {
          store: deps.store,
          secrets,
          launchOf: (slug) => {
            const site = documented.get(slug)
            return site && documentLaunchOf(site)
          },
          fallback: documentLaunchOf(first),
          readFile: deps.documentFiles ?? (async () => undefined),
          freshReply: async (lead, now) => {
            const site = documented.get(lead.launch)
            return (
              site &&
              composeDocumentsReply(
                lead,
                site,
                (config) => launches.get(lead.launch)?.phases?.reply(config, lead.phase) ?? config,
                now,
              )
            )
          },
          webhook: deps.webhook === true,
          overLimit: async (c) => !(await limiter.hit(rateLimitKey(clientAddressOf(c)), clock().getTime())).allowed,
          onQueued: deps.onLeadStored,
          clock,
          newId,
          log,
        }),
      )
    }
  }

  for (const path of functionPaths) {
    app.on(['POST', 'OPTIONS'], path, sameSiteOnly)
    app.use(path, corsHeaders)
    app.post(path, rateLimited, anonKeyRequired, jsonOnly, sizeLimited, register)
    app.all(path, () => {
      throw refusal(405, 'Use POST to send a registration.', { headers: { allow: allowMethods } })
    })

    const trigger = deps.outboxTrigger
    const wrongSecret = () => jsonAnswer(401, { error: 'Missing or wrong outbox secret.' })
    app.post(
      `${path}/deliver-pending`,
      bearerAuth({
        verifyToken: (token) => (trigger ? timingSafeEqual(trigger.secret, token) : false),
        noAuthenticationHeader: { message: wrongSecret },
        invalidAuthenticationHeader: { message: wrongSecret },
        invalidToken: { message: wrongSecret },
      }),
      async () => jsonAnswer(200, { ok: true, ...(await trigger!.run()) }),
    )
    app.all(`${path}/deliver-pending`, () => {
      throw refusal(405, 'Use POST.', { headers: { allow: 'POST' } })
    })

    // A page on a static host asks for this image (no script): a visit, counted as the Node server counts page views.
    app.get(`${path}/visit/:launch`, async (c) => {
      const slug = c.req.param('launch')
      const site = launches.get(slug)?.site
      if (deps.visits && site && site.countVisits !== false) {
        deps.visits.countBeacon(c.req.raw, slug, deps.clientAddress?.(c) ?? '')
        if (deps.flushVisits)
          await deps.visits.flush().catch((error: unknown) => log.error('visit: could not store the count', error))
      }
      return new Response(visitImage, {
        headers: {
          'content-type': 'image/gif',
          'cache-control': 'no-store',
          'cross-origin-resource-policy': 'cross-origin',
          'x-content-type-options': 'nosniff',
        },
      })
    })
  }
  return app
}
