/**
 * The allocation board's decisions (issue 45): allocate a lot to a worksheet, waitlist or decline it, or confirm the
 * proposals of "allocate in order". Each decision is stored with the realtor's e-mail and the CRM's
 * worksheet.decided call in one transaction (the outbox sends them, each once); an allocation the store refuses
 * because the lot went first is answered with who has it.
 */
import type { OutgoingMail } from '../store/messages.ts'
import { headerSafe } from '../delivery/mailer.ts'
import type { AllocationResult, ReleaseStore, StoredLot, StoredWorksheet, WorksheetMessage } from '../store/release.ts'
import { escapeHtml } from '../delivery/escape-html.ts'
import { defaultWorksheetTexts, fillWorksheetText, type WorksheetTexts } from '../../../schema/worksheets.ts'
import type { Proposal } from './allocate-in-order.ts'

/**
 * What the decisions need: the store, the clock, and the launch's name and worksheet words (page.config.json
 * `worksheets.texts`; absent: the defaults) for the e-mails.
 */
export type AllocationDeps = { release: ReleaseStore; clock: () => Date; siteName: string; texts?: WorksheetTexts }

/** A decision's outcome as the board shows it: done, or refused with the sentence to show (409 or 404). */
export type Decision = { ok: true } | { ok: false; status: 404 | 409; error: string }

type Outcome =
  { kind: 'allocated'; lot: string; model: string; price: number } | { kind: 'waitlisted' | 'declined'; reason: string }

const dollars = (price: number) => `$${price.toLocaleString('en-CA')}`

/** The realtor's e-mail of an outcome, in the launch's words. */
function outcomeMail(worksheet: StoredWorksheet, outcome: Outcome, words: Words, at: Date): OutgoingMail {
  const t = words.texts
  const values = {
    site: words.siteName,
    number: worksheet.number,
    client: worksheet.clientName,
    ...(outcome.kind === 'allocated'
      ? { lot: outcome.lot, model: outcome.model, price: dollars(outcome.price) }
      : { reason: outcome.reason }),
  }
  const [subject, lines] =
    outcome.kind === 'allocated'
      ? [t.allocatedSubject, [t.allocatedText, t.allocatedNext]]
      : outcome.kind === 'waitlisted'
        ? [t.waitlistedSubject, [t.waitlistedText]]
        : [t.declinedSubject, [t.declinedText]]
  const filled = lines.map((line) => fillWorksheetText(line, values))
  const key = `worksheet-${worksheet.id}-decided-${at.getTime()}`
  return {
    to: worksheet.realtorEmail,
    subject: headerSafe(fillWorksheetText(subject, values)).slice(0, 200),
    text: filled.join('\n\n') + '\n',
    html: filled.map((l) => `<p>${escapeHtml(l)}</p>`).join(''),
    messageId: `<${key}@worksheets.invalid>`,
    idempotencyKey: key,
  }
}

/** The launch's name and worksheet words, as the e-mails read them. */
type Words = { siteName: string; texts: WorksheetTexts }

const wordsOf = (deps: AllocationDeps): Words => ({
  siteName: deps.siteName,
  texts: deps.texts ?? defaultWorksheetTexts,
})

/** The e-mail and the CRM call of a decision. */
export function decisionMessages(
  worksheet: StoredWorksheet,
  outcome: Outcome,
  words: Words,
  at: Date,
): WorksheetMessage[] {
  const body = JSON.stringify({
    type: 'worksheet.decided',
    timestamp: at.toISOString(),
    data: { launch: worksheet.launch, worksheet: worksheet.number, outcome: outcome.kind, ...outcome, kind: undefined },
  })
  return [
    { kind: 'reply', event: 'decided', mail: outcomeMail(worksheet, outcome, words, at) },
    { kind: 'webhook', event: 'decided.webhook', webhook: { id: crypto.randomUUID(), body } },
  ]
}

