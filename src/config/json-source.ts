import { parse, tokenize, type DocumentNode, type Token, type ValueNode } from '@humanwhocodes/momoa'

/** One step of a path into a JSON document: an object key or an array index. */
export type Segment = string | number

/** A place in the text: 1-based line and column, 0-based offset. */
export type Position = { line: number; column: number; offset: number }

/** A stretch of the text, as momoa reports node locations. */
export type Span = { start: Position; end: Position }

/** A JSON text with its momoa syntax tree, for finding where a path is written. */
export type JsonSource = { text: string; lines: string[]; ast: DocumentNode }

/** A JSON syntax error in plain words: where, what is wrong, what to do. */
export type SyntaxProblem = { span: Span; message: string; fix: string }

/** Parses JSON text into a source with positions, or explains the first syntax error. */
export function parseJsonSource(text: string): { source: JsonSource } | { syntax: SyntaxProblem } {
  try {
    const ast = parse(text, { mode: 'json' })
    // momoa accepts raw line breaks and tabs inside strings; JSON.parse (what every caller uses) does not.
    JSON.parse(text)
    return { source: { text, lines: text.split(/\r?\n/), ast } }
  } catch (error) {
    return { syntax: explainSyntaxError(text, error) }
  }
}

/**
 * Where `path` is written. `onKey` points at the property name instead of its value. When the path goes
 * further than the text (a missing property), the deepest part that exists is returned, with found = false.
 */
export function locate(source: JsonSource, path: Segment[], onKey = false): { span: Span; found: boolean } {
  let node: ValueNode = source.ast.body
  let span: Span = node.loc
  for (let i = 0; i < path.length; i++) {
    const step = path[i]
    if (node.type === 'Object') {
      // A repeated key: JSON.parse keeps the last one, so the last one is what a message is about.
      const member = node.members.filter((m) => m.name.type === 'String' && m.name.value === String(step)).at(-1)
      if (!member) return { span, found: false }
      node = member.value
      span = onKey && i === path.length - 1 ? member.name.loc : node.loc
    } else if (node.type === 'Array') {
      const element = node.elements[Number(step)]
      if (!element) return { span, found: false }
      node = element.value
      span = node.loc
    } else {
      return { span, found: false }
    }
  }
  return { span, found: true }
}

/** Every property name written more than once in the same object, at its later occurrences. */
export function findDuplicateKeys(source: JsonSource): { path: Segment[]; key: string; first: Span; again: Span }[] {
  const found: { path: Segment[]; key: string; first: Span; again: Span }[] = []
  const visit = (node: ValueNode, path: Segment[]): void => {
    if (node.type === 'Object') {
      const seen = new Map<string, Span>()
      for (const member of node.members) {
        const key = member.name.type === 'String' ? member.name.value : member.name.name
        const first = seen.get(key)
        if (first) found.push({ path, key, first, again: member.name.loc })
        else seen.set(key, member.name.loc)
        visit(member.value, [...path, key])
      }
    } else if (node.type === 'Array') {
      node.elements.forEach((element, i) => visit(element.value, [...path, i]))
    }
  }
  visit(source.ast.body, [])
  return found
}

/** A few lines around `span`, numbered, with the spot marked by "^" (long lines are cut around it). */
export function excerpt(lines: string[], span: Span): string {
  const { line, column } = span.start
  const endColumn = span.end.line === line ? span.end.column : (lines[line - 1] ?? '').length + 1
  const first = Math.max(1, line - 1)
  // The empty "line" after a final newline is not worth showing.
  const count = lines.at(-1) === '' ? lines.length - 1 : lines.length
  const last = Math.max(line, Math.min(count, line + 1))
  const width = String(last).length
  // Keep about 100 characters on screen: cut long lines from a little before the spot.
  const from = column > 60 ? column - 41 : 0
  const clip = (text: string): string => {
    const part = text.slice(from, from + 100)
    return `${from > 0 ? '…' : ''}${part}${text.length > from + 100 ? '…' : ''}`
  }
  const out: string[] = []
  for (let n = first; n <= last; n++) {
    const text = lines[n - 1] ?? ''
    out.push(`${n === line ? '>' : ' '} ${String(n).padStart(width)} | ${clip(text)}`.trimEnd())
    if (n === line) {
      const caretCount = Math.max(1, Math.min(endColumn - column, from + 100 - (column - 1)))
      const lead = column - 1 - from + (from > 0 ? 1 : 0)
      out.push(`  ${' '.repeat(width)} | ${' '.repeat(Math.max(0, lead))}${'^'.repeat(caretCount)}`)
    }
  }
  return out.join('\n')
}

