import type { JSONSchema } from 'json-schema-to-ts'
import { phaseAt, phaseScheduleOf, wallClockInstant, type PhaseTimes } from './phase-schedule.ts'

/**
 * The realtors' worksheets (issue 45): page.config.json `worksheets` holds the words of the realtor's worksheet page,
 * its confirmation e-mail and the allocation's outcome e-mails (every text optional, its default below), and the
 * deposit structure a realtor accepts; a phase's `worksheets` ({ "opens", "closes" }) says when worksheets are taken.
 * Schema and pure helpers only (web-standard): the page is src/server/release/worksheet-routes.ts.
 */

/** A phase's worksheet window, as page.config.json writes it: wall-clock times in launch.timeZone. */
export type WorksheetWindow = { opens: string; closes?: string }

/** The phase's `worksheets` setting (schema/phases.ts takes it). */
export const worksheetWindowSchema = {
  type: 'object',
  title: 'Worksheets',
  description:
    'Optional: when realtors may send worksheets during this phase, as clocks read where the launch is (launch.timeZone), e.g. { "opens": "2026-03-14T10:00", "closes": "2026-03-16T17:00" }. Realtors who registered get a link to their worksheet page in their reply; outside this window the page says when worksheets open.',
  properties: {
    opens: {
      type: 'string',
      pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}$',
      title: 'Opens',
      description: 'When worksheets open, written "2026-03-14T10:00".',
      examples: ['2026-03-14T10:00'],
    },
    closes: {
      type: 'string',
      pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}$',
      title: 'Closes',
      description: 'Optional: when worksheets close, written "2026-03-16T17:00". Leave out to keep them open.',
      examples: ['2026-03-16T17:00'],
    },
  },
  required: ['opens'],
  additionalProperties: false,
} as const satisfies JSONSchema

/**
 * Every text of the worksheets, with its title and default. {site} is the development name; the other placeholders are
 * named in each text's default.
 */
