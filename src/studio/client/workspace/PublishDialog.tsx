import type { RefObject } from 'react'

type Props = {
  dialog: RefObject<HTMLDialogElement | null>
  siteName: string
  localUrl: string
  local: boolean
  message: string
  onMessage: (message: string) => void
  onConfirm: () => void
}

/** The confirmation before publishing (or saving to the file), with an optional note of what changed. */
export function PublishDialog({ dialog, siteName, localUrl, local, message, onMessage, onConfirm }: Props) {
  return (
    <dialog ref={dialog} className="confirm" aria-labelledby="publish-heading">
      <form
        method="dialog"
        onSubmit={(e) => {
          e.preventDefault()
          onConfirm()
        }}
      >
        <h2 id="publish-heading">{local ? `Save ${siteName} to its file?` : `Publish ${siteName}?`}</h2>
        <p>
          {local
            ? `The text as it is now is written to ${localUrl} and becomes a new version in History.`
            : `The text as it is now goes live at ${localUrl} and becomes a new version in History.`}
        </p>
        <label>
          What changed (optional)
          <input value={message} onChange={(e) => onMessage(e.target.value)} maxLength={200} />
        </label>
        <div className="actions">
          <button type="submit" className="primary">
            {local ? 'Save to file now' : 'Publish now'}
          </button>
          <button type="button" onClick={() => dialog.current?.close()}>
            Cancel
          </button>
        </div>
      </form>
    </dialog>
  )
}
