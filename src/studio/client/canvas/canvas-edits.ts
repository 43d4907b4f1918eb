import type { ArrayNode } from '@humanwhocodes/momoa'
import { insertMembers, nodeAt, replaceValue } from '../../../config/json-edit.ts'
import { parseJsonSource, type Segment } from '../../../config/json-source.ts'

// The canvas's changes of page.config.json as text: each keeps every byte it does not have to change (the sections
// keep their own layout when they move), so the code view, History's diff and the file show only what was done.

function sectionsNode(text: string): ArrayNode {
  const parsed = parseJsonSource(text)
  if ('syntax' in parsed) throw new Error(`the text is not valid JSON: ${parsed.syntax.message}`)
  const node = nodeAt(parsed.source, ['sections'])
  if (node?.type !== 'Array') throw new Error('the text has no "sections" list')
  return node
}

type Spans = { starts: number[]; ends: number[]; separator: string; indent: string }

function spansOf(text: string, node: ArrayNode): Spans {
  const starts = node.elements.map((e) => e.value.loc.start.offset)
  const ends = node.elements.map((e) => e.value.loc.end.offset)
  const first = starts[0] ?? node.loc.start.offset + 1
  const separator = starts.length > 1 ? text.slice(ends[0], starts[1]) : `,\n${' '.repeat(4)}`
  const lineStart = text.lastIndexOf('\n', first - 1) + 1
  return { starts, ends, separator, indent: text.slice(lineStart, first).replace(/\S.*$/s, () => '') }
}

/** The text with the sections in the order `order` (indices of the old order), each written as it was. */
function withOrder(text: string, order: (number | string)[]): string {
  const node = sectionsNode(text)
  const { starts, ends, separator } = spansOf(text, node)
  const pieces = order.map((i) => (typeof i === 'number' ? text.slice(starts[i], ends[i]) : i))
  if (!starts.length) return text
  return text.slice(0, starts[0]) + pieces.join(separator) + text.slice(ends.at(-1))
}

/** The number of sections in the text. */
export function sectionCount(text: string): number {
  return sectionsNode(text).elements.length
}

/** The text with section `from` moved to index `to` (the others keep their order). */
export function moveSection(text: string, from: number, to: number): string {
  const order = [...Array(sectionCount(text)).keys()]
  if (from < 0 || from >= order.length || to < 0 || to >= order.length || from === to) return text
  order.splice(to, 0, ...order.splice(from, 1))
  return withOrder(text, order)
}

/** The text with a copy of section `index` right after it. */
export function duplicateSection(text: string, index: number): string {
  const order: number[] = [...Array(sectionCount(text)).keys()]
  return withOrder(text, [...order.slice(0, index + 1), index, ...order.slice(index + 1)])
}

/** The text without section `index`. */
export function deleteSection(text: string, index: number): string {
  const order = [...Array(sectionCount(text)).keys()]
  if (order.length <= 1) throw new Error('a page keeps at least one section')
  return withOrder(
    text,
    order.filter((i) => i !== index),
  )
}

/** The text with `section` (a value) inserted at `index`, written in the layout of the sections around it. */
export function insertSection(text: string, index: number, section: unknown): string {
  const node = sectionsNode(text)
  const { indent } = spansOf(text, node)
  const lineBreak = text.includes('\r\n') ? '\r\n' : '\n'
  const written = JSON.stringify(section, null, 2)
    .split('\n')
    .join(lineBreak + indent)
  const order: (number | string)[] = [...Array(node.elements.length).keys()]
  order.splice(Math.min(Math.max(0, index), order.length), 0, written)
  return withOrder(text, order)
}

/** The text with `value` (JSON text) at `path`, adding the groups on the way that are not written yet. */
export function setValueAt(text: string, path: Segment[], value: string): string {
  const parsed = parseJsonSource(text)
  if ('syntax' in parsed) throw new Error(`the text is not valid JSON: ${parsed.syntax.message}`)
  if (nodeAt(parsed.source, path)) return replaceValue(text, path, value)
  let depth = path.length - 1
  while (depth > 0 && !nodeAt(parsed.source, path.slice(0, depth))) depth--
  const rest = path.slice(depth + 1)
  const nested = rest.reduceRight<string>((inner, key) => `{ ${JSON.stringify(String(key))}: ${inner} }`, value)
  const holder = nodeAt(parsed.source, path.slice(0, depth))
  if (holder?.type !== 'Object') throw new Error(`${path.slice(0, depth).join('.')} is not a { } group`)
  const last = holder.members.at(-1)
  const after = last ? (last.name.type === 'String' ? last.name.value : last.name.name) : undefined
  return insertMembers(text, path.slice(0, depth), [[String(path[depth]), nested]], after)
}
