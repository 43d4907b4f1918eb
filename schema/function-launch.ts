import type { FormConfig } from './form-config.ts'
import type { PageConfig } from './page-config.ts'
import type { ReplyConfig } from './reply.ts'
import type { Phase } from './phases.ts'
import { privacyPageOf, privacyPagePath } from './privacy.ts'
import { functionDocumentsOf, type FunctionDocuments } from './documents.ts'
import { worksheetTextsOf, type WorksheetTexts } from './worksheets.ts'

/**
 * What the send-contact-email function knows of one launch: everything it needs to accept, store and answer a
 * registration for it, and nothing else of the page. The build writes one per launch into the function's bundle
 * (supabase/functions/_shared/launches.json); the Node server makes the same from the configs it loads. Pure data,
 * no Node: the Deno function reads this file too.
 */
export type FunctionLaunch = {
  /** launch.slug: stored with every lead of this launch. */
  slug: string
  site: { name: string; email: string; brokerage: string; lang: string }
  /** Who is told of each lead: launch.notifyEmail, else site.email (NOTIFY_EMAIL overrides it on the server). */
  notifyEmail: string
  /** launch.realtorEmail: who is told of a realtor's registration (the co-op desk); absent: notifyEmail. */
  realtorEmail?: string
  /** Where this launch's pages are (scheme://host[:port]): the canonical address's origin, then launch.origins. */
  origins: string[]
  /** The registration form: what the function validates with, and how the notification labels the fields. */
  form: Pick<FormConfig, 'schema' | 'uiSchema' | 'messages' | 'consent' | 'expressConsentField' | 'noScript'>
  /** The reply to registrants, when the config has one. */
  reply?: ReplyConfig
  /** launch.leadStatuses, when the config names them: the leads page's follow-up steps (defaultLeadStatuses else). */
  leadStatuses?: string[]
  /** The launch's privacy page: its full address (every reply links it) and the link's name. */
  privacy: { url: string; label: string }
  /**
   * launch.roster: the salespeople who take the buyers' registrations in turn (absent or empty: they stay unassigned).
   */
  roster?: Array<{ name: string; email: string }>
  /**
   * launch.morningSummary, on: who gets it (absent: notifyEmail), from what time (HH:MM) and in which time zone
   * (absent: the server's).
   */
  morningSummary?: { to?: string; at: string; timeZone?: string }
  /** launch.countVisits false: the server counts no visits to this launch's pages (absent: it does). */
  countVisits?: false
  /**
   * The launch's phases, when the config has them: what the function needs to know which one is in force (the names,
   * start times, launch.timeZone) and to answer in it (each phase's reply); the Node server sends each phase's
   * announcement when it starts.
   */
  phases?: FunctionPhases
  /**
   * The launch's documents (page.config.json `documents`), every text decided: what the reply links and the function
   * serves. The files themselves are read from the launch's folder (Node) or the function's copy of them (Deno).
   */
  documents?: FunctionDocuments
  /**
   * The worksheets' words (page.config.json `worksheets`, every text decided), when a phase has a worksheet window: the
   * realtor's reply then links the worksheet page.
   */
  worksheets?: { texts: WorksheetTexts }
}

/** The function's copy of page.config.json `phases` (schema/phase-schedule.ts decides with it). */
export type FunctionPhases = {
  current: string
  timeZone?: string
  list: Array<Pick<Phase, 'name' | 'starts' | 'reply' | 'announcement' | 'worksheets'>>
}

/** The function's bundle file: every launch it serves, and the one a caller that names none gets. */
export type FunctionBundle = { $comment: string; defaultLaunch: string; launches: FunctionLaunch[] }

/** The function's view of one checked page config. */
export function functionLaunchOf(config: PageConfig): FunctionLaunch {
  const origins = [
    new URL(config.seo.canonicalUrl).origin,
    ...(config.launch.origins ?? []).map((origin) => new URL(origin).origin),
  ]
  return {
    slug: config.launch.slug,
    site: {
      name: config.site.name,
      email: config.site.email,
      brokerage: config.site.brokerage,
      lang: config.site.lang,
    },
    notifyEmail: config.launch.notifyEmail ?? config.site.email,
    ...(config.launch.realtorEmail ? { realtorEmail: config.launch.realtorEmail } : {}),
    origins: [...new Set(origins)],
    form: {
      schema: config.form.schema,
      uiSchema: config.form.uiSchema,
      messages: config.form.messages,
      consent: config.form.consent,
      ...(config.form.expressConsentField ? { expressConsentField: config.form.expressConsentField } : {}),
      ...(config.form.noScript ? { noScript: config.form.noScript } : {}),
    },
    ...(config.reply ? { reply: config.reply } : {}),
    ...(config.launch.leadStatuses ? { leadStatuses: [...config.launch.leadStatuses] } : {}),
    privacy: { url: new URL(privacyPagePath, config.seo.canonicalUrl).href, label: privacyPageOf(config).linkLabel },
    ...(config.launch.roster?.length
      ? { roster: config.launch.roster.map(({ name, email }) => ({ name: name.trim(), email })) }
      : {}),
    ...(config.launch.morningSummary
      ? {
          morningSummary: {
            ...(config.launch.morningSummary.to ? { to: config.launch.morningSummary.to } : {}),
            at: config.launch.morningSummary.at ?? '07:30',
            ...(config.launch.timeZone ? { timeZone: config.launch.timeZone } : {}),
          },
        }
      : {}),
    ...(config.launch.countVisits === false ? { countVisits: false as const } : {}),
    ...(config.phases
      ? {
          phases: {
            current: config.phases.current,
            ...(config.launch.timeZone ? { timeZone: config.launch.timeZone } : {}),
            list: config.phases.list.map(({ name, starts, reply, announcement, worksheets }) => ({
              name,
              ...(starts ? { starts } : {}),
              ...(reply ? { reply } : {}),
              ...(announcement ? { announcement } : {}),
              ...(worksheets ? { worksheets } : {}),
            })),
          },
        }
      : {}),
    ...(config.documents ? { documents: functionDocumentsOf(config.documents) } : {}),
    ...(config.phases?.list.some((phase) => phase.worksheets)
      ? { worksheets: { texts: worksheetTextsOf(config.worksheets) } }
      : {}),
  }
}
