import type { ClientPageConfig } from '../../../../schema/page-config.ts'
import type { FramePhase } from '../editing/preview-messages.ts'
import { elementOf } from './frame-bridge.ts'

// The sections the shown phase hides stay on the canvas, dimmed under a line saying so (canvas.css), so that the
// person sees what the phase leaves out and can show it again. The live page and a preview link leave them out.

/** Marks the sections `phase` hides (an attribute React does not own) and returns their indices. */
export function markHidden(root: Element, config: ClientPageConfig, phase: FramePhase | undefined): Set<number> {
  const indices = new Set<number>()
  for (const el of root.ownerDocument.querySelectorAll('[data-editor-hidden]')) el.removeAttribute('data-editor-hidden')
  if (!phase) return indices
  config.sections.forEach((section, index) => {
    if (section.anchor === undefined || !phase.hidden.includes(section.anchor)) return
    indices.add(index)
    elementOf(root, { kind: 'section', index })?.setAttribute('data-editor-hidden', `Hidden in ${phase.words}`)
  })
  return indices
}
