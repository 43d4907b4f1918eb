import { sectionSchemas } from '../../../../schema/sections.ts'
import type { PagePart } from '../editing/preview-messages.ts'
import { elementOf } from './frame-bridge.ts'
import { asRead, pathOfPart, textLeaves, valueAt, type TextLeaf } from './text-targets.ts'

// Marks the texts of the rendered page that the config holds, so a click or Enter edits them and Tab reaches them.

/** The texts marked on the page, by element. */
export type Marks = WeakMap<Element, TextLeaf>

/** The parts of the page the config describes, in page order. */
export function partsOf(config: { sections: unknown[] }): PagePart[] {
  return [
    { kind: 'header' },
    ...config.sections.map((_s, index) => ({ kind: 'section', index }) as const),
    { kind: 'footer' },
  ]
}

/** A part's name as a person reads it: "Hero: Bramblewood Crossing", "Header", "Footer". */
export function nameOfPart(config: unknown, part: PagePart): string {
  if (part.kind !== 'section') return part.kind === 'header' ? 'Header' : 'Footer'
  const section = valueAt(config, pathOfPart(part)) as { type?: string; heading?: string } | undefined
  const schema = (sectionSchemas as Record<string, { title: string }>)[section?.type ?? '']
  const title = schema ? schema.title.replace(/ section$/, '') : (section?.type ?? 'Section')
  return section?.heading ? `${title}: ${asRead(section.heading)}` : title
}

function markPart(root: Element, config: unknown, part: PagePart, marks: Marks): void {
  const element = elementOf(root, part)
  if (!element) return
  const byWords = new Map<string, TextLeaf>()
  for (const leaf of textLeaves(valueAt(config, pathOfPart(part)), pathOfPart(part)).reverse())
    byWords.set(asRead(leaf.value), leaf)
  for (const el of element.querySelectorAll('*')) {
    const words = asRead(el.textContent ?? '')
    const leaf = words ? byWords.get(words) : undefined
    // The innermost element that shows the whole text: not one of its children showing the same words.
    if (!leaf || [...el.children].some((child) => asRead(child.textContent ?? '') === words)) continue
    marks.set(el, leaf)
    el.setAttribute('data-editor-text', '')
    if (!el.matches('a, button, input, select, textarea')) el.setAttribute('tabindex', '0')
  }
}

/** Marks every text the config holds on the rendered page (after each render). */
export function markTexts(root: Element, config: { sections: unknown[] }): Marks {
  const marks: Marks = new WeakMap()
  for (const old of root.ownerDocument.querySelectorAll('[data-editor-text]')) old.removeAttribute('data-editor-text')
  for (const part of partsOf(config)) markPart(root, config, part, marks)
  return marks
}
