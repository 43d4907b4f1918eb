import { html } from 'hono/html'
import type { HtmlEscapedString } from 'hono/utils/html'
import { phaseWords } from '../../../schema/phase-schedule.ts'
import { isRealtorLead } from '../delivery/realtor.ts'
import { displayValue, fieldLabel, orderedFields, type NotificationForm } from '../delivery/notification.ts'
import type { LeadSearchPage, ListedLead } from '../store/store.ts'
import { filterFields, isNarrowed, launchFilter, type AssigneeChoice } from './filter-view.ts'
import type { LeadsFilter } from './sessions.ts'
import {
  assigneeName,
  bar,
  columnsOf,
  consentWords,
  fieldValue,
  followUpWords,
  launchOf,
  layout,
  linkKind,
  localTime,
  notificationBadge,
  realtorMark,
  tabs,
  titleOf,
  withdrawal,
  type LaunchChoice,
  type LeadsPageLaunch,
  type ViewContext,
} from './views.ts'

/**
 * The list (GET /leads, routes/list.ts): the search and its filters, the downloads, the leads as cards (phones) and as
 * a table (wide screens), paging.
 */

type Html = HtmlEscapedString | Promise<HtmlEscapedString>

/** What the list shows besides the leads: the people one may filter by, and how often each lead's person registered. */
export type ListExtras = { assignees: AssigneeChoice[]; repeats: ReadonlyMap<number, number> }

/** The paging links of a list page: opaque positions, never personal data. */
export type Paging = { newer?: string; older?: string; newest: boolean }

/** A column's heading: the label of the first of these forms that has the field. */
function columnLabel(forms: NotificationForm[], field: string): string {
  const form = forms.find((f) => orderedFields(f).includes(field))
  return form ? fieldLabel(form, field) : field
}

function utmSource(lead: ListedLead): string {
  return lead.utm.utm_source ?? '—'
}

/** The mark of a person who registered more than once (here or for another launch). */
function repeatMark(others: number | undefined): Html | string {
  if (!others) return ''
  return html` <span class="lp-badge lp-badge-repeat">Repeat: ${others} other registration${others === 1 ? '' : 's'}</span>`
}

/** A lead as a card: its own launch's fields, labels and option names. */
function card(view: ViewContext, showLaunch: boolean, lead: ListedLead, others: number | undefined): Html {
  const launch = launchOf(view.launches, lead.launch)
  const [first, ...rest] = columnsOf([launch.form], [lead])
  const title = first === undefined ? `Registration ${lead.id}` : displayValue(launch.form, first, lead.fields[first])
  const follow = followUpWords(launch, lead)
  return html`<li class="lp-card">
<h2 class="lp-card-title"><a href="/leads/lead/${lead.id}">${title}</a></h2>
${lead.withdrawnAt || lead.suspectedSpam || others || isRealtorLead(lead.fields) ? html`<p class="lp-card-note">${realtorMark(lead)}${withdrawal(view, lead)}${lead.withdrawnAt ? ' Do not contact.' : ''}${repeatMark(others)}</p>` : ''}
<dl class="lp-pairs">
<div><dt>Received</dt><dd><time datetime="${lead.createdAt}">${localTime(lead.createdAt, view.timeZone)}</time></dd></div>
<div><dt>Status</dt><dd>${follow.status}</dd></div>
<div><dt>Assigned to</dt><dd>${assigneeName(view, lead.followUp?.assignee ?? '')}</dd></div>
${showLaunch ? html`<div><dt>Launch</dt><dd>${launch.siteName}</dd></div>` : ''}
${lead.phase ? html`<div><dt>Phase</dt><dd>${phaseWords(lead.phase)}</dd></div>` : ''}
${rest.map((field) => html`<div><dt>${fieldLabel(launch.form, field)}</dt><dd>${fieldValue(launch.form, field, lead.fields[field])}</dd></div>`)}
<div><dt>Consent</dt><dd>${consentWords(lead, view.timeZone)}</dd></div>
<div><dt>UTM source</dt><dd>${utmSource(lead)}</dd></div>
<div><dt>Notification</dt><dd>${notificationBadge(lead.notification)}</dd></div>
</dl>
</li>`
}

/** A lead as a table row: the shared columns, each value shown by the lead's own launch's form. */
function row(
  view: ViewContext,
  fields: string[],
  showLaunch: boolean,
  showPhase: boolean,
  lead: ListedLead,
  others: number | undefined,
): Html {
  const launch = launchOf(view.launches, lead.launch)
  const follow = followUpWords(launch, lead)
  return html`<tr>
<td class="lp-nowrap"><a href="/leads/lead/${lead.id}"><time datetime="${lead.createdAt}">${localTime(lead.createdAt, view.timeZone)}</time></a></td>
${showLaunch ? html`<td>${launch.siteName}</td>` : ''}
${showPhase ? html`<td>${lead.phase ? phaseWords(lead.phase) : '—'}</td>` : ''}
${fields.map((field, i) => html`<td>${i === 0 && !linkKind(launch.form, field) && lead.fields[field] !== undefined ? html`<a href="/leads/lead/${lead.id}">${displayValue(launch.form, field, lead.fields[field])}</a>` : fieldValue(launch.form, field, lead.fields[field])}${i === 0 ? html`${withdrawal(view, lead)}${repeatMark(others)}` : ''}</td>`)}
<td>${follow.status}</td>
<td>${assigneeName(view, lead.followUp?.assignee ?? '')}</td>
<td>${consentWords(lead, view.timeZone)}</td>
<td>${utmSource(lead)}</td>
<td>${notificationBadge(lead.notification)}</td>
</tr>`
}

