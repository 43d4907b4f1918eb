import { useEffect } from 'react'

type Props = { onStep: (action: 'undo' | 'redo') => void }

/** Whether a key press belongs to a field with its own typing (the code editor keeps its own keys: same history). */
function ownsKeys(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false
  if (target.closest('.code')) return true
  // The form view's fields change the text through the one history: their Ctrl+Z is the studio's.
  if (target.closest('.form-view')) return false
  return target.matches('input, textarea, select, [contenteditable]')
}

/** `Undo` and `Redo`, and Ctrl+Z / Ctrl+Shift+Z (Ctrl+Y) anywhere on the editor page outside the code's own keys. */
export function HistoryButtons({ onStep }: Props) {
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (!(event.ctrlKey || event.metaKey) || ownsKeys(event.target)) return
      const key = event.key.toLowerCase()
      if (key !== 'z' && key !== 'y') return
      event.preventDefault()
      onStep(key === 'y' || event.shiftKey ? 'redo' : 'undo')
    }
    window.addEventListener('keydown', onKey, true)
    return () => window.removeEventListener('keydown', onKey, true)
  }, [onStep])
  return (
    <>
      <button type="button" onClick={() => onStep('undo')} aria-keyshortcuts="Control+Z">
        Undo
      </button>
      <button type="button" onClick={() => onStep('redo')} aria-keyshortcuts="Control+Shift+Z">
        Redo
      </button>
    </>
  )
}
