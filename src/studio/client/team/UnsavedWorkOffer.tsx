import { formatMoment } from '../format.ts'
import type { UnsavedWork } from './unsaved-work.ts'

/** Text typed here and never saved (a closed tab, a lost connection), offered back: restore it or let it go. */
export function UnsavedWorkOffer({
  work,
  onRestore,
  onDiscard,
}: {
  work: UnsavedWork
  onRestore: () => void
  onDiscard: () => void
}) {
  return (
    <div className="banner warn" role="alert">
      <p>Text you typed here {formatMoment(work.at)} was never saved: this browser kept it.</p>
      <div className="actions">
        <button type="button" className="primary" onClick={onRestore}>
          Restore my unsaved text
        </button>
        <button type="button" onClick={onDiscard}>
          Discard it
        </button>
      </div>
    </div>
  )
}