/** The sentence of a refused allocation. */
function refusal(result: Exclude<AllocationResult, { ok: true }>, lot: string): Decision {
  if (result.reason === 'lot-taken')
    return {
      ok: false,
      status: 409,
      error:
        result.takenBy === null
          ? `${lot} is not available.`
          : `${lot} was just allocated to worksheet ${result.takenBy}.`,
    }
  if (result.reason === 'lot-unknown') return { ok: false, status: 404, error: `There is no ${lot} in the inventory.` }
  return { ok: false, status: 409, error: 'This worksheet was already decided.' }
}

/** Allocates `lot` with `model` to a worksheet of `launch`; refused with who has it when the lot went first. */
export async function allocateLot(
  deps: AllocationDeps,
  launch: string,
  choice: { worksheetId: number; lot: string; model: string },
  by: string,
  known?: { worksheets: readonly StoredWorksheet[]; lots: readonly StoredLot[] },
): Promise<Decision> {
  // `known`: what a caller deciding many at once read (the store still checks each lot is available when it allocates).
  const { worksheets, lots } = known ?? {
    worksheets: await deps.release.listWorksheets(launch),
    lots: await deps.release.listLots(launch),
  }
  const worksheet = worksheets.find((w) => w.id === choice.worksheetId)
  if (!worksheet) return { ok: false, status: 404, error: `There is no such worksheet in ${launch}.` }
  const lot: StoredLot | undefined = lots.find((l) => l.lot === choice.lot)
  if (!lot) return { ok: false, status: 404, error: `There is no ${choice.lot} in the inventory.` }
  if (!lot.models.includes(choice.model))
    return { ok: false, status: 409, error: `${choice.lot} does not take the ${choice.model} model.` }
  const at = deps.clock()
  const outcome: Outcome = { kind: 'allocated', lot: lot.lot, model: choice.model, price: lot.price }
  const messages = decisionMessages(worksheet, outcome, wordsOf(deps), at)
  const result = await deps.release.allocate(choice, by, at.toISOString(), messages)
  return result.ok ? { ok: true } : refusal(result, choice.lot)
}

/** Waitlists or declines a worksheet, with its reason (a decline must say why). */
export async function decideWorksheet(
  deps: AllocationDeps,
  launch: string,
  decision: { worksheetId: number; outcome: 'waitlisted' | 'declined'; reason: string },
  by: string,
  known?: readonly StoredWorksheet[],
): Promise<Decision> {
  const reason = decision.reason.trim()
  if (decision.outcome === 'declined' && reason === '')
    return { ok: false, status: 409, error: 'Say why the worksheet is declined.' }
  const worksheet = (known ?? (await deps.release.listWorksheets(launch))).find((w) => w.id === decision.worksheetId)
  if (!worksheet) return { ok: false, status: 404, error: `There is no such worksheet in ${launch}.` }
  const at = deps.clock()
  const why = reason || wordsOf(deps).texts.waitlistReason
  const messages = decisionMessages(worksheet, { kind: decision.outcome, reason: why }, wordsOf(deps), at)
  const done = await deps.release.decide(worksheet.id, decision.outcome, why, by, at.toISOString(), messages)
  return done ? { ok: true } : { ok: false, status: 409, error: 'This worksheet was already decided.' }
}

/** Confirms "allocate in order"'s proposals one by one; each proposal's outcome, in order. */
export async function confirmProposals(
  deps: AllocationDeps,
  launch: string,
  proposals: readonly Proposal[],
  by: string,
): Promise<Array<{ worksheetId: number } & Decision>> {
  const outcomes: Array<{ worksheetId: number } & Decision> = []
  const known = { worksheets: await deps.release.listWorksheets(launch), lots: await deps.release.listLots(launch) }
  for (const proposal of proposals) {
    const decision =
      'waitlist' in proposal
        ? await decideWorksheet(
            deps,
            launch,
            { worksheetId: proposal.worksheetId, outcome: 'waitlisted', reason: '' },
            by,
            known.worksheets,
          )
        : await allocateLot(deps, launch, proposal, by, known)
    outcomes.push({ worksheetId: proposal.worksheetId, ...decision })
  }
  return outcomes
}
