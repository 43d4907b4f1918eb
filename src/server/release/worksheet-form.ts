/**
 * The worksheet form's fields (issue 45): what the realtor may choose (the lots still available with each of their
 * models, and "any lot" of each model), the posted values as typed, and their check. A refused form keeps every value
 * as typed; a checked one is the worksheet to store. Web-standard only.
 */
import { fillWorksheetText, type WorksheetTexts } from '../../../schema/worksheets.ts'
import { compareLots, type LotModels, type WorksheetChoice } from '../store/release.ts'

/** The form's fields, by name. */
export const worksheetFields = [
  'clientName',
  'clientEmail',
  'clientPhone',
  'choice1',
  'choice2',
  'choice3',
  'deposit',
  'notes',
] as const

/** One of the form's fields. */
export type WorksheetField = (typeof worksheetFields)[number]

/** The values of a posted form, as typed (a choice is an option's value). */
export type WorksheetValues = Record<Exclude<WorksheetField, 'deposit'>, string> & { deposit: boolean }

/** A message under each field that was refused. */
export type WorksheetErrors = Partial<Record<WorksheetField, string>>

/** One option of a choice's select: its value, its words, and the choice it stands for. */
export type ChoiceOption = { value: string; label: string; choice: WorksheetChoice }

const limits = { clientName: 200, clientEmail: 254, clientPhone: 40, notes: 2000 } as const

/** A choice's option value: its lot and model as a query string ("lot=Lot+14&model=Maple"; any lot: "model=Maple"). */
export function choiceValue(choice: WorksheetChoice): string {
  return new URLSearchParams(
    choice.lot === null ? { model: choice.model } : { lot: choice.lot, model: choice.model },
  ).toString()
}

/** The choices the form offers: each available lot with each of its models, then any lot of each model left. */
export function choiceOptions(lots: readonly LotModels[], texts: WorksheetTexts): ChoiceOption[] {
  const available = lots.filter((lot) => lot.status === 'available').sort((a, b) => compareLots(a.lot, b.lot))
  const named = available.flatMap((lot) => lot.models.map((model) => ({ lot: lot.lot, model })))
  const models = [...new Set(available.flatMap((lot) => lot.models))].sort((a, b) => a.localeCompare(b, 'en'))
  return [
    ...named.map((choice) => ({
      value: choiceValue(choice),
      label: fillWorksheetText(texts.lotOption, { lot: choice.lot, model: choice.model }),
      choice,
    })),
    ...models.map((model) => ({
      value: choiceValue({ lot: null, model }),
      label: fillWorksheetText(texts.anyLotOption, { model }),
      choice: { lot: null, model },
    })),
  ]
}

/** The form's values from a posted body (anything missing is empty; a file is not a value). */
export function worksheetValuesOf(body: Record<string, unknown>): WorksheetValues {
  const text = (name: string) => (typeof body[name] === 'string' ? body[name] : '')
  return {
    clientName: text('clientName'),
    clientEmail: text('clientEmail'),
    clientPhone: text('clientPhone'),
    choice1: text('choice1'),
    choice2: text('choice2'),
    choice3: text('choice3'),
    deposit: text('deposit') !== '',
    notes: text('notes'),
  }
}

/** An e-mail address as the worksheet pages take one: something@domain.tld, no spaces, brackets or quotes. */
export const emailPattern = /^[^\s@<>()[\]\\,;:"]+@[^\s@<>()[\]\\,;:"]+\.[^\s@<>()[\]\\,;:"]+$/

/** What a checked form gives: the worksheet's client and choices, or a message for each refused field. */
export type CheckedWorksheet =
  | {
      ok: true
      worksheet: { clientName: string; clientEmail: string; clientPhone: string; notes: string }
      choices: WorksheetChoice[]
    }
  | { ok: false; errors: WorksheetErrors }

/** Checks the values against the options offered now (a lot allocated meanwhile is refused under its choice). */
export function checkWorksheetValues(
  values: WorksheetValues,
  options: readonly ChoiceOption[],
  texts: WorksheetTexts,
): CheckedWorksheet {
  const errors: WorksheetErrors = {}
  const clientName = values.clientName.trim()
  const clientEmail = values.clientEmail.trim()
  const clientPhone = values.clientPhone.trim()
  const notes = values.notes.trim()
  if (clientName === '' || clientName.length > limits.clientName || /[\p{Cc}]/u.test(clientName))
    errors.clientName = texts.nameRequired
  if (clientEmail.length > limits.clientEmail || !emailPattern.test(clientEmail))
    errors.clientEmail = texts.emailInvalid
  const digits = clientPhone.replace(/\D/g, '').length
  if (clientPhone !== '' && (digits < 10 || digits > 15 || clientPhone.length > limits.clientPhone))
    errors.clientPhone = texts.phoneInvalid
  const choices: WorksheetChoice[] = []
  const seen = new Set<string>()
  for (const field of ['choice1', 'choice2', 'choice3'] as const) {
    const value = values[field]
    if (value === '') continue
    const option = options.find((o) => o.value === value)
    if (!option) errors[field] = texts.choiceUnavailable
    else if (seen.has(value)) errors[field] = texts.choiceRepeated
    else choices.push(option.choice)
    seen.add(value)
  }
  if (values.choice1 === '' && !errors.choice1) errors.choice1 = texts.choiceRequired
  if (!values.deposit) errors.deposit = texts.depositRequired
  if (values.notes.length > limits.notes) errors.notes = texts.failed
  if (Object.keys(errors).length > 0) return { ok: false, errors }
  return { ok: true, worksheet: { clientName, clientEmail, clientPhone, notes }, choices }
}

/** How long each field may be in the form (its maxlength). */
export const worksheetLimits = limits
