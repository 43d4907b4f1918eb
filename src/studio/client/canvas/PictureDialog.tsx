import { useEffect, useRef, useState } from 'react'
import type { Segment } from '../../../config/json-source.ts'

/** A picture dropped on the canvas, waiting for its alternative text. */
export type PendingPicture = { path: Segment[]; file: File }

type Props = {
  pending: PendingPicture | undefined
  onReplace: (pending: PendingPicture, alt: string) => void
  onCancel: () => void
}

/** Asks what a dropped picture shows (its alternative text) before it replaces the picture it was dropped on. */
export function PictureDialog({ pending, onReplace, onCancel }: Props) {
  const dialog = useRef<HTMLDialogElement>(null)
  const [alt, setAlt] = useState('')
  useEffect(() => {
    if (pending && !dialog.current?.open) dialog.current?.showModal()
    if (!pending) dialog.current?.close()
  }, [pending])
  return (
    <dialog ref={dialog} className="confirm" aria-labelledby="picture-heading" onClose={onCancel}>
      <form
        method="dialog"
        onSubmit={(event) => {
          event.preventDefault()
          if (pending && alt.trim()) onReplace(pending, alt.trim())
          setAlt('')
        }}
      >
        <h2 id="picture-heading">Replace the picture with {pending?.file.name}?</h2>
        <label>
          Alternative text
          <input value={alt} onChange={(e) => setAlt(e.target.value)} required maxLength={300} />
        </label>
        <p className="muted">What the picture shows, for people who cannot see it (and for search engines).</p>
        <div className="actions">
          <button type="submit" className="primary">
            Replace picture
          </button>
          <button type="button" onClick={() => dialog.current?.close()}>
            Cancel
          </button>
        </div>
      </form>
    </dialog>
  )
}
