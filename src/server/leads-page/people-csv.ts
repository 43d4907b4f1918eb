import { zoneClock } from '../../../schema/zone-clock.ts'
import type { ListedLead } from '../store/store.ts'
import { sourceOfLead } from '../store/store.ts'
import { displayValue, fieldLabel, orderedFields } from '../delivery/notification.ts'
import { csvRecord, fieldsOfForms } from './leads-csv.ts'
import { phoneDisplay, phoneFieldsOf } from './phone-numbers.ts'
import { assigneeName, followUpWords, launchOf, type LeadsPageLaunch, type ViewContext } from './views.ts'

/**
 * The leads page's CSV for people (GET /leads/people.csv, "Download … as CSV"): the columns a salesperson reads, headed
 * in plain words: when (in the team's time zone), the launch by its name (also in a file of one launch: files are
 * forwarded and merged), who, where the follow-up stands (the salesperson by name, the last note), the source, then the
 * form's other fields by their labels. The full CSV with every technical column (GET /leads/leads.csv, "All columns",
 * and `npm run leads:export`) stays for integrations. Both go through csvRecord: the same formula-injection rule.
 */

// A time in the team's zone, e.g. "2026-03-02 10:00": sorts as text and reads as a date and time in a spreadsheet.
function localStamp(iso: string, timeZone: string): string {
  const format = zoneClock(timeZone)
  const parts = Object.fromEntries(format.formatToParts(new Date(iso)).map((part) => [part.type, part.value]))
  return `${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute}`
}

const text = (value: unknown): string => {
  if (value === undefined || value === null) return ''
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return String(value)
  return JSON.stringify(value) ?? ''
}
const isRealtor = (value: unknown) => ['yes', 'true', '1'].includes(text(value).toLowerCase())

/** The fields that have a column of their own, before the form's other fields. */
function ownColumn(launch: LeadsPageLaunch, field: string): boolean {
  return ['name', 'email', 'isRealtor'].includes(field) || phoneFieldsOf(launch.form).includes(field)
}

/**
 * The form's other fields, each once, in form order (the first launch's first), then any other a lead holds (a
 * realtor's brokerage, an older form's field): `keys` are the fields the leads to be written hold.
 */
export function otherFieldsOf(launches: LeadsPageLaunch[], keys: Iterable<string>): string[] {
  const fields = fieldsOfForms(launches.map((launch) => launch.form))
  for (const key of keys) if (!fields.includes(key)) fields.push(key)
  return fields.filter((field) => !launches.some((launch) => ownColumn(launch, field)))
}

/** A field's heading: its label in the first of these launches' forms that has it, else its name. */
function labelOf(launches: LeadsPageLaunch[], field: string): string {
  const launch = launches.find((l) => orderedFields(l.form).includes(field))
  return launch ? fieldLabel(launch.form, field) : field
}

/** The header of the people's CSV: its own columns, then `others` (otherFieldsOf) by their labels. */
export function peopleCsvHeader(launches: LeadsPageLaunch[], others: string[], worksheets = false): string {
  return csvRecord([
    'Received (local time)',
    'Launch',
    'Name',
    'E-mail',
    'Phone',
    'Realtor',
    'Status',
    'Assigned to',
    'Last note',
    'Source',
    ...others.map((field) => labelOf(launches, field)),
    // A realtor's worksheets and their outcome (issue 45), once the launches in view have any.
    ...(worksheets ? ['Worksheets'] : []),
  ])
}

/**
 * One lead as a record of the people's CSV, read with its own launch's form; `lastNote` is its newest note, or '';
 * `worksheets`, where the CSV has the column, a realtor's worksheets in words.
 */
export function peopleCsvRecord(
  lead: ListedLead,
  view: ViewContext,
  others: string[],
  lastNote: string,
  worksheets?: string[],
): string {
  const launch = launchOf(view.launches, lead.launch)
  const phoneField = phoneFieldsOf(launch.form).find((field) => text(lead.fields[field]) !== '')
  const follow = followUpWords(launch, lead)
  const assignee = lead.followUp?.assignee ?? ''
  return csvRecord([
    localStamp(lead.createdAt, view.timeZone),
    launch.siteName,
    text(lead.fields.name),
    text(lead.fields.email),
    phoneField ? phoneDisplay(text(lead.fields[phoneField])) : '',
    isRealtor(lead.fields.isRealtor) ? 'Yes' : 'No',
    follow.status,
    // The roster's name for a salesperson, as the list shows them; the address where no roster names them.
    assignee === '' ? '' : assigneeName(view, assignee),
    lastNote,
    sourceOfLead(lead) || 'Direct',
    ...others.map((field) =>
      text(lead.fields[field]) === '' ? '' : displayValue(launch.form, field, lead.fields[field]),
    ),
    ...(worksheets ? [worksheets.join(' | ')] : []),
  ])
}
