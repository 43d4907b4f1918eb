import { html } from 'hono/html'
import { isRealtorLead } from '../delivery/realtor.ts'
import type { HtmlEscapedString } from 'hono/utils/html'
import { fieldsOfForms } from './leads-csv.ts'
import { displayValue, type NotificationForm } from '../delivery/notification.ts'
import type { ListedLead, NotificationState } from '../store/store.ts'
import { defaultLeadStatuses } from '../../../schema/launch.ts'
import type { PageConfig } from '../../../schema/page-config.ts'
import type { FunctionLaunch } from '../../../schema/function-launch.ts'
import { phoneDisplay, phoneE164 } from './phone-numbers.ts'

/**
 * The leads page's HTML, rendered on the server with Hono's html`` helper (every interpolated value is escaped).
 * Every page works without script; its own stylesheet (/leads/leads.css) and one small script (/leads/leads.js, which
 * sends a form marked data-apply as soon as one of its selects changes), both allowed by the site's CSP as 'self'.
 */

type Html = HtmlEscapedString | Promise<HtmlEscapedString>

/**
 * A launch as the leads page shows it: its slug, its development's name, its form (fields, labels, option names), its
 * statuses, and the names of its roster's salespeople by e-mail (lower case), for showing who has a lead.
 */
export type LeadsPageLaunch = {
  slug: string
  siteName: string
  form: NotificationForm
  statuses: readonly string[]
  people?: ReadonlyMap<string, string>
}

/** What the leads page needs of a launch's config. */
export function leadsPageLaunchOf(config: Pick<PageConfig, 'launch' | 'site' | 'form'>): LeadsPageLaunch {
  return leadsPageLaunchOfContract(config.launch.slug, {
    site: config.site,
    form: config.form,
    leadStatuses: config.launch.leadStatuses,
    roster: config.launch.roster,
  })
}

/** The same of a published launch's contract (schema/function-launch.ts), as the Node server holds it. */
export function leadsPageLaunchOfContract(
  slug: string,
  contract: Pick<FunctionLaunch, 'form' | 'leadStatuses' | 'roster'> & { site: { name: string } },
): LeadsPageLaunch {
  const people = new Map(
    (contract.roster ?? []).map((person) => [person.email.toLowerCase(), person.name.trim()] as const),
  )
  return {
    slug,
    siteName: contract.site.name,
    form: contract.form,
    statuses: contract.leadStatuses ?? defaultLeadStatuses,
    people,
  }
}

/**
 * The leads page's launches as a live set serves them now (src/server/site/live-launches.ts): read at each request,
 * worked out once per set, so a publish (a new status, a roster's names) shows at once, without a restart.
 */
export function leadsPageLaunchesOfLive(
  current: () => {
    launches: ReadonlyArray<{
      slug: string
      version?: { contract: Parameters<typeof leadsPageLaunchOfContract>[1] } | undefined
    }>
  },
): () => LeadsPageLaunch[] {
  let seen: { launches: unknown } | undefined
  let made: LeadsPageLaunch[] = []
  return () => {
    const snapshot = current()
    if (snapshot.launches !== seen?.launches) {
      made = snapshot.launches.flatMap(({ slug, version }) =>
        version ? [leadsPageLaunchOfContract(slug, version.contract)] : [],
      )
      seen = snapshot
    }
    return made
  }
}

/** What every view needs to know about the site: its launches, default first, and the team's time zone. */
export type ViewContext = { launches: LeadsPageLaunch[]; timeZone: string }

/**
 * The launches to choose from on the list: the configured ones, then any launch only the stored leads still name
 * (its config was removed), and the one chosen ('' for every launch).
 */
export type LaunchChoice = { present: LeadsPageLaunch[]; selected: string }

/** The name the pages go by: the development's, or every development's when there are several. */
export function titleOf(view: ViewContext): string {
  return new Intl.ListFormat('en-CA', { style: 'long', type: 'conjunction' }).format(
    view.launches.map((launch) => launch.siteName),
  )
}

/** A launch by slug; one no config describes any more is shown by its slug, its fields by their names. */
export function launchOf(launches: LeadsPageLaunch[], slug: string): LeadsPageLaunch {
  return (
    launches.find((launch) => launch.slug === slug) ?? {
      slug,
      siteName: slug,
      form: { schema: {} },
      statuses: defaultLeadStatuses,
    }
  )
}

/**
 * Who has a lead, as the team reads it wherever it shows (the list, the lead, its history, the choices, the CSV): an
 * assignee is stored as the e-mail the roster or an account gave (or the name typed where there is neither), shown by
 * the name a launch's roster gives that e-mail, if any. The address is for writing to them, never the words shown.
 */
