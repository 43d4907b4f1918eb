import type { Segment, Span } from './json-source.ts'

/** Something wrong in a config, before it is given a line and column: the path, and plain words. */
export type Finding = {
  /** The JSON path the finding is about. */
  at: Segment[]
  /** Point at the property name rather than its value (unknown or repeated names). */
  onKey?: boolean
  /** An exact place, when the path alone cannot give it. */
  span?: Span
  /** What is wrong. */
  message: string
  /** What to do about it. */
  fix: string
}

/** A path as an editor reads it: sections[3].type, seo.jsonLd["@type"]; "the file" for the whole. */
export function describePath(at: Segment[]): string {
  if (at.length === 0) return 'the file'
  let out = ''
  for (const step of at) {
    if (typeof step === 'number') out += `[${step}]`
    else if (/^[A-Za-z_$][\w$]*$/.test(step)) out += out === '' ? step : `.${step}`
    else out += `[${JSON.stringify(step)}]`
  }
  return out
}

/** A value quoted for a message: 'text' in single quotes, others as JSON, long ones cut. */
export function describeValue(value: unknown): string {
  if (typeof value === 'string') return `'${value.length > 60 ? `${value.slice(0, 57)}…` : value}'`
  if (Array.isArray(value)) return 'a list [ … ]'
  if (typeof value === 'object' && value !== null) return 'a group { … }'
  return String(value)
}

/** The value at a path of parsed data, or undefined. */
export function valueAt(data: unknown, at: Segment[]): unknown {
  let value = data
  for (const step of at) {
    if (typeof value !== 'object' || value === null) return undefined
    value = (value as Record<string, unknown>)[String(step)]
  }
  return value
}

/** The candidate closest to `word` when it is plausibly a typo of it (case, a letter or two, a swap). */
export function closest(word: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined
  let bestDistance = Infinity
  for (const candidate of candidates) {
    const a = word.toLowerCase()
    const b = candidate.toLowerCase()
    const distance = editDistance(a, b)
    const allowed = candidate.length <= 4 ? 1 : candidate.length <= 8 ? 2 : 3
    // "darker" for "dark", "home" for "homes": one is the other with a few letters added.
    const extended = Math.min(a.length, b.length) >= 3 && (a.startsWith(b) || b.startsWith(a))
    if ((distance <= allowed || extended) && distance < bestDistance) {
      best = candidate
      bestDistance = distance
    }
  }
  return best
}

// Optimal-string-alignment distance: like Levenshtein, but a swap of two neighbours ("emial") counts as one.
function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  )
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      const row = d[i]!
      row[j] = Math.min(d[i - 1]![j]! + 1, row[j - 1]! + 1, d[i - 1]![j - 1]! + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        row[j] = Math.min(row[j]!, d[i - 2]![j - 2]! + 1)
      }
    }
  }
  return d[a.length]![b.length]!
}

/** "a, b and c". */
export function listWords(words: readonly string[]): string {
  if (words.length <= 1) return words.join('')
  return `${words.slice(0, -1).join(', ')} and ${words.at(-1)}`
}
