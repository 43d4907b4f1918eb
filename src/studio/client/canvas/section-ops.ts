import type { SectionAction } from '../editing/preview-messages.ts'
import { deleteSection, duplicateSection, moveSection, sectionCount } from './canvas-edits.ts'

/** Where a section action leaves the section it acted on (its new index), or undefined when it does nothing. */
export function indexAfter(action: SectionAction, count: number): number | undefined {
  const { index } = action
  if (action.action === 'up') return index > 0 ? index - 1 : undefined
  if (action.action === 'down') return index < count - 1 ? index + 1 : undefined
  if (action.action === 'move') return action.to
  if (action.action === 'duplicate') return index + 1
  return count > 1 ? Math.min(index, count - 2) : undefined
}

/** The text after a section action (moved, copied or removed section), every other byte kept. */
export function applySectionAction(text: string, action: SectionAction): string {
  const to = indexAfter(action, sectionCount(text))
  if (to === undefined) return text
  if (action.action === 'duplicate') return duplicateSection(text, action.index)
  if (action.action === 'delete') return deleteSection(text, action.index)
  return moveSection(text, action.index, to)
}

/** The same action on a list of sections (the config the previews show), as a new list. */
export function applyToList<T>(sections: T[], action: SectionAction): T[] {
  const to = indexAfter(action, sections.length)
  const list = [...sections]
  if (to === undefined) return list
  if (action.action === 'duplicate') list.splice(action.index + 1, 0, structuredClone(list[action.index]!))
  else if (action.action === 'delete') list.splice(action.index, 1)
  else list.splice(to, 0, ...list.splice(action.index, 1))
  return list
}

/** What the status line says after a section action. */
export function sayAction(action: SectionAction): string {
  const n = action.index + 1
  if (action.action === 'duplicate') return `Section ${n} copied: the copy is right after it.`
  if (action.action === 'delete') return `Section ${n} deleted (Undo brings it back).`
  const to = indexAfter(action, Number.MAX_SAFE_INTEGER)
  return `Section ${n} moved to place ${(to ?? action.index) + 1}.`
}