export function assigneeName(view: ViewContext, value: string): string {
  if (value === '') return 'Nobody'
  const key = value.toLowerCase()
  for (const launch of view.launches) {
    const name = launch.people?.get(key)
    if (name) return name
  }
  return value
}

/** A page of the leads page: its title and body, its stylesheet and (for the forms that apply at once) its script. */
export function layout(title: string, body: Html): Html {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<title>${title}</title>
<link rel="stylesheet" href="/leads/leads.css">
<script src="/leads/leads.js" defer></script>
</head>
<body>
${body}
</body>
</html>
`
}

/**
 * How a person may sign in here: the team's password (LEADS_PASSWORD is set), and/or a studio account (the path of
 * the studio's sign-in, when the studio has accounts).
 */
export type SignInWays = { password: boolean; studio?: string | undefined }

/** The sign-in form, with a message when a try failed or the visitor just signed out. */
export function signInView(
  view: ViewContext,
  ways: SignInWays,
  notice?: { kind: 'error' | 'info'; text: string },
): Html {
  const invalid = notice?.kind === 'error'
  const title = titleOf(view)
  const studioLink = ways.studio
    ? html`<p class="lp-lead">${ways.password ? 'Have your own account? ' : ''}<a href="${ways.studio}">Sign in with your e-mail address</a>.</p>`
    : ''
  return layout(
    `Sign in · Leads · ${title}`,
    html`<header class="lp-bar"><p class="lp-brand">${title} <span>Leads</span></p></header>
<main class="lp-signin">
<div class="lp-panel">
<h1>Leads</h1>
<p class="lp-lead">Registrations for ${title}, for the sales team. ${ways.password ? "Sign in with the team's password." : 'Sign in with your account.'}</p>
${notice ? html`<p id="signin-notice" class="lp-notice lp-notice-${notice.kind}" ${invalid ? html`role="alert"` : ''}>${notice.text}</p>` : ''}
${
  ways.password
    ? html`<form method="post" action="/leads/sign-in" class="lp-stack">
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required ${invalid ? html`aria-invalid="true" aria-describedby="signin-notice"` : ''}>
<button type="submit" class="lp-button">Sign in</button>
</form>`
    : ''
}
${studioLink}
</div>
</main>`,
  )
}

/** The bar above the list and a lead: the brand, a way to the studio for its editors and owners, Sign out. */
export function bar(title: string, studio: boolean): Html {
  return html`<header class="lp-bar">
<p class="lp-brand">${title} <span>Leads</span></p>
<div class="lp-bar-actions">
${studio ? html`<a class="lp-button lp-button-quiet" href="/studio/">Studio</a>` : ''}
<form method="post" action="/leads/sign-out"><button type="submit" class="lp-button lp-button-quiet">Sign out</button></form>
</div>
</header>`
}

/** The leads page's views, the current one marked: the registrations, the dashboard and the announcements. */
export function tabs(current: 'list' | 'dashboard' | 'announcements'): Html {
  const tab = (href: string, words: string, here: boolean) =>
    html`<a href="${href}" class="lp-tab"${here ? html` aria-current="page"` : ''}>${words}</a>`
  return html`<nav class="lp-tabs" aria-label="Views">${tab('/leads', 'Registrations', current === 'list')}${tab('/leads/dashboard', 'Dashboard', current === 'dashboard')}${tab('/leads/announcements', 'Announcements', current === 'announcements')}</nav>`
}

/** A page that says one thing (a lead not there, or not this account's), with the way back to the list. */
export function noticeView(view: ViewContext, heading: string, text: string, studio: boolean): Html {
  const title = titleOf(view)
  return layout(
    `${heading} · Leads · ${title}`,
    html`${bar(title, studio)}
<main class="lp-main">
<h1>${heading}</h1>
<p>${text}</p>
<p><a href="/leads">Back to the registrations</a></p>
</main>`,
  )
}

const notificationWords: Record<NotificationState['status'], string> = {
  sent: 'Sent',
  pending: 'Waiting to send',
  retrying: 'Not sent yet',
  failed: 'Failed',
  cancelled: 'Not sent (withdrawn)',
  none: 'None',
}

function notificationText(state: NotificationState): string {
  const words = notificationWords[state.status]
  if (state.status === 'retrying' || state.status === 'failed')
    return `${words} (${state.attempts} failed ${state.attempts === 1 ? 'try' : 'tries'})`
  return words
}

export function notificationBadge(state: NotificationState): Html {
  return html`<span class="lp-badge lp-badge-${state.status}">${notificationText(state)}</span>`
}

// One format per time zone: building a DateTimeFormat costs far more than using one.
const formats = new Map<string, Intl.DateTimeFormat>()

/** A lead's time in the team's time zone, e.g. "Mar 2, 2026, 10:00 a.m.". */
export function localTime(iso: string, timeZone: string): string {
  let format = formats.get(timeZone)
  if (!format) {
    format = new Intl.DateTimeFormat('en-CA', { dateStyle: 'medium', timeStyle: 'short', timeZone })
    formats.set(timeZone, format)
  }
  // "7:41 a.m." stays on one line in a narrow card.
  return format.format(new Date(iso)).replace(/\s([ap]\.m\.)$/, '\u00a0$1')
}

type UiOptions = { 'ui:widget'?: unknown; 'ui:options'?: { inputType?: unknown } }

/** Whether a field is an e-mail address or a phone number (shown as a link of its own). */
export function linkKind(form: NotificationForm, field: string): 'email' | 'tel' | undefined {
  const schema = (form.schema.properties?.[field] ?? {}) as { format?: unknown }
  const ui = (form.uiSchema?.[field] ?? {}) as UiOptions
  if (schema.format === 'email' || ui['ui:widget'] === 'email') return 'email'
  return ui['ui:options']?.inputType === 'tel' ? 'tel' : undefined
}

/**
 * How a field's value is shown (by its launch's form): e-mail addresses and phone numbers as links a phone can act on.
 */
export function fieldValue(form: NotificationForm, field: string, value: unknown): Html {
  const text = displayValue(form, field, value)
  if (typeof value !== 'string' || value === '') return html`${text}`
  const kind = linkKind(form, field)
  if (kind === 'email') {
    // A narrow card breaks a long address before the @ rather than anywhere.
    const at = text.lastIndexOf('@')
    const shown = at > 0 ? html`${text.slice(0, at)}<wbr>${text.slice(at)}` : text
    return html`<a href="mailto:${value}">${shown}</a>`
  }
  if (kind === 'tel')
    return html`<a href="tel:${phoneE164(value) || value.replace(/[^\d+]/g, '')}">${phoneDisplay(text)}</a>`
  return html`${text}`
}

/** The forms' fields in form order, then any other field the listed leads hold (an older form's). */
export function columnsOf(forms: NotificationForm[], leads: ListedLead[]): string[] {
  // A field asked only under a condition (a realtor's brokerage) is a column only when a lead shown has it
  // (fieldsOfForms leaves it to the data): a page of buyers gets no empty realtor columns.
  const fields = fieldsOfForms(forms)
  for (const lead of leads) for (const key of Object.keys(lead.fields)) if (!fields.includes(key)) fields.push(key)
  return fields
}

/**
 * Marks a lead that withdrew its consent (CASL: the team must not contact it), and one the honeypot caught as
 * suspected spam (kept, never notified, so one caught by mistake can still be called).
 */
export function withdrawal(view: ViewContext, lead: ListedLead): Html {
  return html`${lead.suspectedSpam ? html` <span class="lp-badge lp-badge-spam">Suspected spam</span>` : ''}${
    lead.withdrawnAt
      ? html` <span class="lp-badge lp-badge-withdrawn">Unsubscribed <time datetime="${lead.withdrawnAt}">${localTime(lead.withdrawnAt, view.timeZone)}</time></span>`
      : ''
  }`
}

/**
 * A lead's consent to marketing (CASL), as the team reads it: "Express", or "Implied until 26 May 2027" (the team's
 * day).
 */
export function consentWords(lead: Pick<ListedLead, 'consentKind' | 'impliedConsentUntil'>, timeZone: string): string {
  if (lead.consentKind === 'express') return 'Express'
  let format = dayFormats.get(timeZone)
  if (!format) {
    format = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'long', year: 'numeric', timeZone })
    dayFormats.set(timeZone, format)
  }
  return `Implied until ${format.format(new Date(lead.impliedConsentUntil))}`
}
// Made once per time zone: a formatter costs far more than a formatting, and a page shows 50 leads.
const dayFormats = new Map<string, Intl.DateTimeFormat>()

/** Where a lead's follow-up stands: its status (the launch's first when never set) and who has it. */
export function followUpWords(
  launch: LeadsPageLaunch,
  lead: Pick<ListedLead, 'followUp'>,
): { status: string; assignee: string } {
  return { status: lead.followUp?.status ?? launch.statuses[0] ?? 'New', assignee: lead.followUp?.assignee || 'Nobody' }
}

/** The mark of a realtor's registration (the form's isRealtor is yes): the co-op desk's, not a buyer. */
export function realtorMark(lead: { fields: Record<string, unknown> }): Html | string {
  return isRealtorLead(lead.fields) ? html`<span class="lp-badge lp-badge-realtor">Realtor</span> ` : ''
}