const textTable = {
  replyLinkLabel: ["Link in the realtor's reply", 'Send a worksheet'],
  pageTitle: ['Page title', 'Worksheets for {site}'],
  heading: ['Heading', 'Worksheets for {site}'],
  intro: ['Introduction', 'Send a worksheet for each client. Worksheets are handled in the order they are received.'],
  clientsHeading: ['Your clients: heading', 'Your clients'],
  noClients: ['Your clients: none yet', 'No registration has named you as its agent yet.'],
  formHeading: ['Form heading', 'Send a worksheet'],
  clientName: ["Client's name: label", "Client's name"],
  clientEmail: ["Client's e-mail: label", "Client's e-mail"],
  clientPhone: ["Client's phone: label", "Client's phone"],
  firstChoice: ['First choice: label', 'First choice'],
  secondChoice: ['Second choice: label', 'Second choice'],
  thirdChoice: ['Third choice: label', 'Third choice'],
  noChoice: ['No choice (option)', 'No choice'],
  lotOption: ['A lot and its model (option); {lot}, {model}', '{lot} — {model}'],
  anyLotOption: ['Any lot of a model (option); {model}', 'Any lot — {model}'],
  depositHeading: ['Deposit structure: heading', 'Deposit structure'],
  depositStructure: ['Deposit structure', 'As set out in the price list.'],
  depositAccept: ['Deposit structure: checkbox', 'I accept the deposit structure'],
  notes: ['Notes: label', 'Notes'],
  submit: ['Button', 'Send worksheet'],
  closedText: ['Closed, with an opening ahead; {opens}', 'Worksheets are closed now. They open on {opens}'],
  closedForGood: ['Closed, none ahead', 'Worksheets are closed.'],
  sentHeading: ['Sent: heading; {number}', 'Worksheet {number} received'],
  sentText: ['Sent: text; {time}', 'A confirmation is on its way to you and to the co-op desk. Received on {time}'],
  errorSummary: ['Refused: line above the form', 'The worksheet was not sent: check the fields marked below.'],
  nameRequired: ['Message: no name', "Enter the client's name."],
  emailInvalid: ['Message: no e-mail', "Enter the client's e-mail address, like name@example.com."],
  phoneInvalid: ['Message: no phone', "Enter the client's phone number, at least 10 digits."],
  choiceRequired: ['Message: no first choice', 'Choose at least a first choice.'],
  choiceUnavailable: ['Message: a choice is gone', 'This choice is not available any more: choose another.'],
  choiceRepeated: ['Message: a choice twice', 'This choice is already above: choose another or none.'],
  depositRequired: ['Message: deposit not accepted', 'Accept the deposit structure to send the worksheet.'],
  tooMany: ['Message: too many sends', 'Too many worksheets at once: wait a minute and send again.'],
  failed: ['Message: not stored', 'The worksheet could not be stored: nothing was sent. Try again in a minute.'],
  worksheetsHeading: ['Your worksheets: heading', 'Your worksheets'],
  noWorksheets: ['Your worksheets: none yet', 'No worksheet sent yet.'],
  worksheetLine: [
    'Your worksheets: a line; {number}, {client}, {time}',
    'Worksheet {number}: {client}, received {time}',
  ],
  outcomeReceived: ['Outcome: waiting', 'Waiting for allocation'],
  outcomeAllocated: ['Outcome: allocated; {lot}, {model}', 'Allocated: {lot} ({model})'],
  outcomeWaitlisted: ['Outcome: waitlisted; {reason}', 'Waitlisted: {reason}'],
  outcomeDeclined: ['Outcome: declined; {reason}', 'Declined: {reason}'],
  invalidHeading: ['Wrong link: heading', 'This link does not work'],
  invalidText: ['Wrong link: text', 'Use the worksheet link of your reply e-mail, exactly as it was sent.'],
  requestLinkLabel: ['Wrong link: where to ask for the link', 'Ask for your worksheet link'],
  requestHeading: ['Asking for the link: heading', 'Your worksheet link for {site}'],
  requestText: [
    'Asking for the link: text',
    'Enter the e-mail address you registered with as a realtor. If it is registered for {site}, your personal worksheet link is sent to it.',
  ],
  requestEmail: ['Asking for the link: e-mail label', 'Your e-mail'],
  requestButton: ['Asking for the link: button', 'Send me my link'],
  requestEmailInvalid: ['Asking for the link: no e-mail', 'Enter your e-mail address, like name@example.com.'],
  requestSentHeading: ['Asking for the link: sent, heading', 'Check your inbox'],
  requestSentText: [
    'Asking for the link: sent, text',
    'If that address is registered as a realtor for {site}, your worksheet link is on its way to it. One link is sent at most every 10 minutes.',
  ],
  requestFailed: ['Asking for the link: not sent', 'The link could not be sent just now. Try again in a minute.'],
  linkMailSubject: ['Link e-mail: subject', '{site}: your worksheet link'],
  linkMailText: [
    'Link e-mail: text',
    'Here is your personal link to send worksheets for {site} and see their outcomes. Keep it to yourself: it opens your clients.',
  ],
  confirmationSubject: [
    'Confirmation: subject; {number}, {client}',
    '{site}: worksheet {number} for {client} received',
  ],
  confirmationText: [
    'Confirmation: first line; {number}, {client}, {realtor}, {time}',
    'Worksheet {number} for {client}, from {realtor}, was received {time}. Worksheets are handled in received order.',
  ],
  confirmationChoices: ['Confirmation: choices heading', 'Choices, in order:'],
  allocatedSubject: [
    'Outcome e-mail: allocated, subject; {number}, {client}',
    '{site}: worksheet {number} for {client}: allocated',
  ],
  allocatedText: [
    'Outcome e-mail: allocated; {lot}, {model}, {price}, {client}',
    '{lot} ({model}, {price}) is allocated to your client {client}.',
  ],
  allocatedNext: [
    'Outcome e-mail: allocated, next step',
    'Next: the sales office will contact you to book the signing; bring the first deposit as the deposit structure says.',
  ],
  waitlistedSubject: ['Outcome e-mail: waitlisted, subject', '{site}: worksheet {number} for {client}: waitlisted'],
  waitlistedText: [
    'Outcome e-mail: waitlisted; {client}, {reason}',
    'Your client {client} is on the waitlist: {reason}',
  ],
  waitlistReason: [
    'Waitlist reason when none is given',
    'none of its choices is available now; it keeps its place in order.',
  ],
  declinedSubject: ['Outcome e-mail: declined, subject', '{site}: worksheet {number} for {client}: declined'],
  declinedText: ['Outcome e-mail: declined; {number}, {reason}', 'Worksheet {number} is declined: {reason}'],
} as const

