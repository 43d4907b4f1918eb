import { html } from 'hono/html'
import type { HtmlEscapedString } from 'hono/utils/html'
import type { LeadsFilter } from './sessions.ts'

/** The launches to choose from and the one chosen ('' for all): views.ts's LaunchChoice, as the filters read it. */
type LaunchChoice = {
  present: Array<{ slug: string; siteName: string; statuses: readonly string[] }>
  selected: string
}

/**
 * The list's filters (launch; Status, Assigned to, Realtor, From, To, folded on a phone): plain form fields sent with
 * the search (a POST
 * kept in the session, never in the URL). With script, a change of a select sends the form at once (leads.js).
 */

type Html = HtmlEscapedString | Promise<HtmlEscapedString>

/** A person the list may be filtered by: the value sent, and the words shown. */
export type AssigneeChoice = { value: string; label: string }

/** The Assigned to filter's value for leads no one has. */
export const unassignedFilter = '(unassigned)'

/** Whether any filter or search narrows the list (the launch aside). */
export function isNarrowed(filter: LeadsFilter): boolean {
  return (
    filter.text !== '' ||
    filter.status !== '' ||
    filter.assignee !== '' ||
    filter.realtor !== '' ||
    filter.from !== '' ||
    filter.to !== ''
  )
}

/** The statuses of the launches in view, in their order, each once. */
export function statusesOf(choice: LaunchChoice): string[] {
  const launches = choice.selected ? choice.present.filter((launch) => launch.slug === choice.selected) : choice.present
  return [...new Set(launches.flatMap((launch) => launch.statuses))]
}

function option(value: string, label: string, chosen: string): Html {
  // The first option (any) needs no mark: a select without one shows its first.
  return html`<option value="${value}"${value !== '' && value === chosen ? html` selected` : ''}>${label}</option>`
}

function select(id: string, name: string, label: string, options: Array<[string, string]>, chosen: string): Html {
  return html`<div class="lp-filter">
<label for="${id}">${label}</label>
<select id="${id}" name="${name}">
${options.map(([value, words]) => option(value, words, chosen))}
</select>
</div>`
}

/** The launch to show, when there are several: it stays in view on a phone, above the folded filters. */
export function launchFilter(choice: LaunchChoice): Html | string {
  if (choice.present.length <= 1) return ''
  const launches = choice.present.map((l): [string, string] => [l.slug, l.siteName])
  return html`<div class="lp-search-launch">${select('search-launch', 'launch', 'Launch', [['', 'All launches'], ...launches], choice.selected)}</div>`
}

/** How many of the folded filters narrow the list now (the launch and the search aside). */
function activeFilters(filter: LeadsFilter): number {
  return [filter.status, filter.assignee, filter.realtor, filter.from, filter.to].filter((value) => value !== '').length
}

/**
 * The filters of the list's search form (Status, Assigned to, Realtor, From, To). On a phone they fold under a
 * Filters control (a native details element: it opens without script), open while one of them narrows the list; on a
 * wide screen the stylesheet shows them all and hides the control.
 */
export function filterFields(choice: LaunchChoice, filter: LeadsFilter, assignees: AssigneeChoice[]): Html {
  const statuses = statusesOf(choice)
  const people = [...assignees]
  if (filter.assignee && filter.assignee !== unassignedFilter && !people.some((p) => p.value === filter.assignee))
    people.push({ value: filter.assignee, label: filter.assignee })
  const active = activeFilters(filter)
  return html`<details class="lp-fold"${active > 0 ? html` open` : ''}>
<summary class="lp-fold-summary">Filters${active > 0 ? html` <span class="lp-fold-count">(${active} on)</span>` : ''}</summary>
<div class="lp-filters">
${select('filter-status', 'status', 'Status', [['', 'Any status'], ...statuses.map((s): [string, string] => [s, s])], filter.status)}
${select('filter-assignee', 'assignee', 'Assigned to', [['', 'Anyone'], [unassignedFilter, 'Nobody'], ...people.map((p): [string, string] => [p.value, p.label])], filter.assignee)}
${select(
  'filter-realtor',
  'realtor',
  'Realtor',
  [
    ['', 'Realtors and buyers'],
    ['yes', 'Realtors only'],
    ['no', 'Buyers only'],
  ],
  filter.realtor,
)}
<div class="lp-filter">
<label for="filter-from">From</label>
<input id="filter-from" name="from" type="date" value="${filter.from}">
</div>
<div class="lp-filter">
<label for="filter-to">To</label>
<input id="filter-to" name="to" type="date" value="${filter.to}">
</div>
</div>
</details>`
}
