import type { Segment } from '../../../config/json-source.ts'
import type { FromPreview } from '../editing/preview-messages.ts'
import type { TextLeaf } from './text-targets.ts'

/** What an edit in place needs: where to say what was typed, and what to do when it ends. */
export type EditingDeps = {
  post: (message: FromPreview) => void
  /** The edit ended: `value` is the committed text, undefined when it was cancelled. */
  onEnd: (path: Segment[], value: string | undefined) => void
}

/**
 * Edits the text of `element` in place: its raw text from the config (markdown marks included) becomes editable;
 * each keystroke is reported; Enter or leaving commits, Escape cancels (shift+Enter is a line break in a paragraph).
 */
export function editInPlace(element: HTMLElement, leaf: TextLeaf, { post, onEnd }: EditingDeps): void {
  const shown = element.textContent
  if (element.textContent !== leaf.value) element.textContent = leaf.value
  element.setAttribute('contenteditable', 'plaintext-only')
  element.setAttribute('data-editor-editing', '')
  element.setAttribute('aria-label', `Editing: Enter saves, Escape cancels`)
  element.focus()
  const selection = element.ownerDocument.getSelection()
  selection?.selectAllChildren(element)
  let done = false
  const finish = (value: string | undefined) => {
    if (done) return
    done = true
    element.removeEventListener('input', onInput)
    element.removeEventListener('keydown', onKey)
    element.removeEventListener('blur', onBlur)
    element.removeAttribute('contenteditable')
    element.removeAttribute('data-editor-editing')
    element.removeAttribute('aria-label')
    if (value === undefined) element.textContent = shown
    onEnd(leaf.path, value === leaf.value ? undefined : value)
  }
  const current = () => (element.textContent ?? '').replace(/\n+$/, () => '')
  const onInput = () => post({ type: 'typing', path: leaf.path, value: current() })
  const onKey = (event: KeyboardEvent) => {
    event.stopPropagation()
    if (event.key === 'Escape') {
      event.preventDefault()
      finish(undefined)
    } else if (event.key === 'Enter' && !event.shiftKey) {
      event.preventDefault()
      finish(current())
    }
  }
  const onBlur = () => finish(current())
  element.addEventListener('input', onInput)
  element.addEventListener('keydown', onKey)
  element.addEventListener('blur', onBlur)
}