// The position of a 0-based offset in the text.
function positionAt(text: string, offset: number): Position {
  const before = text.slice(0, offset).split(/\r?\n/)
  return { line: before.length, column: (before.at(-1) ?? '').length + 1, offset }
}

function pointSpan(text: string, offset: number): Span {
  const start = positionAt(text, offset)
  return { start, end: { ...start, column: start.column + 1, offset: offset + 1 } }
}

const bracketName: Record<string, string> = { LBrace: '{', LBracket: '[', RBrace: '}', RBracket: ']' }

/** Where the parser stopped: the character there, the last one written before it, and a one-character span. */
type Stop = { text: string; offset: number; ch: string; prev: string; prevOffset: number; at: Span }

/** Turns a parser error into a place and a likely cause a person can act on. */
function explainSyntaxError(text: string, error: unknown): SyntaxProblem {
  if (text.trim() === '') {
    return {
      span: pointSpan(text, 0),
      message: 'The file is empty.',
      fix: 'Put the page configuration in it: a JSON object that starts with { and ends with }.',
    }
  }
  const { offset, fromMomoa } = errorOffset(error)
  const ch = text[offset] ?? ''
  const before = text.slice(0, offset).trimEnd()
  const stop: Stop = {
    text,
    offset,
    ch,
    prev: before.at(-1) ?? '',
    prevOffset: before.length - 1,
    at: pointSpan(text, Math.min(offset, Math.max(0, text.length - 1))),
  }
  if (!fromMomoa) {
    return {
      span: stop.at,
      message: 'A text value contains a line break or a tab, which JSON does not allow inside quotes.',
      fix: 'Keep the text on one line (write \\n for a line break), and close it with " on the same line.',
    }
  }
  // momoa reports a file cut off after "," or ":" at that character rather than at the end.
  const endsEarly = offset >= text.length || ((ch === ',' || ch === ':') && text.slice(offset + 1).trim() === '')
  if (endsEarly) return explainEarlyEnd(stop)
  return explainBracket(stop) ?? explainPunctuation(stop) ?? explainBareWord(stop) ?? explainUnexpected(stop)
}

/** The file ends before every text, { and [ is closed. */
function explainEarlyEnd({ text, at }: Stop): SyntaxProblem {
  const unclosed = openBracketBefore(text, text.length)
  if (unclosed === 'unclosed-string') {
    return {
      span: at,
      message: 'The file ends inside a text value: a closing " is missing.',
      fix: 'Find the text that is not closed with " and close it.',
    }
  }
  return {
    span: unclosed ? unclosed.loc : at,
    message: unclosed
      ? `The ${bracketName[unclosed.type]} opened here is never closed: the file ends too early.`
      : 'The file ends too early.',
    fix: unclosed
      ? `Add the missing ${unclosed.type === 'LBrace' ? '}' : ']'} where this part should end (and check nothing was cut off).`
      : 'Check that the end of the file was not cut off.',
  }
}

/** A } or ] after a comma, closing the wrong bracket, or with no value before it. */
function explainBracket({ text, offset, ch, prev, prevOffset, at }: Stop): SyntaxProblem | undefined {
  if (ch !== '}' && ch !== ']') return undefined
  if (prev === ',') {
    return {
      span: pointSpan(text, prevOffset),
      message: `There is a comma right before "${ch}": JSON does not allow a comma after the last item.`,
      fix: 'Delete this comma.',
    }
  }
  const unclosed = openBracketBefore(text, offset)
  const expected = unclosed && unclosed !== 'unclosed-string' ? (unclosed.type === 'LBrace' ? '}' : ']') : undefined
  if (expected && expected !== ch) {
    return {
      span: at,
      message: `This "${ch}" does not match the "${bracketName[(unclosed as Token).type]}" opened at line ${(unclosed as Token).loc.start.line}.`,
      fix: `Close it with "${expected}" instead, or add the missing "${ch === '}' ? '{' : '['}" earlier.`,
    }
  }
  return {
    span: at,
    message: `A value is missing before "${ch}".`,
    fix: 'Write the value, or remove the ":" or "," before it.',
  }
}

