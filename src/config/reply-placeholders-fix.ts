import { describePath } from './describe.ts'
import { nodeAt } from './json-edit.ts'
import { parseJsonSource, type Segment } from './json-source.ts'
import { replyPlaceholderFields, replyTexts } from './reply-placeholders-check.ts'

/** One text of the reply rewritten: where (1-based line in the rewritten file), what went, and what it reads now. */
export type ReplyPlaceholderChange = { line: number; at: Segment[]; description: string }

// Fields that hold the visitor's name or phone under another key: the reply may show the form's own {name} and
// {phone} instead (only a name made of letters, only the number's digits), when the form has those fields.
const nameLike = new Set(['firstname', 'fullname', 'givenname', 'yourname', 'contactname', 'prenom'])
const phoneLike = new Set([
  'phonenumber',
  'telephone',
  'tel',
  'mobile',
  'mobilephone',
  'mobilenumber',
  'cell',
  'cellphone',
])

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/** The allowed placeholder a refused one becomes, or undefined when it goes. */
function replacementOf(field: string, allowed: readonly string[]): string | undefined {
  const key = field
    .normalize('NFKD')
    .replace(/[^A-Za-z]/g, '')
    .toLowerCase()
  if (nameLike.has(key) && allowed.includes('name')) return 'name'
  if (phoneLike.has(key) && allowed.includes('phone')) return 'phone'
  return undefined
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

/** The new text around its first change, so a long paragraph's line still shows what changed. */
function around(before: string, after: string): string {
  let at = 0
  while (at < before.length && before[at] === after[at]) at++
  const start = Math.max(0, at - 40)
  const end = Math.min(after.length, at + 40)
  return `${start > 0 ? '…' : ''}${after.slice(start, end)}${end < after.length ? '…' : ''}`
}

/**
 * The config text with every reply placeholder the checker refuses as free text (issue 21, item 2: a form field
 * that is not {name}, {phone} or a list) rewritten: to {name} or {phone} when it is the same thing under another
 * key, else removed with the space before it, as the server already drops it. Unknown placeholders (typos) are
 * left for the checker to explain. Only the bytes inside the changed texts change; a text whose placeholder is
 * written with escapes is written back with JSON's plain escapes. Running it on its own result changes nothing.
 */
export function rewriteReplyPlaceholders(rawText: string): { text: string; changes: ReplyPlaceholderChange[] } {
  const bom = rawText.startsWith('\uFEFF') ? '\uFEFF' : ''
  const text = rawText.slice(bom.length)
  const parsed = parseJsonSource(text)
  if ('syntax' in parsed) return { text: rawText, changes: [] }
  const data: unknown = JSON.parse(text)
  if (!isObject(data) || !isObject(data.reply)) return { text: rawText, changes: [] }
  const { fields, allowed } = replyPlaceholderFields(data)
  const edits: { start: number; end: number; raw: string; at: Segment[]; description: string }[] = []
  for (const [at, value] of replyTexts(data.reply)) {
    if (typeof value !== 'string') continue
    const node = nodeAt(parsed.source, at)
    if (node?.type !== 'String') continue
    let raw = text.slice(node.loc.start.offset, node.loc.end.offset)
    let next = value
    const seen = new Set<string>()
    const said: string[] = []
    for (const match of value.matchAll(/\{([^{}]*)\}/g)) {
      const field = match[1]!
      if (field === 'site' || allowed.includes(field) || !fields.includes(field) || seen.has(field)) continue
      seen.add(field)
      const to = replacementOf(field, allowed)
      // The same rule as src/server/delivery/reply.ts: a placeholder that shows nothing takes the space before it.
      const decoded = new RegExp(`(\\s*)\\{${escapeRegExp(field)}\\}`, 'g')
      const written = new RegExp(`((?:\\s|\\\\[nrt])*)\\{${escapeRegExp(field)}\\}`, 'g')
      next = next.replace(decoded, (_, space: string) => (to ? `${space}{${to}}` : ''))
      raw = raw.replace(written, (_, space: string) => (to ? `${space}{${to}}` : ''))
      said.push(to ? `{${field}} became {${to}}` : `removed {${field}}`)
    }
    if (next === value) continue
    // The text as written (its escapes kept) when the edit there says the same as the edit of its value.
    let same = false
    try {
      same = JSON.parse(raw) === next
    } catch {
      same = false
    }
    edits.push({
      start: node.loc.start.offset,
      end: node.loc.end.offset,
      raw: same ? raw : JSON.stringify(next),
      at,
      description: `${describePath(at)}: ${said.join(', ')}; it now reads ${JSON.stringify(around(value, next))}`,
    })
  }
  let out = text
  for (const edit of [...edits].reverse()) out = out.slice(0, edit.start) + edit.raw + out.slice(edit.end)
  // Lines are counted in the result, which is what the author opens.
  let shift = 0
  const changes = edits.map((edit) => {
    const line = out.slice(0, edit.start + shift).split('\n').length
    shift += edit.raw.length - (edit.end - edit.start)
    return { line, at: edit.at, description: edit.description }
  })
  return { text: bom + out, changes }
}
