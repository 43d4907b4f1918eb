import type { MemberNode, ObjectNode, ValueNode } from '@humanwhocodes/momoa'
import { parseJsonSource, type JsonSource, type Segment } from './json-source.ts'

/**
 * Surgical edits of a JSON text: each changes only the bytes it must, so the author's formatting, key order, line
 * endings, "$comment"s and escapes stay exactly as written. Each takes valid JSON (check with parseJsonSource
 * first) and throws a plain Error when the text or the path is not what it expects.
 */

function sourceOf(text: string): JsonSource {
  const parsed = parseJsonSource(text)
  if ('syntax' in parsed) throw new Error(`not valid JSON: ${parsed.syntax.message}`)
  return parsed.source
}

/** The node at `at`, or undefined when the path goes further than the text. */
export function nodeAt(source: JsonSource, at: Segment[]): ValueNode | undefined {
  let node: ValueNode = source.ast.body
  for (const step of at) {
    if (node.type === 'Object') {
      const member: MemberNode | undefined = node.members.filter((m) => keyOf(m) === String(step)).at(-1)
      if (!member) return undefined
      node = member.value
    } else if (node.type === 'Array') {
      const element = node.elements[Number(step)]
      if (!element) return undefined
      node = element.value
    } else {
      return undefined
    }
  }
  return node
}

function keyOf(member: MemberNode): string {
  return member.name.type === 'String' ? member.name.value : member.name.name
}

function objectAt(source: JsonSource, at: Segment[]): ObjectNode {
  const node = nodeAt(source, at)
  if (node?.type !== 'Object') throw new Error(`${at.length ? at.join('.') : 'the file'} is not a { } group`)
  return node
}

/** The line break the text uses: CRLF when it has any, else LF. */
function lineBreakOf(text: string): string {
  return text.includes('\r\n') ? '\r\n' : '\n'
}

/** The spaces or tabs before position `offset` on its line, when only those precede it; undefined otherwise. */
function indentBefore(text: string, offset: number): string | undefined {
  const lineStart = Math.max(text.lastIndexOf('\n', offset - 1) + 1, 0)
  const lead = text.slice(lineStart, offset)
  return /^[ \t]*$/.test(lead) ? lead : undefined
}

/**
 * The text with `members` ([name, JSON text of the value]) added to the object at `at`: right after its member
 * `after` when there is one, else first. They follow the object's layout: one per line at its members' indent
 * when its members are on lines of their own, else on the same line.
 */
export function insertMembers(text: string, at: Segment[], members: [string, string][], after?: string): string {
  const object = objectAt(sourceOf(text), at)
  const written = members.map(([name, value]) => `${JSON.stringify(name)}: ${value}`)
  if (object.members.length === 0) {
    const inside = object.loc.start.offset + 1
    return `${text.slice(0, inside)} ${written.join(', ')} ${text.slice(inside, object.loc.end.offset - 1).trim()}${text.slice(object.loc.end.offset - 1)}`
  }
  const first = object.members[0]!
  const indent = indentBefore(text, first.loc.start.offset)
  const separator = indent === undefined ? ' ' : `${lineBreakOf(text)}${indent}`
  const anchor = after === undefined ? undefined : object.members.filter((m) => keyOf(m) === after).at(-1)
  if (!anchor) {
    const position = object.loc.start.offset + 1
    return text.slice(0, position) + written.map((member) => `${separator}${member},`).join('') + text.slice(position)
  }
  if (anchor === object.members.at(-1)) {
    const position = anchor.loc.end.offset
    return text.slice(0, position) + written.map((member) => `,${separator}${member}`).join('') + text.slice(position)
  }
  // Between a member and the next one there is only white space and the comma.
  const position = text.indexOf(',', anchor.loc.end.offset) + 1
  return text.slice(0, position) + written.map((member) => `${separator}${member},`).join('') + text.slice(position)
}

/**
 * The text without the member `name` of the object at `at` (and the comma that separated it); unchanged when absent.
 */
export function removeMember(text: string, at: Segment[], name: string): string {
  const object = objectAt(sourceOf(text), at)
  const index = object.members.findIndex((m) => keyOf(m) === name)
  if (index === -1) return text
  const member = object.members[index]!
  const next = object.members[index + 1]
  const previous = object.members[index - 1]
  // Keep the layout of what remains: cut up to the next member, or back to the end of the one before.
  if (next) return text.slice(0, member.loc.start.offset) + text.slice(next.loc.start.offset)
  if (previous) return text.slice(0, previous.loc.end.offset) + text.slice(member.loc.end.offset)
  return text.slice(0, object.loc.start.offset + 1) + text.slice(object.loc.end.offset - 1)
}

/** The text with the value at `at` replaced by `value` (JSON text); throws when there is no value there. */
export function replaceValue(text: string, at: Segment[], value: string): string {
  const node = nodeAt(sourceOf(text), at)
  if (!node) throw new Error(`there is no ${at.join('.')}`)
  return text.slice(0, node.loc.start.offset) + value + text.slice(node.loc.end.offset)
}

/**
 * The text with every text value (not names) that `change` gives a new value for rewritten; `change` returns
 * undefined to keep one. Values it keeps stay byte for byte.
 */
export function replaceStrings(text: string, change: (value: string, at: Segment[]) => string | undefined): string {
  const edits: { start: number; end: number; value: string }[] = []
  const visit = (node: ValueNode, at: Segment[]): void => {
    if (node.type === 'Object') for (const member of node.members) visit(member.value, [...at, keyOf(member)])
    else if (node.type === 'Array') node.elements.forEach((element, i) => visit(element.value, [...at, i]))
    else if (node.type === 'String') {
      const value = change(node.value, at)
      if (value !== undefined && value !== node.value)
        edits.push({ start: node.loc.start.offset, end: node.loc.end.offset, value })
    }
  }
  visit(sourceOf(text).ast.body, [])
  let out = text
  for (const edit of edits.reverse()) out = out.slice(0, edit.start) + JSON.stringify(edit.value) + out.slice(edit.end)
  return out
}
