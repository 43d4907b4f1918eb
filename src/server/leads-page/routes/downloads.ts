import type { Context, Hono } from 'hono'
import type { ListedLead } from '../../store/store.ts'
import type { LeadsContext } from '../context.ts'
import { fieldsOfForms, worksheetLine, worksheetsOfLeads, writeLeadsCsv, type LeadsWorksheets } from '../leads-csv.ts'
import { filterWords, launchChoice, matchingLeads } from '../lead-search.ts'
import { otherFieldsOf, peopleCsvHeader, peopleCsvRecord } from '../people-csv.ts'
import type { Viewer } from '../viewers.ts'
import { launchOf, type LaunchChoice, type LeadsPageLaunch } from '../views.ts'

/**
 * The list as CSV, as filtered: GET /leads/people.csv (the columns a salesperson reads, people-csv.ts) and
 * GET /leads/leads.csv (every column, for integrations: the same writer as npm run leads:export). Each download is a
 * line of the audit log.
 */

/** A download's answer: a byte-order mark first, so Excel reads accents correctly. */
async function csvAnswer(
  c: Context,
  ctx: LeadsContext,
  viewer: Viewer,
  choice: LaunchChoice,
  download: { what: string; name: string; chunks: string[]; written: number },
): Promise<Response> {
  await ctx.audit({
    who: viewer.who,
    action: `downloaded leads as CSV${download.what}`,
    launch: choice.selected || undefined,
    detail: `${filterWords(viewer, choice, viewer.filter)}; ${download.written} leads`,
  })
  const day = new Intl.DateTimeFormat('en-CA', { timeZone: ctx.timeZone }).format(ctx.clock())
  return c.body(['\uFEFF', ...download.chunks].join(''), 200, {
    'content-type': 'text/csv; charset=utf-8',
    'content-disposition': `attachment; filename="${download.name}-${day}.csv"`,
  })
}

/** The release's worksheets when the launches in view have any: then each CSV has a column of a realtor's. */
async function worksheetsInView(ctx: LeadsContext, launches: LeadsPageLaunch[]): Promise<LeadsWorksheets | undefined> {
  const release = ctx.worksheets
  if (!release) return undefined
  const lists = await Promise.all(launches.map((launch) => release.listWorksheets(launch.slug)))
  return lists.some((list) => list.length > 0) ? release : undefined
}

/** Every column, for integrations. */
async function allColumns(c: Context, ctx: LeadsContext): Promise<Response> {
  const viewer = await ctx.viewerOf(c)
  if (!viewer) return c.redirect('/leads', 303)
  const choice = await launchChoice(ctx, viewer, viewer.filter)
  await ctx.readPhones()
  const chunks: string[] = []
  // The chosen launch's form fields, or every launch's (the default launch's first).
  const inView = choice.selected ? [launchOf(choice.present, choice.selected)] : choice.present
  const forms = inView.map((l) => l.form)
  const worksheets = await worksheetsInView(ctx, inView)
  const written = await writeLeadsCsv(
    matchingLeads(ctx, viewer, choice),
    fieldsOfForms(forms),
    (chunk) => void chunks.push(chunk),
    (ids) => ctx.store.documentOpeningsOf(ids),
    worksheets ? (leads) => worksheetsOfLeads(worksheets, leads) : undefined,
  )
  return csvAnswer(c, ctx, viewer, choice, { what: '', name: 'leads', chunks, written })
}

/** The newest note of each lead, '' where it has none (its history read, newest first). */
async function lastNotesOf(ctx: LeadsContext, leads: ListedLead[]): Promise<string[]> {
  const histories = await Promise.all(leads.map((lead) => ctx.store.followUpOf(lead.id)))
  return histories.map((followUp) => followUp.history.find((entry) => entry.kind === 'note')?.value ?? '')
}

/**
 * The columns a salesperson reads. Two passes, so memory stays flat: the first finds the fields the leads hold (a
 * realtor's brokerage is a column only when a lead has one), the second writes them, 100 leads' notes at a time.
 */
async function forPeople(c: Context, ctx: LeadsContext): Promise<Response> {
  const viewer = await ctx.viewerOf(c)
  if (!viewer) return c.redirect('/leads', 303)
  const choice = await launchChoice(ctx, viewer, viewer.filter)
  const leads = matchingLeads(ctx, viewer, choice)
  const keys = new Set<string>()
  for await (const lead of leads()) for (const key of Object.keys(lead.fields)) keys.add(key)
  const inView = choice.selected ? [launchOf(choice.present, choice.selected)] : choice.present
  const others = otherFieldsOf(inView, keys)
  const view = { launches: choice.present, timeZone: ctx.timeZone }
  const worksheets = await worksheetsInView(ctx, inView)
  const chunks = [peopleCsvHeader(inView, others, worksheets !== undefined)]
  let batch: ListedLead[] = []
  const flush = async () => {
    const notes = await lastNotesOf(ctx, batch)
    const sheets = worksheets && (await worksheetsOfLeads(worksheets, batch))
    batch.forEach((lead, i) =>
      chunks.push(
        peopleCsvRecord(lead, view, others, notes[i]!, sheets && (sheets.get(lead.id) ?? []).map(worksheetLine)),
      ),
    )
    batch = []
  }
  for await (const lead of leads()) {
    batch.push(lead)
    if (batch.length >= 100) await flush()
  }
  await flush()
  const name = `${choice.selected || 'all-launches'}-leads`
  return csvAnswer(c, ctx, viewer, choice, { what: ' (for people)', name, chunks, written: chunks.length - 1 })
}

/** Adds the downloads to the leads page's app. */
export function addDownloadRoutes(app: Hono, ctx: LeadsContext): void {
  app.get('/leads/leads.csv', (c) => allColumns(c, ctx))
  app.get('/leads/people.csv', (c) => forPeople(c, ctx))
}