function summary(page: LeadSearchPage, text: string, launch: LeadsPageLaunch | undefined): Html {
  const total = page.total.toLocaleString('en-CA')
  const noun = page.total === 1 ? 'registration' : 'registrations'
  const of = launch ? html` for ${launch.siteName}` : ''
  if (text) return html`<strong>${total}</strong> ${noun}${of} ${page.total === 1 ? 'matches' : 'match'} “${text}”.`
  return launch ? html`<strong>${total}</strong> ${noun}${of}.` : html`<strong>${total}</strong> ${noun} in all.`
}

/**
 * The list: search (with the launch filter when there are several launches), download, the leads as cards (phones)
 * and as a table (wide screens), paging. Every launch's leads show its own form's labels; a launch column and line
 * appear when there is more than one launch.
 */
export function listView(
  view: ViewContext,
  page: LeadSearchPage,
  filter: LeadsFilter,
  choice: LaunchChoice,
  paging: Paging,
  studio: boolean,
  extras: ListExtras,
): Html {
  const { text } = filter
  const showLaunch = choice.present.length > 1
  // The phase each lead registered in, as a column once any lead on the page has one (a launch with phases).
  const showPhase = page.leads.some((lead) => lead.phase)
  const selected = choice.selected ? launchOf(choice.present, choice.selected) : undefined
  const forms = (selected ? [selected] : choice.present).map((launch) => launch.form)
  const fields = columnsOf(forms, page.leads)
  const shown = page.leads.length
  const narrowed = isNarrowed(filter) || selected !== undefined
  const title = titleOf(view)
  return layout(
    `Leads · ${title}`,
    html`${bar(title, studio)}
<main class="lp-main">
${tabs('list')}
<h1>Registrations</h1>
<form method="post" action="/leads/search" class="lp-search" role="search" aria-label="Registrations" data-apply>
${launchFilter(choice)}
${filterFields(choice, filter, extras.assignees)}
<label for="search-text">Find by name, e-mail or phone</label>
<div class="lp-search-row">
<input id="search-text" name="text" type="search" value="${text}" autocomplete="off" spellcheck="false">
<button type="submit" class="lp-button">Search</button>
${narrowed ? html`<button type="submit" name="clear" value="1" class="lp-button lp-button-quiet">Show all</button>` : ''}
</div>
</form>
<div class="lp-toolbar">
<p class="lp-summary">${summary(page, text, selected)}${shown > 0 && shown < page.total ? html` Showing ${shown}, newest first.` : ''}</p>
${
  page.total > 0
    ? html`<div class="lp-downloads"><a class="lp-button lp-button-quiet" href="/leads/people.csv" download>Download ${narrowed ? 'these' : 'all'} as CSV</a>
<a class="lp-button lp-button-quiet" href="/leads/leads.csv" download>All columns (CSV)</a></div>`
    : ''
}
</div>
${
  shown === 0
    ? html`<p class="lp-empty">${
        text
          ? 'Nothing matches that search. Check the spelling, or search for part of a name, e-mail or phone number.'
          : narrowed && !selected
            ? 'No registration matches these filters. Choose Show all to see every registration.'
            : selected
              ? `No registrations for ${selected.siteName} yet.`
              : 'No registrations yet.'
      }</p>`
    : html`<ol class="lp-cards">
${page.leads.map((lead) => card(view, showLaunch, lead, extras.repeats.get(lead.id)))}
</ol>
<div class="lp-table-wrap" role="region" aria-label="Registrations table" tabindex="0">
<table class="lp-table">
<caption class="lp-visually-hidden">Registrations, newest first</caption>
<thead><tr><th scope="col">Received</th>${showLaunch ? html`<th scope="col">Launch</th>` : ''}${showPhase ? html`<th scope="col">Phase</th>` : ''}${fields.map((f) => html`<th scope="col">${columnLabel(forms, f)}</th>`)}<th scope="col">Status</th><th scope="col">Assigned to</th><th scope="col">Consent</th><th scope="col">UTM source</th><th scope="col">Notification</th></tr></thead>
<tbody>
${page.leads.map((lead) => row(view, fields, showLaunch, showPhase, lead, extras.repeats.get(lead.id)))}
</tbody>
</table>
</div>`
}
${
  paging.newer || paging.older || !paging.newest
    ? html`<nav class="lp-paging" aria-label="Pages">
${paging.newest ? '' : html`<a href="/leads">Newest</a>`}
${paging.newer ? html`<a href="/leads?newer=${paging.newer}" rel="prev">Newer</a>` : ''}
${paging.older ? html`<a href="/leads?older=${paging.older}" rel="next">Older</a>` : ''}
</nav>`
    : ''
}
</main>`,
  )
}
