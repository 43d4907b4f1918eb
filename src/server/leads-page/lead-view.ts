import { html } from 'hono/html'
import { phaseWords } from '../../../schema/phase-schedule.ts'
import type { HtmlEscapedString } from 'hono/utils/html'
import { displayValue, fieldLabel } from '../delivery/notification.ts'
import type { AgentRegistration, FollowUp, HistoryEntry, OtherRegistration } from '../store/follow-up.ts'
import type { ListedLead } from '../store/store.ts'
import type { LeadAnnouncement } from '../store/announcements.ts'
import type { DocumentOpenings } from '../store/document-downloads.ts'
import type { AssigneeChoice } from './filter-view.ts'
import type { StoredWorksheet } from '../store/release.ts'
import { choicesWords, outcomeWords } from './leads-csv.ts'
import {
  assigneeName,
  bar,
  columnsOf,
  consentWords,
  fieldValue,
  followUpWords,
  launchOf,
  layout,
  localTime,
  notificationBadge,
  realtorMark,
  titleOf,
  withdrawal,
  type ViewContext,
} from './views.ts'

/**
 * A lead on a page of its own: its follow-up (Status, Assigned to, Note: each a plain form that saves with one POST
 * and comes back here), the same person's other registrations, every field of its launch's form, and its history.
 */

type Html = HtmlEscapedString | Promise<HtmlEscapedString>

/** Who a lead may be assigned to: the studio's sales and editor accounts, or anyone typed where there are none. */
export type AssignWays = { kind: 'accounts'; people: AssigneeChoice[] } | { kind: 'text' }

/** What the lead's page shows besides the lead. */
export type LeadPageExtras = {
  followUp: FollowUp
  /** The person's other registrations the viewer may see. */
  others: OtherRegistration[]
  /** How many other launches the person registered for that the viewer may not see (shown as a number only). */
  hiddenLaunches: number
  assign: AssignWays
  /**
   * The realtor's registration this buyer named as their agent, when there is one in the launch
   * (store.agentRegistrationOf).
   */
  agent?: AgentRegistration | undefined
  /** A change that was refused, in words that say what to do. */
  problem?: string | undefined
  /** The announcements sent to this lead (announcements.ts), newest first. */
  announcements?: LeadAnnouncement[] | undefined
  /** Which of its documents the lead opened, how often and when last (document-downloads.ts). */
  documents?: DocumentOpenings[] | undefined
  /** The worksheets a realtor sent with this lead, and their outcome (leads-csv.ts). */
  worksheets?: StoredWorksheet[] | undefined
}

/** "Price list: opened 3 times, last Tue, Mar 3, 10:04": how a lead read its documents, the best sign of a hot lead. */
function documentsSection(view: ViewContext, openings: readonly DocumentOpenings[]): Html {
  return html`<section class="lp-section" aria-labelledby="documents">
<h2 id="documents">Documents</h2>
${
  openings.length
    ? html`<ul aria-labelledby="documents">
${openings.map(
  (o) =>
    html`<li>${o.title}: opened ${o.count === 1 ? 'once' : `${o.count} times`}, last <time datetime="${o.last}">${localTime(o.last, view.timeZone)}</time></li>`,
)}
</ul>`
    : html`<p>No document opened yet.</p>`
}
</section>`
}

const announcementStates: Record<LeadAnnouncement['status'], string> = {
  pending: 'queued',
  sent: 'sent',
  failed: 'failed',
  cancelled: 'not sent: unsubscribed',
}

function announcementLine(view: ViewContext, entry: LeadAnnouncement): Html {
  return html`<li class="lp-history-entry">
<p class="lp-history-what"><strong>Announcement (${announcementStates[entry.status]}):</strong> ${entry.subject}</p>
<p class="lp-history-meta"><time datetime="${entry.createdAt}">${localTime(entry.createdAt, view.timeZone)}</time> · ${entry.author}</p>
</li>`
}

const historyWords: Record<HistoryEntry['kind'], string> = { status: 'Status', assignee: 'Assigned to', note: 'Note' }

