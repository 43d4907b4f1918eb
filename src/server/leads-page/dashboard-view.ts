import { html } from 'hono/html'
import type { HtmlEscapedString } from 'hono/utils/html'
import type { LeadPulse, LeadStore } from '../store/store.ts'
import { sourceWords } from '../delivery/scheduled/morning-summary.ts'
import { backlogInWords, waitedSeconds } from '../delivery/sending/backlog-words.ts'
import { barChart, dayChart, swatch, type BarRow } from './charts.ts'
import { statusesOf } from './filter-view.ts'
import { bar, launchOf, layout, tabs, titleOf, type LaunchChoice, type ViewContext } from './views.ts'

/**
 * The dashboard (GET /leads/dashboard): the pulse of the launches the viewer may see, over the last 30 days in the
 * team's time zone: today and yesterday, registrations per day (the part from an e-mail link hatched), where they
 * came from, realtors and buyers, where their follow-up stands, and the e-mail campaigns. Each chart is an SVG `img`
 * with its numbers in a table (shown for the days, visually hidden where the chart already prints every number).
 */

type Html = HtmlEscapedString | Promise<HtmlEscapedString>

const number = (n: number) => n.toLocaleString('en-CA')

/** Registrations per unique visitor, in words; none when no visit was counted. */
export function conversion(registrations: number, visitors: number): string {
  if (visitors === 0) return '—'
  const percent = (registrations / visitors) * 100
  return `${percent >= 10 || percent === 0 ? Math.round(percent) : percent.toFixed(1)}%`
}

// "Mar 2" and "Monday, March 2, 2026" for a day (YYYY-MM-DD), read at noon UTC so no zone moves it.
const shortDay = new Intl.DateTimeFormat('en-CA', { month: 'short', day: 'numeric', timeZone: 'UTC' })
const weekday = new Intl.DateTimeFormat('en-CA', { weekday: 'short', timeZone: 'UTC' })
const dayFormats = new Map<string, Intl.DateTimeFormat>()
const atNoon = (day: string) => new Date(`${day}T12:00:00Z`)

function tile(heading: string, registrations: number, visitors: number, counted = registrations): Html {
  return html`<div class="lp-tile">
<h2 class="lp-tile-heading">${heading}</h2>
<p class="lp-tile-number">${number(registrations)} <span>registration${registrations === 1 ? '' : 's'}</span></p>
<p class="lp-tile-more">${visitors > 0 ? `${number(visitors)} visitor${visitors === 1 ? '' : 's'} · ${conversion(counted, visitors)} registered` : 'No visits counted'}</p>
</div>`
}

/** A table of a chart's numbers: visible, or for screen readers only where the chart prints them all. */
function numbers(caption: string, heads: string[], rows: Array<Array<string | number | Html>>, hidden: boolean): Html {
  // A wide table scrolls sideways on a phone: the region can take the keyboard's focus to scroll it.
  return html`<div ${hidden ? html`class="lp-visually-hidden"` : html`class="lp-numbers" role="region" aria-label="${caption}" tabindex="0"`}>
<table class="lp-numbers-table">
<caption>${caption}</caption>
<thead><tr>${heads.map((h) => html`<th scope="col">${h}</th>`)}</tr></thead>
<tbody>${rows.map(([first, ...rest]) => html`<tr><th scope="row">${first}</th>${rest.map((cell) => html`<td>${typeof cell === 'number' ? number(cell) : cell}</td>`)}</tr>`)}</tbody>
</table>
</div>`
}

/** The statuses in the launches' order (the first also counting leads never given one), then any other still held. */
function funnel(pulse: LeadPulse, choice: LaunchChoice): BarRow[] {
  const order = statusesOf(choice)
  const counts = new Map<string, number>()
  for (const row of pulse.statuses) {
    const status = row.status ?? order[0] ?? 'New'
    counts.set(status, (counts.get(status) ?? 0) + row.registrations)
  }
  const names = [...order, ...[...counts.keys()].filter((s) => !order.includes(s))]
  return names.map((label) => ({ label, value: counts.get(label) ?? 0 }))
}

/** The launch the dashboard shows, chosen here when there are several (kept in the session, applied at once). */
function launchForm(choice: LaunchChoice): Html | string {
  if (choice.present.length <= 1) return ''
  return html`<form method="post" action="/leads/dashboard" class="lp-search lp-dashboard-launch" data-apply>
<label for="dashboard-launch">Launch</label>
<div class="lp-search-row">
<select id="dashboard-launch" name="launch">
<option value="">All launches</option>
${choice.present.map((l) => html`<option value="${l.slug}"${l.slug === choice.selected ? html` selected` : ''}>${l.siteName}</option>`)}
</select>
<button type="submit" class="lp-button lp-button-quiet">Show</button>
</div>
</form>`
}

