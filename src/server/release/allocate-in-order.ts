/**
 * "Allocate in order" (issue 45): each worksheet still waiting, in received order, is proposed its highest choice
 * still available (a named lot that fits the model, or for "any lot" the first lot of that model still free), lots
 * proposed to an earlier worksheet counting as taken; a worksheet left with no choice is proposed for the waitlist.
 * A proposal holds nothing: the manager confirms them (allocation.ts), each allocation then checked by the store.
 */
import { compareLots, type StoredLot, type StoredWorksheet } from '../store/release.ts'

/** One proposal: a lot and model for a worksheet (with the rank of the choice it met), or the waitlist. */
export type Proposal =
  | { worksheetId: number; number: number; lot: string; model: string; choice: number; price: number }
  | { worksheetId: number; number: number; waitlist: true }

/** The proposals for a launch's waiting worksheets (outcome received), in received order. O(worksheets × 3 + lots). */
export function allocateInOrder(worksheets: readonly StoredWorksheet[], lots: readonly StoredLot[]): Proposal[] {
  const free = new Map<string, StoredLot>()
  const byModel = new Map<string, StoredLot[]>()
  for (const lot of [...lots].sort((a, b) => compareLots(a.lot, b.lot))) {
    if (lot.status !== 'available') continue
    free.set(lot.lot, lot)
    for (const model of lot.models) {
      const list = byModel.get(model)
      if (list) list.push(lot)
      else byModel.set(model, [lot])
    }
  }
  // For "any lot" of a model: the next lot of its list not yet proposed (taken ones are skipped once, for good).
  const next = new Map<string, number>()
  const firstFree = (model: string): StoredLot | undefined => {
    const list = byModel.get(model) ?? []
    let i = next.get(model) ?? 0
    while (i < list.length && !free.has(list[i]!.lot)) i++
    next.set(model, i)
    return list[i]
  }
  const proposals: Proposal[] = []
  for (const worksheet of [...worksheets].sort((a, b) => a.number - b.number)) {
    if (worksheet.outcome !== 'received') continue
    const met = worksheet.choices
      .map((choice, index) => {
        const lot = choice.lot === null ? firstFree(choice.model) : free.get(choice.lot)
        return lot && lot.models.includes(choice.model) ? { lot, model: choice.model, choice: index + 1 } : undefined
      })
      .find((m) => m !== undefined)
    const base = { worksheetId: worksheet.id, number: worksheet.number }
    if (!met) {
      proposals.push({ ...base, waitlist: true })
      continue
    }
    free.delete(met.lot.lot)
    proposals.push({ ...base, lot: met.lot.lot, model: met.model, choice: met.choice, price: met.lot.price })
  }
  return proposals
}
