/**
 * One launch as the send-contact-email app serves it: the function's view of its config (schema/function-launch.ts)
 * plus what only the running entry knows (NOTIFY_EMAIL, the unsubscribe links' secret and address, the built home
 * page). Web-standard only: the Deno entry runs it too.
 */
import type { FunctionLaunch } from '../../../schema/function-launch.ts'
import type { ReplyConfig } from '../../../schema/reply.ts'
import type { LinkSettings } from '../delivery/unsubscribe.ts'

/** The reply to a launch's registrants, with how its unsubscribe links are signed and the pages' stylesheet. */
export type LaunchReply = { config: ReplyConfig; links: LinkSettings; pageCss?: string | undefined }

/** A launch the app serves. */
export type LaunchSite = Omit<FunctionLaunch, 'reply'> & {
  /** Absent: no reply to this launch's registrants. Never queued for an address that has withdrawn. */
  reply?: LaunchReply | undefined
  /**
   * The launch's prerendered home page (dist/<slug>/index.html). A plain form post with fields to correct is answered
   * with it, the form filled in and the messages under the fields; without it (on Supabase) such a post is redirected
   * to the launch's check-details page.
   */
  formPageHtml?: string | undefined
  /**
   * Each phase's prerendered home page, by phase (dist/<slug>/.phases/<name>/index.html): used instead of formPageHtml
   * in that phase.
   */
  phasePages?: Record<string, string> | undefined
  /** The leads page's own address (PUBLIC_URL or STUDIO_HOST): where an assignee's link points. */
  leadsUrl?: string | undefined
}

/** What the entry adds to a launch. */
export type LaunchSiteOptions = {
  /** NOTIFY_EMAIL: when set, every launch's notification goes there. */
  notifyEmail?: string | undefined
  /** How unsubscribe links are signed and where they point: without them, no reply (it must carry one). */
  links?: LinkSettings | undefined
  pageCss?: string | undefined
  formPageHtml?: string | undefined
  phasePages?: Record<string, string> | undefined
  /** The leads page's own address (PUBLIC_URL or STUDIO_HOST), for the assignee's link. */
  leadsUrl?: string | undefined
  /**
   * Whether this entry serves the worksheet page (it has the release store): without it the launch's `worksheets` is
   * dropped, so no reply links a page that is not there.
   */
  worksheets?: boolean | undefined
}

/** The app's launch for a launch of the bundle (or of a loaded config) and the entry's settings. */
export function launchSiteOf(launch: FunctionLaunch, options: LaunchSiteOptions = {}): LaunchSite {
  const { reply, worksheets, ...rest } = launch
  return {
    ...rest,
    ...(worksheets && options.worksheets ? { worksheets } : {}),
    // A version built before privacy pages (published earlier, not rebuilt since) names none: its canonical origin's.
    privacy: launch.privacy ?? { url: `${launch.origins[0]}/privacy`, label: 'Privacy' },
    notifyEmail: options.notifyEmail ?? launch.notifyEmail,
    ...(reply && options.links ? { reply: { config: reply, links: options.links, pageCss: options.pageCss } } : {}),
    ...(options.formPageHtml !== undefined ? { formPageHtml: options.formPageHtml } : {}),
    ...(options.phasePages !== undefined ? { phasePages: options.phasePages } : {}),
    ...(options.leadsUrl !== undefined ? { leadsUrl: options.leadsUrl } : {}),
  }
}