function historyLine(view: ViewContext, entry: HistoryEntry): Html {
  const value = entry.kind === 'assignee' ? assigneeName(view, entry.value) : entry.value
  return html`<li class="lp-history-entry">
<p class="lp-history-what"><strong>${historyWords[entry.kind]}${entry.kind === 'note' ? '' : ':'}</strong>${entry.kind === 'note' ? '' : html` ${value}`}</p>
${entry.kind === 'note' ? html`<p class="lp-history-note">${value}</p>` : ''}
<p class="lp-history-meta"><time datetime="${entry.createdAt}">${localTime(entry.createdAt, view.timeZone)}</time> · ${entry.author}</p>
</li>`
}

function assigneeControl(view: ViewContext, assign: AssignWays, current: string, problem: boolean): Html {
  const invalid = problem ? html` aria-invalid="true" aria-describedby="lead-problem"` : ''
  if (assign.kind === 'text') {
    return html`<input id="lead-assignee" name="assignee" type="text" value="${current}" maxlength="80" autocomplete="off" placeholder="Nobody yet"${invalid}>`
  }
  const people =
    current && !assign.people.some((p) => p.value === current)
      ? [...assign.people, { value: current, label: assigneeName(view, current) }]
      : assign.people
  return html`<select id="lead-assignee" name="assignee"${invalid}>
<option value=""${current === '' ? html` selected` : ''}>Nobody</option>
${people.map((p) => html`<option value="${p.value}"${p.value === current ? html` selected` : ''}>${p.label}</option>`)}
</select>`
}

function samePerson(view: ViewContext, extras: LeadPageExtras): Html | string {
  const { others, hiddenLaunches } = extras
  if (others.length === 0 && hiddenLaunches === 0) return ''
  return html`<section class="lp-section" aria-labelledby="same-person">
<h2 id="same-person">Same person, other registrations</h2>
${
  others.length
    ? html`<ul class="lp-others">
${others.map(
  (other) =>
    html`<li><a href="/leads/lead/${other.id}"><time datetime="${other.createdAt}">${localTime(other.createdAt, view.timeZone)}</time></a> · ${launchOf(view.launches, other.launch).siteName}</li>`,
)}
</ul>`
    : ''
}
${hiddenLaunches ? html`<p>Also registered for ${hiddenLaunches} other launch${hiddenLaunches === 1 ? '' : 'es'}.</p>` : ''}
</section>`
}

/**
 * The realtor this buyer named as their agent, linked to that realtor's registration: co-operation is paid to the agent
 * who registered the buyer first, so both times are shown.
 */
function agentSection(view: ViewContext, agent: AgentRegistration | undefined): Html | string {
  if (!agent) return ''
  return html`<section class="lp-section" aria-labelledby="agent">
<h2 id="agent">Their agent</h2>
<p><a href="/leads/lead/${agent.id}">${agent.name || `Registration ${agent.id}`}</a>${agent.brokerage ? ` · ${agent.brokerage}` : ''} · registered <time datetime="${agent.createdAt}">${localTime(agent.createdAt, view.timeZone)}</time></p>
</section>`
}

/** The worksheets a realtor sent with this lead: nothing for a lead that sent none. */
function worksheetsSection(view: ViewContext, worksheets: readonly StoredWorksheet[]): Html | string {
  if (worksheets.length === 0) return ''
  return html`<section class="lp-section" aria-labelledby="worksheets">
<h2 id="worksheets">Worksheets</h2>
<ul class="lp-others">
${worksheets.map(
  (w) =>
    html`<li><strong>Worksheet ${w.number}</strong> · ${w.clientName} · received <time datetime="${w.receivedAt}">${localTime(w.receivedAt, view.timeZone)}</time><br>Choices: ${choicesWords(w)}<br>Outcome: ${outcomeWords(w)}</li>`,
)}
</ul>
</section>`
}

