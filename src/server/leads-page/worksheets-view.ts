import { html } from 'hono/html'
import type { HtmlEscapedString } from 'hono/utils/html'
import type { ReleaseStore, StoredWorksheet } from '../store/release.ts'
import { localTime, type ViewContext } from './views.ts'

/**
 * A realtor's worksheets on the leads page (issue 45): on the realtor's lead, each worksheet sent with it, its client,
 * choices and outcome; in the CSV, the same in one column. Read from the release store (the lead is the realtor's).
 */

/** What the leads page reads of the release store. */
export type LeadsWorksheets = Pick<ReleaseStore, 'listWorksheets'>

/** A worksheet's outcome in words: "allocated Lot 14 (Maple)", "waitlisted: why", "declined: why", "waiting". */
export function outcomeWords(worksheet: StoredWorksheet): string {
  if (worksheet.outcome === 'allocated') return `allocated ${worksheet.allocatedLot} (${worksheet.allocatedModel})`
  if (worksheet.outcome === 'received') return 'waiting'
  return `${worksheet.outcome}: ${worksheet.reason ?? ''}`
}

/** A worksheet's choices in words: "Lot 14, Maple; any lot, Birch". */
export function choicesWords(worksheet: StoredWorksheet): string {
  return worksheet.choices.map((c) => `${c.lot ?? 'any lot'}, ${c.model}`).join('; ')
}

/** A worksheet in one line of the CSV: "#2 Cleo Client (Lot 14, Maple): allocated Lot 14 (Maple)". */
export function worksheetLine(worksheet: StoredWorksheet): string {
  return `#${worksheet.number} ${worksheet.clientName} (${choicesWords(worksheet)}): ${outcomeWords(worksheet)}`
}

/** The worksheets of each of `leads` (a realtor's lead id → its worksheets), read one launch at a time. */
export async function worksheetsOfLeads(
  release: LeadsWorksheets,
  leads: ReadonlyArray<{ id: number; launch: string }>,
): Promise<Map<number, StoredWorksheet[]>> {
  const ids = new Set(leads.map((lead) => lead.id))
  const byLead = new Map<number, StoredWorksheet[]>()
  for (const launch of new Set(leads.map((lead) => lead.launch))) {
    for (const worksheet of await release.listWorksheets(launch)) {
      if (!ids.has(worksheet.realtorLeadId)) continue
      byLead.set(worksheet.realtorLeadId, [...(byLead.get(worksheet.realtorLeadId) ?? []), worksheet])
    }
  }
  return byLead
}

/** The lead page's section: nothing for a lead that sent no worksheet. */
export function worksheetsSection(
  view: ViewContext,
  worksheets: readonly StoredWorksheet[],
): HtmlEscapedString | Promise<HtmlEscapedString> | string {
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
