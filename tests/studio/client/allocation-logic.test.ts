import { describe, expect, it } from 'vitest'
import type { BoardLot, BoardWorksheet } from '../../../src/studio/protocol.ts'
import { choicesNow, outcomeWords } from '../../../src/studio/client/allocation/availability.ts'
import { hrefOf, routeOf } from '../../../src/studio/client/routes.ts'
import { countLeft } from '../../../src/ui/left-counts.ts'

// The Allocation page's own logic (issue 45): its address, which choices are still available, and a card's count.

const lot = (id: string, models: string[], status: BoardLot['status'] = 'available'): BoardLot => ({
  lot: id,
  release: null,
  models,
  frontage: null,
  price: 899900,
  status,
  worksheetId: null,
})
const sheet = (choices: BoardWorksheet['choices']): BoardWorksheet => ({
  id: 7,
  number: 3,
  receivedAt: '2026-11-28T10:00:00.000Z',
  realtorEmail: 'r@example.com',
  clientName: 'Cy',
  choices,
  outcome: 'received',
  allocatedLot: null,
  allocatedModel: null,
  reason: null,
})

describe('the Allocation page', () => {
  it("has an address of its own under the launch's, read back as the same place", () => {
    const route = { view: 'allocation', slug: 'maple-ridge' } as const
    expect(hrefOf(route)).toBe('/studio/launches/maple-ridge/allocation')
    expect(routeOf('/studio/launches/maple-ridge/allocation')).toEqual(route)
    expect(routeOf('/studio/launches/maple-ridge')).toEqual({ view: 'launch', slug: 'maple-ridge' })
  })

  it('says which choices are still available: a named lot that takes the model, or the first free lot of it', () => {
    const lots = [lot('Lot 10', ['Birch']), lot('Lot 2', ['Birch']), lot('Lot 14', ['Maple'], 'allocated')]
    const choices = choicesNow(
      sheet([
        { lot: 'Lot 14', model: 'Maple' },
        { lot: 'Lot 2', model: 'Maple' },
        { lot: null, model: 'Birch' },
      ]),
      lots,
    )
    expect(choices.map((c) => c.lot)).toEqual([undefined, undefined, 'Lot 2'])
    expect(outcomeWords({ ...sheet([]), outcome: 'declined', reason: 'No deposit.' })).toBe('Declined: No deposit.')
  })
})

describe('countLeft', () => {
  it('counts each lot left once, however many of the card models it takes', () => {
    const answer = { left: {}, available: [['Maple', 'Birch'], ['Maple'], ['Oak']], inventory: true }
    expect(countLeft(answer, ['Maple', 'Birch'])).toBe(2)
    expect(countLeft(answer, ['Birch'])).toBe(1)
    expect(countLeft(answer, ['Elm'])).toBe(0)
  })
})