/** Single quotes, a comment, or a comma with nothing before it. */
function explainPunctuation({ ch, prev, at }: Stop): SyntaxProblem | undefined {
  if (ch === "'") {
    return {
      span: at,
      message: "Single quotes (') are used; JSON needs double quotes.",
      fix: 'Write names and text values in double quotes: "like this".',
    }
  }
  if (ch === '/') {
    return {
      span: at,
      message: 'JSON does not allow comments (// or /* */).',
      fix: 'Delete the comment. To leave a note, use a "description"-like text field, or keep notes outside the file.',
    }
  }
  if (ch === ',' && (prev === ',' || prev === '[' || prev === '{' || prev === ':')) {
    return {
      span: at,
      message: 'There is a comma with nothing before it.',
      fix: 'Delete this comma, or write the missing value before it.',
    }
  }
  return undefined
}

/** A name or a value written without quotes, or a comma missing between two items. */
function explainBareWord({ text, offset, ch, prev, prevOffset }: Stop): SyntaxProblem | undefined {
  const word = /^[A-Za-z_$][\w$-]*/.exec(text.slice(offset))?.[0]
  if (word && /^\s*:/.test(text.slice(offset + word.length))) {
    return {
      span: { start: positionAt(text, offset), end: positionAt(text, offset + word.length) },
      message: `The name ${word} is not in double quotes.`,
      fix: `Write it as "${word}".`,
    }
  }
  if (word && prev === ':') {
    return {
      span: { start: positionAt(text, offset), end: positionAt(text, offset + word.length) },
      message: `The value ${word} is not in double quotes; the only bare words JSON allows are true, false and null.`,
      fix: `Write it as "${word}" if it is text, or as true, false or null (lower case).`,
    }
  }
  const startsValue = ch === '"' || ch === '{' || ch === '[' || /[-0-9tfn]/.test(ch)
  if (startsValue && prev !== '' && !',:[{'.includes(prev)) {
    const end = positionAt(text, prevOffset + 1)
    const atLineEnd = /^[ \t]*\r?\n/.test(text.slice(prevOffset + 1))
    return {
      span: { start: end, end: { ...end, column: end.column + 1, offset: end.offset + 1 } },
      message: 'A comma is missing between two items.',
      fix: atLineEnd
        ? `Add a comma at the end of line ${end.line}, where marked.`
        : 'Add a comma where marked, after the value before it.',
    }
  }
  return undefined
}

/** A stray ":", or any other character the parser did not expect. */
function explainUnexpected({ ch, at }: Stop): SyntaxProblem {
  if (ch === ':') {
    return {
      span: at,
      message: 'This ":" is not after a name.',
      fix: 'Check the name before it is in double quotes, and that no comma is missing.',
    }
  }
  return {
    span: at,
    message: `JSON does not expect ${JSON.stringify(ch)} here.`,
    fix: 'Check the punctuation around this spot: quotes, commas, colons and brackets.',
  }
}

function errorOffset(error: unknown): { offset: number; fromMomoa: boolean } {
  const e = error as { offset?: unknown; message?: unknown }
  if (typeof e.offset === 'number') return { offset: e.offset, fromMomoa: true }
  const at = /position (\d+)/.exec(typeof e.message === 'string' ? e.message : '')
  return { offset: at ? Number(at[1]) : 0, fromMomoa: false }
}

/** The innermost { or [ still open at `offset`, or 'unclosed-string' when the text cannot even be split into tokens. */
function openBracketBefore(text: string, offset: number): Token | 'unclosed-string' | undefined {
  let tokens: Token[]
  try {
    tokens = tokenize(text.slice(0, offset), { mode: 'json' })
  } catch {
    return 'unclosed-string'
  }
  const stack: Token[] = []
  for (const token of tokens) {
    if (token.type === 'LBrace' || token.type === 'LBracket') stack.push(token)
    else if (token.type === 'RBrace' || token.type === 'RBracket') stack.pop()
  }
  return stack.at(-1)
}