/** The window's sums: registrations, visitors, the registrations of days with counted visits, those from e-mail. */
function totalsOf(days: LeadPulse['days']) {
  const sum = (of: (d: LeadPulse['days'][number]) => number) => days.reduce((total, d) => total + of(d), 0)
  return {
    total: sum((d) => d.registrations),
    visitors: sum((d) => d.visitors),
    // Visits are counted only where this server serves the page, and only since it counts them: the window's
    // conversion sets the registrations of the days with counted visits against those visits.
    counted: sum((d) => (d.visitors > 0 ? d.registrations : 0)),
    fromEmail: sum((d) => d.fromEmail),
  }
}

/** Today, yesterday and the whole window, each with its visitors and conversion. */
function tiles(days: LeadPulse['days']): Html {
  const today = days.at(-1)
  const yesterday = days.at(-2)
  const { total, visitors, counted } = totalsOf(days)
  return html`<div class="lp-tiles">
${today ? tile('Today', today.registrations, today.visitors) : ''}
${yesterday ? tile('Yesterday', yesterday.registrations, yesterday.visitors) : ''}
${tile(`Last ${days.length} days`, total, visitors, counted)}
</div>`
}

/** Registrations per day, the part from an e-mail link hatched. */
function perDaySection(days: LeadPulse['days']): Html {
  const first = days[0]
  const last = days.at(-1)
  const title = `Registrations per day for the last ${days.length} days, ${first ? shortDay.format(atNoon(first.day)) : ''} to ${last ? shortDay.format(atNoon(last.day)) : ''}: ${number(totalsOf(days).total)} in all`
  const bars = days.map((d) => ({
    label: shortDay.format(atNoon(d.day)),
    value: d.registrations,
    hatched: d.fromEmail,
  }))
  return html`<section class="lp-section" aria-labelledby="per-day-heading">
<h2 id="per-day-heading">Registrations per day</h2>
<figure class="lp-figure">
${dayChart('per-day', title, bars)}
<figcaption><ul class="lp-legend"><li>${swatch('per-day', false)} Registrations</li><li>${swatch('per-day', true)} From a link in an e-mail</li></ul>
<p class="lp-note">Each day's numbers are in the table <a href="#day-by-day-heading">Day by day</a>, at the end.</p></figcaption>
</figure>
</section>`
}

/** Where the registrations came from, by source, with each source's visitors. */
function sourcesSection(pulse: LeadPulse): Html {
  const days = pulse.days.length
  if (pulse.sources.length === 0)
    return html`<section class="lp-section" aria-labelledby="sources-heading">
<h2 id="sources-heading">Where they came from</h2>
<p>No registrations or visits in these ${days} days.</p>
</section>`
  const sources = pulse.sources.map((s) => ({
    label: sourceWords(s.source),
    value: s.registrations,
    detail:
      s.visitors > 0
        ? `${number(s.visitors)} visitors, ${conversion(s.registrations, s.visitors)} registered`
        : undefined,
  }))
  const rows = pulse.sources.map((s) => [
    sourceWords(s.source),
    s.registrations,
    s.visitors,
    conversion(s.registrations, s.visitors),
  ])
  return html`<section class="lp-section" aria-labelledby="sources-heading">
<h2 id="sources-heading">Where they came from</h2>
${barChart('sources', `Registrations by source, last ${days} days`, sources)}
${numbers('Registrations by source', ['Source', 'Registrations', 'Visitors', 'Conversion'], rows, true)}
<p class="lp-note">A source is the campaign's utm_source, else the ad network of a click, else the site that linked here; Direct when there was none.</p>
</section>`
}

/** Realtors and buyers, and where the follow-up stands. */
function kindsAndStatusSections(pulse: LeadPulse, choice: LaunchChoice): Html {
  const days = pulse.days.length
  const statuses = funnel(pulse, choice)
  const kinds = [
    { label: 'Buyers', value: pulse.buyers },
    { label: 'Realtors', value: pulse.realtors },
  ]
  return html`<section class="lp-section" aria-labelledby="kinds-heading">
<h2 id="kinds-heading">Realtors and buyers</h2>
${barChart('kinds', `Realtors and buyers, last ${days} days`, kinds)}
${numbers(
  'Realtors and buyers',
  ['Who', 'Registrations'],
  kinds.map((k) => [k.label, k.value]),
  true,
)}
</section>

<section class="lp-section" aria-labelledby="status-heading">
<h2 id="status-heading">Follow-up</h2>
${barChart('status', `Registrations of the last ${days} days by status`, statuses)}
${numbers(
  'Registrations by status',
  ['Status', 'Registrations'],
  statuses.map((s) => [s.label, s.value]),
  true,
)}
</section>`
}

/** The registrations that came from a link in an e-mail, by campaign. */
function emailSection(pulse: LeadPulse, timeZone: string): Html {
  const days = pulse.days.length
  const { total, fromEmail } = totalsOf(pulse.days)
  const rows = pulse.emailCampaigns.map((c) => [
    c.campaign || '(no campaign name)',
    c.registrations,
    localDay(c.first, timeZone),
    localDay(c.last, timeZone),
  ])
  return html`<section class="lp-section" aria-labelledby="email-heading">
<h2 id="email-heading">E-mail blast</h2>
${
  pulse.emailCampaigns.length === 0
    ? html`<p>No registration came from a link in an e-mail in these ${days} days (a link tagged utm_medium=email).</p>`
    : html`<p>${number(fromEmail)} of ${number(total)} registrations came from a link in an e-mail; their days are hatched in the chart above.</p>
${numbers('Registrations from e-mail links, by campaign', ['Campaign', 'Registrations', 'First', 'Last'], rows, false)}`
}
</section>`
}

