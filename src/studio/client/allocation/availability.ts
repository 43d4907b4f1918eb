import type { BoardLot, BoardWorksheet } from '../../protocol.ts'

// Which of a worksheet's choices can still be met, read from the board's lots (the server checks again on allocate).

/** A worksheet's choice with the lot that would meet it now; `lot` undefined when none is available. */
export type ChoiceNow = { index: number; model: string; named: string | null; lot: string | undefined }

/** Lot ids in the order a person reads them: "Lot 2" before "Lot 10". */
const byLot = (a: BoardLot, b: BoardLot) => a.lot.localeCompare(b.lot, 'en', { numeric: true, sensitivity: 'base' })

/** Each choice of `worksheet` with the available lot that meets it (a named lot, or any lot of the model). */
export function choicesNow(worksheet: BoardWorksheet, lots: readonly BoardLot[]): ChoiceNow[] {
  const available = lots.filter((l) => l.status === 'available').sort(byLot)
  return worksheet.choices.map((choice, index) => {
    const lot =
      choice.lot === null
        ? available.find((l) => l.models.includes(choice.model))
        : available.find((l) => l.lot === choice.lot && l.models.includes(choice.model))
    return { index, model: choice.model, named: choice.lot, lot: lot?.lot }
  })
}

/** A choice in words: "Lot 14, Maple" or "Any lot, Maple". */
export function choiceWords(choice: Pick<ChoiceNow, 'named' | 'model'>): string {
  return `${choice.named ?? 'Any lot'}, ${choice.model}`
}

/** A price as the sales team reads it: "$899,900". */
export function dollars(price: number): string {
  return `$${price.toLocaleString('en-CA')}`
}

/** A worksheet's outcome in words. */
export function outcomeWords(worksheet: BoardWorksheet): string {
  if (worksheet.outcome === 'allocated') return `Allocated: ${worksheet.allocatedLot} (${worksheet.allocatedModel})`
  if (worksheet.outcome === 'waitlisted') return `Waitlisted: ${worksheet.reason ?? ''}`
  if (worksheet.outcome === 'declined') return `Declined: ${worksheet.reason ?? ''}`
  return 'Waiting'
}
