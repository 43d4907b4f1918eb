import type { Segment } from '../../../config/json-source.ts'
import type { PagePart } from '../editing/preview-messages.ts'

// Which text of the config an element of the preview shows. The page's components are the public page's own and
// carry no editor marks (its bundle must not change), so a text is found by its words: the element's text is compared
// with the string values of the part's config (a section, the header, the footer), markdown marks aside.

/** Fields whose text a visitor never reads on the page as written (names, addresses, choices). */
const notText = new Set(['type', 'anchor', 'src', 'href', 'tone', 'imagePosition', 'kind', 'width', 'height', 'alt'])

/** A string of the config and where it is, from the config's top. */
export type TextLeaf = { path: Segment[]; value: string }

/** Every visible string under `value`, with its path below `at`. */
export function textLeaves(value: unknown, at: Segment[]): TextLeaf[] {
  if (typeof value === 'string') return [{ path: at, value }]
  if (Array.isArray(value)) return value.flatMap((item, i) => textLeaves(item, [...at, i]))
  if (value && typeof value === 'object')
    return Object.entries(value).flatMap(([key, item]) => (notText.has(key) ? [] : textLeaves(item, [...at, key])))
  return []
}

/** A text as it reads on the page: markdown's emphasis and links' addresses left out, spaces folded. */
export function asRead(text: string): string {
  return text
    .replace(/\[([^\]]*)\]\([^)]*\)/g, (_all, label: string) => label)
    .replace(/[*_`]+/g, () => '')
    .replace(/\s+/g, () => ' ')
    .trim()
}

/** The path of a part of the page in the config. */
export function pathOfPart(part: PagePart): Segment[] {
  return part.kind === 'section' ? ['sections', part.index] : [part.kind]
}

/** The value at `path` in `config`. */
export function valueAt(config: unknown, path: Segment[]): unknown {
  let node = config
  for (const step of path) {
    if (node === null || typeof node !== 'object') return undefined
    node = (node as Record<string, unknown>)[String(step)]
  }
  return node
}

/** The config text an element shows: the leaf of the part whose words are the element's, if one is. */
export function textTargetOf(config: unknown, part: PagePart, elementText: string): TextLeaf | undefined {
  const read = asRead(elementText)
  if (!read) return undefined
  const leaves = textLeaves(valueAt(config, pathOfPart(part)), pathOfPart(part))
  return leaves.find((leaf) => leaf.value.trim() === elementText.trim()) ?? leaves.find((l) => asRead(l.value) === read)
}

/** Where a text the part does not hold comes from: another place in the config, or the page's code. */
export function originOf(config: unknown, elementText: string): string {
  const read = asRead(elementText)
  const elsewhere = textLeaves(config, []).find((leaf) => read && asRead(leaf.value) === read)
  if (elsewhere) return `Not editable here: this text is ${elsewhere.path.join('.')} in page.config.json.`
  const inside = textLeaves(config, []).find((leaf) => leaf.value.length > 3 && read.includes(asRead(leaf.value)))
  if (inside)
    return `Not editable here: the page makes this line from ${inside.path.join('.')} in page.config.json and the date.`
  return 'Not editable: the page makes this text itself (a date or a label of the page code), not page.config.json.'
}

/** The picture (an object with a "src") of a part that an <img> shows, by its file's name in the image's address. */
export function pictureTargetOf(config: unknown, part: PagePart, address: string): Segment[] | undefined {
  const found: Segment[][] = []
  const visit = (value: unknown, at: Segment[]): void => {
    if (Array.isArray(value)) value.forEach((item, i) => visit(item, [...at, i]))
    else if (value && typeof value === 'object') {
      const src = (value as { src?: unknown }).src
      const name = typeof src === 'string' ? (src.split('/').pop() ?? '').replace(/\.[^.]+$/, () => '') : ''
      if (name && decodeURIComponent(address).includes(name)) found.push(at)
      for (const [key, item] of Object.entries(value)) visit(item, [...at, key])
    }
  }
  visit(valueAt(config, pathOfPart(part)), pathOfPart(part))
  return found[0]
}
