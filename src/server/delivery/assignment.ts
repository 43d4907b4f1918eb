/**
 * Leads reach a person at once (issue 25): who a new lead is assigned to, and the mail that tells them. A buyer's lead
 * goes to the next salesperson of the launch's roster (page.config.json launch.roster), in turn; a realtor's to the
 * co-op
 * desk (launch.realtorEmail). The turn is taken by the store, in the transaction that stores the lead
 * (store/follow-up.ts:
 * NewAssignment), so each candidate's mail is composed here and the store keeps the chosen one. Without anyone to
 * assign
 * it to, the lead stays unassigned and the notification says so. Web-standard only: the Deno function runs it too.
 */
import { leadIdMark, type NewAssignment } from '../store/follow-up.ts'
import type { NewLead, OutgoingMail } from '../store/store.ts'
import { escapeHtml } from './escape-html.ts'
import { headerSafe, messageDomain } from './mailer.ts'
import { defangForMail, teamMailHtml, teamMailSender } from './notification.ts'
import { isRealtorLead } from './realtor.ts'

/** A salesperson of a launch's roster. */
export type RosterPerson = { name: string; email: string }

/** The launch as the assignment reads it (site/launch-site.ts's LaunchSite fits). */
export type AssigningLaunch = {
  slug: string
  site: { name: string; brokerage: string }
  /** Where the launch's pages are: the first is where its leads page (/leads) is linked when leadsUrl is not given. */
  origins: string[]
  /** The leads page's own address (PUBLIC_URL or the studio's host): a launch's pages may be on a static host. */
  leadsUrl?: string | undefined
  roster?: RosterPerson[] | undefined
  realtorEmail?: string | undefined
}

/** Who a new lead goes to: the store's assignment (none: it stays unassigned), and what the notification says of it. */
export type LeadAssignment = { assignment: NewAssignment | undefined; assignedTo: string }

/** How an assignee is kept (the leads page's "Assigned to"): the e-mail, lower case, as studio accounts are. */
export const assigneeOf = (email: string) => email.trim().toLowerCase()

/** The history's author of an automatic assignment. */
export const rosterAuthor = 'Roster (in turn)'
export const coopDeskAuthor = 'Co-op desk (realtor)'

/** Who `lead` of `launch` is assigned to (times in `timeZone` in the mail). */
export function assignLead(lead: NewLead, launch: AssigningLaunch, timeZone: string): LeadAssignment {
  if (isRealtorLead(lead.fields)) {
    if (!launch.realtorEmail) {
      return {
        assignment: undefined,
        assignedTo:
          "No one: a realtor's registration goes to the co-op desk, and this launch names none (launch.realtorEmail in page.config.json). Assign it on the leads page.",
      }
    }
    // The co-op desk is told by the notification itself (realtor.ts: notificationRecipient): no second e-mail.
    return {
      assignment: { turns: null, author: coopDeskAuthor, candidates: [{ assignee: assigneeOf(launch.realtorEmail) }] },
      assignedTo: `The co-op desk (${launch.realtorEmail}), which this notification is sent to`,
    }
  }
  const roster = launch.roster ?? []
  if (roster.length === 0) {
    return {
      assignment: undefined,
      assignedTo:
        'No one: this launch has no roster of salespeople (launch.roster in page.config.json). Assign it on the leads page.',
    }
  }
  return {
    assignment: {
      turns: launch.slug,
      author: rosterAuthor,
      candidates: roster.map((person) => ({
        assignee: assigneeOf(person.email),
        mail: composeAssignmentMail(lead, launch, person, timeZone),
      })),
    },
    assignedTo: `The next salesperson of the roster in turn (${roster.map((person) => person.name).join(', ')}), told by e-mail`,
  }
}

// A DateTimeFormat costs far more to build than to use, and each registration tells one mail per roster member.
const timeFormats = new Map<string, Intl.DateTimeFormat>()

function receivedTime(iso: string, timeZone: string): string {
  let format = timeFormats.get(timeZone)
  if (!format)
    timeFormats.set(
      timeZone,
      (format = new Intl.DateTimeFormat('en-CA', { dateStyle: 'full', timeStyle: 'short', timeZone })),
    )
  return format.format(new Date(iso))
}

/**
 * The mail that tells `person` a lead is theirs: who registered (name and phone, defanged: nothing the visitor typed
 * reads as a link), when, and one link, to the lead on the leads page (its number, never anything personal, in the
 * address; the store puts the number in place of leadIdMark). The brokerage's registered name at its foot.
 */
export function composeAssignmentMail(
  lead: NewLead,
  launch: AssigningLaunch,
  person: RosterPerson,
  timeZone: string,
): OutgoingMail {
  const link = `${launch.leadsUrl ?? launch.origins[0] ?? ''}/leads/lead/${leadIdMark}`
  const realtor = isRealtorLead(lead.fields)
  const value = (field: string) =>
    typeof lead.fields[field] === 'string' && lead.fields[field].trim()
      ? defangForMail(lead.fields[field].trim())
      : undefined
  const rows: Array<[string, string]> = [
    ...(value('name') ? ([['Name', value('name')!]] as Array<[string, string]>) : []),
    ...(value('phone') ? ([['Phone', value('phone')!]] as Array<[string, string]>) : []),
    ['Received', receivedTime(lead.createdAt, timeZone)],
  ]
  const greeting = `Hello ${person.name},`
  const what = realtor
    ? `A realtor registered for ${launch.site.name}: the registration is the co-op desk's to follow up.`
    : `A new buyer registered for ${launch.site.name}, and it is yours to follow up: you are next in turn.`
  const open = 'Open it on the leads page to call them, set its status or add a note:'
  const sender = teamMailSender(launch.site.name, launch.site.brokerage)
  const text = [
    greeting,
    '',
    what,
    '',
    ...rows.map(([k, v]) => `${k}: ${v}`),
    '',
    open,
    link,
    '',
    '--',
    sender,
    '',
  ].join('\n')
  const html = teamMailHtml(
    [
      `<p>${escapeHtml(greeting)}</p>`,
      `<p>${escapeHtml(what)}</p>`,
      `<table role="presentation" cellspacing="0" cellpadding="0">${rows
        .map(
          ([k, v]) =>
            `<tr><th align="left" valign="top" style="padding:4px 12px 4px 0">${escapeHtml(k)}</th><td style="padding:4px 0">${escapeHtml(v)}</td></tr>`,
        )
        .join('')}</table>`,
      `<p>${escapeHtml(open)}<br><a href="${escapeHtml(link)}">Open the registration on the leads page</a></p>`,
    ],
    sender,
  )
  const domain = messageDomain(person.email)
  return {
    to: headerSafe(person.email),
    subject: headerSafe(`${realtor ? 'A realtor' : 'A new buyer'} for you: ${launch.site.name}`).slice(0, 200),
    text,
    html,
    messageId: `<${lead.submissionId}.assignment@${domain}>`,
    idempotencyKey: `${lead.submissionId}.assignment`,
  }
}
