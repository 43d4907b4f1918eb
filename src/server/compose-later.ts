/**
 * A new lead's notification and reply composed when they are sent, not when the lead is stored. The Node server
 * queues each as what to send (store.ts LaterMail: which e-mail, to whom, its Message-ID), so the request that stores
 * the lead neither composes the two e-mails nor writes them into its fsync'd transaction; its delivery process
 * composes them here from the stored lead and its launch's config, just before sending. A copy sent again after a
 * crash is composed from the same lead, with the same Message-ID and the same document links (made for the time the
 * lead registered). Web-standard only.
 */
import {
  composeLeadMail,
  notificationMessageId,
  type NotificationSettings,
  type NotifiedLead,
} from './delivery/notification.ts'
import { headerSafe } from './delivery/mailer.ts'
import { composeLeadReply } from './delivery/follow-ups.ts'
import type { Composed, LaterComposer } from './delivery/outbox.ts'
import { launchPhasesOf, type LaunchPhases } from './registration/launch-phase.ts'
import type { LaunchSite } from './site/launch-site.ts'
import type { LeadStore, QueuedMail } from './store/store.ts'

/**
 * A new lead's notification as queued: composed now, or with `later` (the Node server, whose delivery process has
 * the launches) what to compose when it is sent. The Deno function composes it now: its delivery runs right after.
 */
export function notificationToQueue(lead: NotifiedLead, settings: NotificationSettings, later: boolean): QueuedMail {
  if (!later) return composeLeadMail(lead, settings)
  return {
    compose: 'notification',
    to: headerSafe(settings.recipient),
    messageId: notificationMessageId(lead.submissionId, settings.recipient),
    assignedTo: settings.assignedTo,
  }
}

/** A launch as its leads' e-mails are composed from it: its site, its notification's settings and its phases. */
export type ComposingLaunch = { site: LaunchSite; notification: NotificationSettings; phases: LaunchPhases | undefined }

/** The launch's e-mail settings, as the function (app.ts) and the delivery process both make them. */
export function composingLaunchOf(site: LaunchSite, timeZone: string): ComposingLaunch {
  return {
    site,
    notification: {
      siteName: site.site.name,
      brokerage: site.site.brokerage,
      recipient: site.notifyEmail,
      timeZone,
      form: site.form,
    },
    phases: launchPhasesOf(site.phases, site.phases?.timeZone ?? timeZone),
  }
}

/** A composer reading leads from `store` and launches from `launchOf` (undefined: not known here now). */
export function createLaterComposer(options: {
  store: Pick<LeadStore, 'leadsById'>
  launchOf(slug: string): ComposingLaunch | undefined
}): LaterComposer {
  return async (jobs) => {
    const ids = [...new Set(jobs.flatMap((job) => (job.leadId === null ? [] : [job.leadId])))]
    const leads = new Map((await options.store.leadsById(ids)).map((lead) => [lead.id, lead]))
    return Promise.all(
      jobs.map(async ({ leadId, mail }): Promise<Composed> => {
        const lead = leadId === null ? undefined : leads.get(leadId)
        if (!lead) return { cancel: 'its registration is no longer stored (erased)' }
        const launch = options.launchOf(lead.launch)
        if (!launch) return { retry: `its launch "${lead.launch}" is not one this server serves now` }
        if (mail.compose === 'notification') {
          return {
            mail: composeLeadMail(lead, { ...launch.notification, recipient: mail.to, assignedTo: mail.assignedTo }),
          }
        }
        const reply = await composeLeadReply(
          lead,
          launch.site,
          (config) => launch.phases?.reply(config, lead.phase) ?? config,
        )
        return reply ? { mail: reply } : { cancel: `launch "${lead.launch}" sends no reply now` }
      }),
    )
  }
}
