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
 *
 * With the release store (deps.release): GET …/send-contact-email/left.json?launch=<slug> answers what is left of
 * that launch's inventory (release/left-counts.ts) to its pages on a static host, and …/worksheets?id=…&sig=… is the
 * realtors' worksheet page (release/worksheet-routes.ts).
 */
import { Hono } from 'hono'
import { contactFunctionPath } from '../../schema/function-path.ts'
import { createFunctionContext } from './function/context.ts'
import type { AppDeps } from './function/deps.ts'
import { createRegisterHandler } from './function/register.ts'
import { refusalAnswer } from './function/refusals.ts'
import { replyRoutes } from './function/reply-routes.ts'
import { mountLeftCounts, mountOutboxTrigger, mountVisitImage } from './function/service-routes.ts'
import { refusal } from './registration/refusal.ts'
import { allowMethods, createRequestGuards } from './registration/request-guards.ts'
import { registrationSettings } from './registration/settings.ts'
import { createLeftCountsAnswer } from './release/left-counts.ts'
import { healthHandler } from './site/health.ts'

export type { AppDeps, AppLog, OutboxTrigger } from './function/deps.ts'

/** The function's paths (the second is the one a Supabase function sees), for routes mounted beside it. */
export const contactFunctionPaths = [contactFunctionPath, '/send-contact-email']

/**
 * Builds the function's Hono app. Mount it with `root.route('/', app)`: it only answers the function's paths,
 * so a host app can serve everything else. The handlers are in src/server/function/, one file each.
 */
export function createApp(deps: AppDeps): Hono {
  const fn = createFunctionContext(deps)
  const guard = createRequestGuards({
    originPolicy: fn.originPolicy,
    formPostSite: fn.formPostSite,
    limiter: fn.limiter,
    clock: fn.clock,
    clientAddressOf: fn.clientAddressOf,
    anonKeys: deps.anonKeys,
    maxSize: deps.bodyLimitBytes ?? registrationSettings.MAX_BODY_BYTES.default,
  })
  const register = createRegisterHandler(fn)
  // What is left of each launch's inventory (release/left-counts.ts), when the release store is beside the leads.
  const left = deps.release && createLeftCountsAnswer({ release: deps.release, clock: () => fn.clock().getTime() })

  const app = new Hono()
  app.onError(refusalAnswer(fn))
  for (const path of contactFunctionPaths) app.get(`${path}/healthz`, healthHandler(deps.store, fn.log))
  app.route('/', replyRoutes(fn, contactFunctionPaths))
  for (const path of contactFunctionPaths) {
    app.on(['POST', 'OPTIONS'], path, guard.sameSiteOnly)
    app.use(path, guard.corsHeaders)
    app.post(path, guard.rateLimited, guard.anonKeyRequired, guard.jsonOnly, guard.sizeLimited, register)
    app.all(path, () => {
      throw refusal(405, 'Use POST to send a registration.', { headers: { allow: allowMethods } })
    })
    mountOutboxTrigger(app, path, fn)
    mountVisitImage(app, path, fn)
    if (left) mountLeftCounts(app, path, fn, left)
  }
  return app
}
