// A worksheet's messages are composed before the store has numbered it when the numbering happens out of the
// composer's reach (PostgreSQL: inside the group's one statement; SQLite: on the writer thread): they are composed
// from the worksheet with two marks as its id and number, random numbers of this process no one can type, and the store
// writes the real id and number over them in the same transaction.
import type { NewWorksheet, StoredWorksheet } from './release.ts'

/** A random whole number of `digits` digits (safe as a JavaScript number up to 15). */
function randomMark(digits: number): number {
  const [value] = crypto.getRandomValues(new BigUint64Array(1))
  const low = 10n ** BigInt(digits - 1)
  return Number(low + (value! % (9n * low)))
}

/** The marks of this process: neither is part of the other, so each is written over alone. */
function marksOf(): { id: number; number: number } {
  for (;;) {
    const id = randomMark(15)
    const number = randomMark(14)
    if (!String(id).includes(String(number))) return { id, number }
  }
}

/**
 * The id's and the number's marks. A compose function must write the id and number as their digits (String(n), JSON),
 * as receivedMessages does, for the store to find them.
 */
export const worksheetMarks = marksOf()

/** The worksheet as stored, with `given` as its id and number (the marks, until the store knows them). */
export function storedWorksheetOf(
  worksheet: NewWorksheet,
  given: { id: number; number: number } = worksheetMarks,
): StoredWorksheet {
  return {
    ...worksheet,
    id: given.id,
    number: given.number,
    outcome: 'received',
    allocatedLot: null,
    allocatedModel: null,
    reason: null,
    decidedAt: null,
    decidedBy: null,
  }
}