/** One lead on a page of its own. */
export function leadView(view: ViewContext, lead: ListedLead, studio: boolean, extras: LeadPageExtras): Html {
  const title = titleOf(view)
  const launch = launchOf(view.launches, lead.launch)
  const [first, ...rest] = columnsOf([launch.form], [lead])
  const heading = first === undefined ? `Registration ${lead.id}` : displayValue(launch.form, first, lead.fields[first])
  const utm = Object.entries(lead.utm)
  const { followUp, problem } = extras
  const status = followUpWords(launch, { followUp }).status
  const statuses = launch.statuses.includes(status) ? launch.statuses : [status, ...launch.statuses]
  const action = `/leads/lead/${lead.id}`
  return layout(
    `Registration ${lead.id} · Leads · ${title}`,
    html`${bar(title, studio)}
<main class="lp-main lp-lead-page">
<p><a href="/leads">Back to the registrations</a></p>
<h1>${heading}</h1>
${lead.withdrawnAt || lead.suspectedSpam || realtorMark(lead) ? html`<p class="lp-card-note">${realtorMark(lead)}${withdrawal(view, lead)}${lead.withdrawnAt ? ' Do not contact.' : ''}</p>` : ''}
${problem ? html`<p id="lead-problem" class="lp-notice lp-notice-error" role="alert">${problem}</p>` : ''}
<section class="lp-section lp-follow" aria-labelledby="follow-up">
<h2 id="follow-up">Follow-up</h2>
<form method="post" action="${action}/status" class="lp-follow-form" data-apply>
<label for="lead-status">Status</label>
<div class="lp-follow-row">
<select id="lead-status" name="status">
${statuses.map((s) => html`<option value="${s}"${s === status ? html` selected` : ''}>${s}</option>`)}
</select>
<button type="submit" class="lp-button">Save status</button>
</div>
</form>
<form method="post" action="${action}/assignee" class="lp-follow-form" data-apply>
<label for="lead-assignee">Assigned to</label>
<div class="lp-follow-row">
${assigneeControl(view, extras.assign, followUp.assignee, problem !== undefined)}
<button type="submit" class="lp-button">Save assignee</button>
</div>
</form>
<form method="post" action="${action}/note" class="lp-follow-form">
<label for="lead-note">Note</label>
<textarea id="lead-note" name="note" rows="3" maxlength="1000" required></textarea>
<button type="submit" class="lp-button lp-button-wide">Add note</button>
</form>
</section>
<section class="lp-section" aria-labelledby="history">
<h2 id="history">History</h2>
${
  followUp.history.length || extras.announcements?.length
    ? html`<ol class="lp-history">
${[
  ...followUp.history.map((entry) => ({ at: entry.createdAt, line: historyLine(view, entry) })),
  ...(extras.announcements ?? []).map((entry) => ({ at: entry.createdAt, line: announcementLine(view, entry) })),
]
  .sort((a, b) => b.at.localeCompare(a.at))
  .map((entry) => entry.line)}
</ol>`
    : html`<p>No changes or notes yet.</p>`
}
</section>
${worksheetsSection(view, extras.worksheets ?? [])}
${documentsSection(view, extras.documents ?? [])}
${samePerson(view, extras)}
${agentSection(view, extras.agent)}
<section class="lp-section" aria-labelledby="details">
<h2 id="details">Registration</h2>
<dl class="lp-pairs">
<div><dt>Received</dt><dd><time datetime="${lead.createdAt}">${localTime(lead.createdAt, view.timeZone)}</time></dd></div>
<div><dt>Launch</dt><dd>${launch.siteName}</dd></div>
${lead.firstRegisteredAt && lead.firstRegisteredAt !== lead.createdAt ? html`<div><dt>First registered</dt><dd><time datetime="${lead.firstRegisteredAt}">${localTime(lead.firstRegisteredAt, view.timeZone)}</time></dd></div>` : ''}
${lead.phase ? html`<div><dt>Phase</dt><dd>${phaseWords(lead.phase)}</dd></div>` : ''}
<div><dt>Consent</dt><dd>${consentWords(lead, view.timeZone)}</dd></div>
${[first, ...rest].flatMap((field) => (field === undefined ? [] : [html`<div><dt>${fieldLabel(launch.form, field)}</dt><dd>${fieldValue(launch.form, field, lead.fields[field])}</dd></div>`]))}
${utm.length ? utm.map(([key, value]) => html`<div><dt>${key}</dt><dd>${value}</dd></div>`) : html`<div><dt>UTM source</dt><dd>—</dd></div>`}
<div><dt>Page</dt><dd>${lead.landingPage ?? lead.pageUrl ?? '—'}</dd></div>
<div><dt>Notification</dt><dd>${notificationBadge(lead.notification)}</dd></div>
<div><dt>Number</dt><dd>${lead.id}</dd></div>
</dl>
</section>
</main>`,
  )
}
