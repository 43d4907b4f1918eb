import type { ListedLead } from '../store/store.ts'
import { sourceOfLead } from '../store/store.ts'
import { csvRecord } from './leads-csv.ts'
import { phoneDisplay, phoneFieldsOf } from './phone-numbers.ts'
import { followUpWords, launchOf, type LeadsPageLaunch } from './views.ts'

/**
 * The leads page's CSV for people (GET /leads/people.csv, "Download … as CSV"): the few columns a salesperson reads,
 * headed in plain words, the time in the team's time zone, the phone in one format, the launch by its name. The full
 * CSV with every technical column (GET /leads/leads.csv, "All columns", and `npm run leads:export`) stays for
 * integrations. Both go through csvRecord, so the same formula-injection rule applies.
 */

// One format per time zone, e.g. "2026-03-02 10:00": sorts as text and reads as a date and time in a spreadsheet.
const formats = new Map<string, Intl.DateTimeFormat>()
function localStamp(iso: string, timeZone: string): string {
  let format = formats.get(timeZone)
  if (!format) {
    format = new Intl.DateTimeFormat('en-CA', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
    })
    formats.set(timeZone, format)
  }
  const parts = Object.fromEntries(format.formatToParts(new Date(iso)).map((part) => [part.type, part.value]))
  return `${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute}`
}

const text = (value: unknown): string => {
  if (value === undefined || value === null) return ''
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return String(value)
  return JSON.stringify(value) ?? ''
}
const isRealtor = (value: unknown) => ['yes', 'true', '1'].includes(text(value).toLowerCase())

/** The header of the people's CSV: the launch column only when there is more than one launch. */
export function peopleCsvHeader(timeZone: string, withLaunch: boolean): string {
  return csvRecord([
    'Name',
    'E-mail',
    'Phone',
    'Realtor',
    'Status',
    'Assigned to',
    `Registered at (${timeZone} time)`,
    'Source',
    ...(withLaunch ? ['Launch'] : []),
  ])
}

/** One lead as a record of the people's CSV, read with its own launch's form. */
export function peopleCsvRecord(
  lead: ListedLead,
  launches: LeadsPageLaunch[],
  timeZone: string,
  withLaunch: boolean,
): string {
  const launch = launchOf(launches, lead.launch)
  const phoneField = phoneFieldsOf(launch.form).find((field) => text(lead.fields[field]) !== '')
  const follow = followUpWords(launch, lead)
  return csvRecord([
    text(lead.fields.name),
    text(lead.fields.email),
    phoneField ? phoneDisplay(text(lead.fields[phoneField])) : '',
    isRealtor(lead.fields.isRealtor) ? 'Yes' : 'No',
    follow.status,
    lead.followUp?.assignee ?? '',
    localStamp(lead.createdAt, timeZone),
    sourceOfLead(lead) || 'Direct',
    ...(withLaunch ? [launch.siteName] : []),
  ])
}