/** Every day's numbers, newest first. */
function dayByDaySection(days: LeadPulse['days']): Html {
  const rows = [...days]
    .reverse()
    .map((d) => [
      html`<span class="lp-weekday">${weekday.format(atNoon(d.day))}, </span>${shortDay.format(atNoon(d.day))}`,
      d.registrations,
      d.fromEmail,
      d.visitors,
      conversion(d.registrations, d.visitors),
    ])
  return html`<section class="lp-section" aria-labelledby="day-by-day-heading">
<h2 id="day-by-day-heading">Day by day</h2>
${numbers('Registrations per day', ['Day', 'Registered', 'From e-mail', 'Visitors', 'Rate'], rows, false)}
<p class="lp-note">Rate: registrations per unique visitor that day.</p>
</section>`
}

/**
 * The dashboard's word on the e-mail (the team's notifications, the replies, announcements): how many messages wait
 * to be sent and how long the oldest has waited, and how many could not be sent. The whole server's outbox, counts
 * only: no launch, no person.
 */
export type DeliveryHealth = { pending: number; oldestSeconds: number; failed: number }

// Beyond this the mail is behind: the page says so, and who can do something about it.
const behindSeconds = 10 * 60

/** Reads the outbox's counts for the dashboard. */
export async function readDeliveryHealth(
  store: Pick<LeadStore, 'countBacklog' | 'countMessages'>,
  now: Date,
): Promise<DeliveryHealth> {
  const [backlog, counts] = await Promise.all([store.countBacklog(), store.countMessages()])
  return { pending: backlog.pending, oldestSeconds: waitedSeconds(backlog, now), failed: counts.failed }
}

/** The dashboard's "E-mail" section: a notice when mail is behind or failed, a plain line otherwise. */
export function deliveryHealthSection(health: DeliveryHealth): Html {
  const behind = health.pending > 0 && health.oldestSeconds >= behindSeconds
  const waiting = backlogInWords(health.pending, health.oldestSeconds)
  const failed =
    health.failed === 0
      ? ''
      : `${health.failed.toLocaleString('en-CA')} ${health.failed === 1 ? 'message' : 'messages'} could not be sent and ${health.failed === 1 ? 'waits' : 'wait'} for someone to look at ${health.failed === 1 ? 'it' : 'them'}: a lead's page says which of its e-mails failed.`
  const advice = behind
    ? 'That is longer than usual: the e-mail is falling behind. Tell whoever looks after the server.'
    : health.pending > 0
      ? 'E-mail usually goes within a minute of a registration.'
      : 'Every e-mail has gone out.'
  const notice = behind || health.failed > 0
  return html`<section class="lp-section" aria-labelledby="mail-heading">
<h2 id="mail-heading">E-mail</h2>
<p id="mail-health" class="${notice ? 'lp-notice lp-notice-error' : 'lp-note'}">${waiting} ${advice}${failed ? html` ${failed}` : ''}</p>
</section>`
}

/**
 * The dashboard's page. `today` and `yesterday` are the last two of the pulse's days; `mail`, how the server's e-mail
 * stands (readDeliveryHealth).
 */
export function dashboardView(
  view: ViewContext,
  pulse: LeadPulse,
  choice: LaunchChoice,
  studio: boolean,
  mail: DeliveryHealth,
): Html {
  const title = titleOf(view)
  const selected = choice.selected ? launchOf(choice.present, choice.selected) : undefined
  const scope = selected
    ? selected.siteName
    : choice.present.length === 1
      ? choice.present[0]!.siteName
      : 'all your launches'
  return layout(
    `Dashboard · Leads · ${title}`,
    html`${bar(title, studio)}
<main class="lp-main lp-dashboard">
${tabs('dashboard')}
<h1>Dashboard</h1>
${launchForm(choice)}
<p class="lp-summary">For ${scope}, by day in the team's time zone (${view.timeZone.replace(/_/g, ' ')}). Suspected spam is left out; visitors are counted without cookies when this server serves the page.</p>
${tiles(pulse.days)}

${deliveryHealthSection(mail)}

${perDaySection(pulse.days)}

${sourcesSection(pulse)}

${kindsAndStatusSections(pulse, choice)}

${emailSection(pulse, view.timeZone)}

${dayByDaySection(pulse.days)}
</main>`,
  )
}

/** The day of an instant in the team's time zone, e.g. "Mar 2". */
function localDay(iso: string, timeZone: string): string {
  let format = dayFormats.get(timeZone)
  if (!format)
    dayFormats.set(timeZone, (format = new Intl.DateTimeFormat('en-CA', { month: 'short', day: 'numeric', timeZone })))
  return format.format(new Date(iso))
}
