import { insertMembers, removeMember } from '../../../config/json-edit.ts'
import type { RefObject } from 'react'
import type { CodeEditor } from '../editing/code-editor.ts'
import type { PreviewBridge } from '../workspace/use-preview-bridge.ts'
import { setValueAt } from './canvas-edits.ts'

// Hide in this phase / Show in this phase: a section left out of the page during the phase the previews show, written
// as its anchor in that phase's "hide" (schema/phases.ts). The canvas keeps the section, dimmed, so it can be shown
// again.

type Typed = {
  sections?: Array<{ type?: string; anchor?: string }>
  phases?: { list?: Array<{ name?: string; hide?: string[] }> }
}

/** The anchors phase `phase` hides in the typed config (none while the text is not such a config). */
export function hiddenIn(config: unknown, phase: string | undefined): string[] {
  const found = (config as Typed | undefined)?.phases?.list?.find((p) => p.name === phase)?.hide
  return Array.isArray(found) ? found : []
}

/** An anchor for a section that has none: its type, else its type and the first number no section takes. */
function newAnchor(config: Typed, type: string): string {
  const taken = new Set((config.sections ?? []).map((s) => s.anchor))
  const base = /^[a-z][a-z0-9-]*$/.test(type) ? type : 'section'
  let anchor = base
  for (let n = 2; taken.has(anchor); n++) anchor = `${base}-${n}`
  return anchor
}

/**
 * The text with section `index` hidden in phase `phase` (its anchor added to the phase's "hide"; a section without an
 * anchor gets one first), or shown again (removed; an empty "hide" goes). Returns the new text and the anchor.
 */
export function withSectionHidden(text: string, index: number, phase: string, hide: boolean) {
  const config = JSON.parse(text) as Typed
  const section = config.sections?.[index]
  const phaseIndex = config.phases?.list?.findIndex((p) => p.name === phase) ?? -1
  if (!section || phaseIndex < 0) throw new Error(`there is no section ${index + 1} or no phase "${phase}"`)
  let next = text
  let anchor = section.anchor
  if (anchor === undefined) {
    anchor = newAnchor(config, section.type ?? 'section')
    next = insertMembers(next, ['sections', index], [['anchor', JSON.stringify(anchor)]], 'type')
  }
  const before = hiddenIn(config, phase)
  const after = hide ? [...before.filter((a) => a !== anchor), anchor] : before.filter((a) => a !== anchor)
  const at = ['phases', 'list', phaseIndex]
  next = after.length ? setValueAt(next, [...at, 'hide'], JSON.stringify(after)) : removeMember(next, at, 'hide')
  return { text: next, anchor, hidden: after }
}

/** What hiding needs of the canvas (use-canvas.ts's CanvasDeps has it). */
type HideDeps = {
  editorRef: RefObject<CodeEditor | null>
  bridge: PreviewBridge
  setStatus: (status: string) => void
  saveNow: () => void
}

/** Hide in this phase (or Show in this phase) on section `index`: one change of the text, in the one history. */
export function hideInPhase(deps: HideDeps, index: number, hide: boolean): void {
  const code = deps.editorRef.current
  const shown = deps.bridge.shownRef.current
  const phase = shown?.phase
  if (!code || !shown || !phase) {
    deps.setStatus('Choose a phase above the previews first: a section is hidden in one phase.')
    return
  }
  try {
    const { text, anchor, hidden } = withSectionHidden(code.text(), index, phase.name, hide)
    code.updateText(text)
    const message = { ...shown, phase: { ...phase, hidden } }
    deps.bridge.shownRef.current = message
    deps.bridge.post(message)
    deps.setStatus(
      hide
        ? `Section ${index + 1} ("#${anchor}") is hidden in the ${phase.words} phase; the other phases still show it.`
        : `Section ${index + 1} ("#${anchor}") shows again in the ${phase.words} phase.`,
    )
    deps.saveNow()
  } catch (e) {
    deps.setStatus(`The section could not be ${hide ? 'hidden' : 'shown'}: ${(e as Error).message}`)
  }
}
