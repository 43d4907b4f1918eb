import { dayStart, nextDay } from '../store/days.ts'
import type { LeadSearch, LeadStore, ListedLead } from '../store/store.ts'
import { unassignedFilter, type AssigneeChoice } from './filter-view.ts'
import { searchedPhone } from './phone-numbers.ts'
import type { LeadsFilter } from './sessions.ts'
import { mayView, type StudioSignIn, type Viewer } from './viewers.ts'
import { assigneeName, launchOf, type LaunchChoice, type ViewContext } from './views.ts'

/**
 * What the list, the dashboard and the downloads search: the launches a viewer may choose from, the filter kept in
 * their session read as a store search, and the words the audit log gives a search (never its text).
 */

/** What a search needs of the leads page. */
export type SearchDeps = {
  store: Pick<LeadStore, 'countLeadsByLaunch' | 'searchLeads' | 'listAssignees'>
  view: ViewContext
  studio?: StudioSignIn | undefined
}

/**
 * The launches to choose from (the configured ones, then any only the stored leads still name) and the session's
 * choice, dropped when no such launch is left.
 */
export async function launchChoice(deps: SearchDeps, viewer: Viewer, filter: LeadsFilter): Promise<LaunchChoice> {
  const present = [...deps.view.launches]
  for (const { launch } of await deps.store.countLeadsByLaunch()) {
    if (!present.some((known) => known.slug === launch)) present.push(launchOf(present, launch))
  }
  const allowed = present.filter((launch) => mayView(viewer, launch.slug))
  return { present: allowed, selected: allowed.some((launch) => launch.slug === filter.launch) ? filter.launch : '' }
}

/** A search within what the viewer may see: the chosen launch, else their account's launches (if limited). */
export function scopeOf(viewer: Viewer, choice: LaunchChoice): Pick<LeadSearch, 'launch' | 'launches'> {
  if (choice.selected) return { launch: choice.selected }
  return viewer.launches ? { launches: viewer.launches } : {}
}

/**
 * The search a filter asks for (the launch aside): text (and the phone it reads as), status, assignee, realtor, days.
 */
export function searchOf(
  filter: LeadsFilter,
  choice: LaunchChoice,
  timeZone: string,
): Omit<LeadSearch, 'limit' | 'launch' | 'launches' | 'from'> {
  const phone = searchedPhone(filter.text)
  const inView = choice.selected ? choice.present.filter((launch) => launch.slug === choice.selected) : choice.present
  const from = filter.from ? dayStart(filter.from, timeZone) : undefined
  const to = filter.to ? dayStart(nextDay(filter.to), timeZone) : undefined
  return {
    text: filter.text,
    ...(phone ? { phone } : {}),
    // A lead never given a status is in its launch's first one.
    ...(filter.status
      ? { status: { is: filter.status, orUnset: inView.some((launch) => launch.statuses[0] === filter.status) } }
      : {}),
    ...(filter.assignee ? { assignee: filter.assignee === unassignedFilter ? '' : filter.assignee } : {}),
    ...(filter.realtor ? { realtor: filter.realtor === 'yes' } : {}),
    ...(from ? { createdFrom: from } : {}),
    ...(to ? { createdBefore: to } : {}),
  }
}

/** The leads a download gives: the viewer's list as filtered, newest first, 500 a query (memory stays flat). */
export function matchingLeads(
  deps: SearchDeps,
  viewer: Viewer,
  choice: LaunchChoice,
): () => AsyncGenerator<ListedLead> {
  const narrowed = { ...searchOf(viewer.filter, choice, deps.view.timeZone), ...scopeOf(viewer, choice) }
  return async function* () {
    let from: LeadSearch['from']
    for (;;) {
      const page = await deps.store.searchLeads({ ...narrowed, limit: 500, ...(from ? { from } : {}) })
      yield* page.leads
      const last = page.leads.at(-1)
      if (!page.hasOlder || !last) return
      from = { older: { createdAt: last.createdAt, id: last.id } }
    }
  }
}

/**
 * The people the list may be filtered by: the studio's sales and editor accounts, and whoever some lead is assigned to.
 */
export async function assigneeChoices(deps: SearchDeps): Promise<AssigneeChoice[]> {
  const accounts = deps.studio?.assignable ? (await deps.studio.assignable()).map((account) => account.email) : []
  const all = [...new Set([...accounts, ...(await deps.store.listAssignees())])].sort((a, b) => a.localeCompare(b))
  return all.map((value) => ({ value, label: assigneeName(deps.view, value) }))
}

/**
 * What a list or a download was narrowed to, for the audit log: the launch, the filters, whether a search (never its
 * text).
 */
export function filterWords(viewer: Viewer, choice: LaunchChoice, filter: LeadsFilter): string {
  const launches = choice.selected
    ? `launch ${choice.selected}`
    : viewer.launches
      ? `the account's launches (${viewer.launches.join(', ') || 'none'})`
      : 'all launches'
  const filters = [
    filter.status && `status ${filter.status}`,
    filter.assignee && 'an assignee',
    filter.realtor && (filter.realtor === 'yes' ? 'realtors' : 'buyers'),
    filter.from && `from ${filter.from}`,
    filter.to && `to ${filter.to}`,
  ].filter(Boolean)
  return `${launches}, ${filters.length ? `${filters.join(', ')}, ` : ''}${filter.text ? 'with a search (its text is not recorded)' : 'no search'}`
}