/** Every worksheet text, decided. */
export type WorksheetTexts = { [K in keyof typeof textTable]: string }

/** The defaults of every worksheet text. */
export const defaultWorksheetTexts: WorksheetTexts = Object.fromEntries(
  Object.entries(textTable).map(([key, [, value]]) => [key, value]),
) as WorksheetTexts

const textProperties = Object.fromEntries(
  Object.entries(textTable).map(([key, [title, value]]) => [
    key,
    { type: 'string', minLength: 1, title, description: `Default: "${value}".` },
  ]),
) as Record<keyof WorksheetTexts, { type: 'string'; minLength: 1; title: string; description: string }>

/** page.config.json `worksheets`: the words of the realtors' worksheets, each optional. */
export const worksheetsSchema = {
  type: 'object',
  title: 'Worksheets',
  description:
    "The words of the realtors' worksheet page, its confirmation e-mail and the allocation's e-mails, and the deposit structure realtors accept. Worksheets are taken while a phase's \"worksheets\" window is open. Every text is optional: one left out is the default in its description.",
  properties: {
    texts: {
      type: 'object',
      title: 'Texts',
      description: 'The words of the worksheet page and e-mails; each optional.',
      properties: textProperties,
      additionalProperties: false,
    },
  },
  additionalProperties: false,
} as const

/** page.config.json `worksheets`. */
export type WorksheetsConfig = { texts?: Partial<WorksheetTexts> }

/** Every text of a config's `worksheets`, the defaults where it gives none. */
export function worksheetTextsOf(config: WorksheetsConfig | undefined): WorksheetTexts {
  return { ...defaultWorksheetTexts, ...config?.texts }
}

/** The phases as the worksheet window reads them: their schedule, and each one's window. */
export type WorksheetPhases = {
  current: PhaseTimes['current']
  timeZone?: string | undefined
  list: ReadonlyArray<{ name: string; starts?: string | undefined; worksheets?: WorksheetWindow | undefined }>
}

/** Whether worksheets are taken at a moment: open (until when, if it closes), or closed (and when they open next). */
export type WorksheetState = { open: true; closesAt?: number } | { open: false; opensAt?: number }

/** Whether any phase has a worksheet window that has not closed by `now`: the realtor's reply then carries the link. */
export function hasWorksheetWindow(phases: WorksheetPhases | undefined, timeZone: string, now: number): boolean {
  const zone = phases?.timeZone ?? timeZone
  return (phases?.list ?? []).some((phase) => {
    if (!phase.worksheets) return false
    if (phase.worksheets.closes === undefined) return true
    const closes = wallClockInstant(phase.worksheets.closes, zone)
    return closes === undefined || closes > now
  })
}

/**
 * Worksheets at `now`: open when the phase in force by the schedule has a window that has opened and not closed;
 * else closed, with the next opening (this phase's window ahead, else the earliest window ahead of a later phase).
 */
export function worksheetStateAt(phases: WorksheetPhases | undefined, timeZone: string, now: number): WorksheetState {
  if (!phases) return { open: false }
  const zone = phases.timeZone ?? timeZone
  const inForce = phaseAt(phaseScheduleOf(phases, zone), now)
  const index = phases.list.findIndex((phase) => phase.name === inForce)
  const window = phases.list[index]?.worksheets
  const opens = window && wallClockInstant(window.opens, zone)
  const closes = window?.closes === undefined ? undefined : wallClockInstant(window.closes, zone)
  if (opens !== undefined && opens <= now && (closes === undefined || now < closes))
    return closes === undefined ? { open: true } : { open: true, closesAt: closes }
  const ahead = phases.list
    .slice(Math.max(index, 0))
    .map((phase) => phase.worksheets && wallClockInstant(phase.worksheets.opens, zone))
    .filter((at): at is number => at !== undefined && at > now)
  return ahead.length > 0 ? { open: false, opensAt: Math.min(...ahead) } : { open: false }
}

/** A text with its {placeholders} filled (a function replacement: a value's `$` stays as typed). */
export function fillWorksheetText(text: string, values: Record<string, string | number>): string {
  return text.replace(/\{([a-z]+)\}/g, (whole, name: string) => (name in values ? String(values[name]) : whole))
}
