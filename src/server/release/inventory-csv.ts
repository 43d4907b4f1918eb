/**
 * The price list's checker (issue 45): a builder's CSV (or a spreadsheet saved as CSV) read into lots, each problem
 * named by its line (the header is line 1) and its column (as the header writes it). The header names its columns in
 * any case and any order: `lot` (or `unit`, `suite`), `models`, `price`, and optionally `release`, `frontage`,
 * `status`; other columns are left alone. A row with a problem is refused alone; the others stand.
 */
import { parse, CsvError } from 'csv-parse/sync'
import { lotStatuses, type LotInput, type LotStatus } from '../store/release.ts'

/** One problem of the file: where, and what to change. */
export type CsvProblem = { line: number; column: string | null; message: string }

/** The file read: the lots that passed, and the problems of the rows refused (or of the whole file). */
export type CheckedInventory = { lots: LotInput[]; problems: CsvProblem[]; rows: number }

type Field = 'lot' | 'models' | 'price' | 'release' | 'frontage' | 'status'

// What a header may call each column (compared trimmed, in lower case).
const names: Record<Field, readonly string[]> = {
  lot: ['lot', 'unit', 'suite'],
  models: ['models'],
  price: ['price'],
  release: ['release'],
  frontage: ['frontage'],
  status: ['status'],
}
const required: readonly Field[] = ['lot', 'models', 'price']

type Record_ = { record: string[]; info: { lines: number; raw?: string } }

/** Reads a price list; never throws on bad input: everything wrong comes back as a problem with its line. */
export function checkInventoryCsv(text: string): CheckedInventory {
  let records: Record_[]
  try {
    records = parse(text, {
      bom: true,
      info: true,
      raw: true,
      relax_column_count: true,
      skip_empty_lines: true,
    }) as unknown as Record_[]
  } catch (error) {
    if (!(error instanceof CsvError)) throw error
    const line = (error as CsvError & { lines?: number }).lines ?? 1
    return {
      lots: [],
      rows: 0,
      problems: [{ line, column: null, message: `The file cannot be read as CSV: ${error.message}` }],
    }
  }
  const [header, ...rows] = records
  if (!header) return { lots: [], rows: 0, problems: [{ line: 1, column: null, message: 'The file is empty.' }] }
  const columns = columnsOf(header.record)
  if ('problem' in columns) return { lots: [], rows: rows.length, problems: [columns.problem] }
  const lots: LotInput[] = []
  const problems: CsvProblem[] = []
  const seen = new Map<string, number>()
  for (const row of rows) {
    const line = firstLineOf(row)
    const checked = checkRow(row.record, columns, line)
    if ('problem' in checked) {
      problems.push(checked.problem)
      continue
    }
    const key = checked.lot.lot.toLowerCase()
    const earlier = seen.get(key)
    if (earlier !== undefined) {
      problems.push({
        line,
        column: columns.lot.name,
        message: `${checked.lot.lot} is already on line ${earlier}: each lot once.`,
      })
      continue
    }
    seen.set(key, line)
    lots.push(checked.lot)
  }
  return { lots, problems, rows: rows.length }
}

/** A record's first line: the line it ends on, less the line breaks inside it (a quoted field may hold some). */
function firstLineOf(row: Record_): number {
  // raw holds the empty lines skipped before the record, and the record's own line break at its end.
  const inside =
    (row.info.raw ?? '')
      .replace(/^(?:\r?\n)+/, '')
      .replace(/\r?\n$/, '')
      .split('\n').length - 1
  return row.info.lines - inside
}

type Columns = Record<Field, { index: number; name: string } | undefined> & {
  lot: { index: number; name: string }
  models: { index: number; name: string }
  price: { index: number; name: string }
}

/** Where each column is, or the header's problem (a required column missing, or named twice). */
function columnsOf(header: string[]): Columns | { problem: CsvProblem } {
  const found: Partial<Record<Field, { index: number; name: string }>> = {}
  for (const [index, raw] of header.entries()) {
    const name = raw.trim()
    const field = (Object.keys(names) as Field[]).find((f) => names[f].includes(name.toLowerCase()))
    if (!field) continue
    const before = found[field]
    if (before)
      return {
        problem: { line: 1, column: name, message: `Two columns name the ${field}: ${before.name} and ${name}.` },
      }
    found[field] = { index, name }
  }
  const missing = required.filter((f) => !found[f])
  if (missing.length > 0)
    return {
      problem: {
        line: 1,
        column: null,
        message: `The header has no ${missing.map((f) => (f === 'lot' ? 'lot (or unit, suite)' : f)).join(', ')} column: the first line names the columns, e.g. lot,models,price,release,frontage,status.`,
      },
    }
  return found as Columns
}

/** One row checked: its lot, or its first problem. */
function checkRow(record: string[], columns: Columns, line: number): { lot: LotInput } | { problem: CsvProblem } {
  const cell = (field: Field) => {
    const column = columns[field]
    return column ? (record[column.index] ?? '').trim() : ''
  }
  const problem = (field: Field, message: string) => ({ problem: { line, column: columns[field]!.name, message } })
  const lot = cell('lot')
  if (lot === '') return problem('lot', 'The lot is empty: each row names its lot, e.g. Lot 14 or 1204.')
  const models = cell('models')
    .split(/[|;]/)
    .map((m) => m.trim())
    .filter((m) => m !== '')
  if (models.length === 0)
    return problem('models', `${lot} has no model: name the models that fit it, separated by | or ; (Maple|Birch).`)
  const price = priceOf(cell('price'))
  if (price === undefined)
    return problem('price', `"${cell('price')}" is not a price: write it in whole dollars, as 899900 or $899,900.`)
  const status = (cell('status').toLowerCase() || 'available') as LotStatus
  if (!lotStatuses.includes(status))
    return problem('status', `"${cell('status')}" is not a status: write available, held, allocated or sold.`)
  return {
    lot: {
      lot,
      release: cell('release') || null,
      models,
      frontage: cell('frontage') || null,
      price,
      status,
    },
  }
}

/** A price in whole dollars from "899900", "$899,900" or "$899,900.00"; undefined when it is not one. */
export function priceOf(text: string): number | undefined {
  const match = /^\$?\s*(\d{1,3}(?:,\d{3})+|\d+)(?:\.00?)?$/.exec(text.trim())
  if (!match) return undefined
  const value = Number(match[1]!.split(',').join(''))
  return Number.isSafeInteger(value) ? value : undefined
}
