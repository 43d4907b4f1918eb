import { useRef, type ReactNode } from 'react'
import { LocalSave } from './LocalSave.tsx'
import type { PublishWords } from './words.ts'

type Props = {
  siteName: string
  status: string
  /** What the last edit on the canvas did (where it went), under the status. */
  note: string
  canEdit: boolean
  local: boolean
  words: PublishWords
  onSaveDraft: () => void
  onPreviewLink: () => void
  /** Picture files chosen with "Add picture": added at the cursor in the text. */
  onPictures: (files: File[]) => void
  /** More buttons (undo and redo), before the draft's. */
  children?: ReactNode
  /**
   * Publishing: the dialog opened by Publish; in local mode Save to file writes at once, its note for History typed
   * beside it.
   */
  publishing: { open: () => void; publish: () => Promise<void>; message: string; setMessage: (note: string) => void }
}

/** The bar above the editor: the launch's name, the status line, and the buttons that save, link, add and publish. */
export function EditorToolbar({ siteName, status, note, canEdit, local, words, children, ...on }: Props) {
  const pictureInput = useRef<HTMLInputElement>(null)
  return (
    <div className="toolbar">
      <div className="title">
        <h1 id="launch-heading">{siteName}</h1>
        <p className="status" role="status">
          {status}
        </p>
        <p className="status canvas-note" role="status">
          {note}
        </p>
      </div>
      {canEdit && (
        <div className="actions">
          {children}
          {local ? (
            <LocalSave
              message={on.publishing.message}
              onMessage={on.publishing.setMessage}
              onSave={() => void on.publishing.publish()}
            />
          ) : (
            <button type="button" onClick={on.onSaveDraft} aria-keyshortcuts="Control+S Meta+S">
              Save draft
            </button>
          )}
          {!local && (
            <button type="button" onClick={on.onPreviewLink}>
              Preview link
            </button>
          )}
          <button
            type="button"
            onClick={() => pictureInput.current?.click()}
            title="Adds a picture at the cursor in the text (or drop one onto the text)"
          >
            Add picture
          </button>
          <input
            ref={pictureInput}
            type="file"
            accept="image/png,image/jpeg,image/webp,image/avif,image/gif"
            multiple
            hidden
            aria-label="Picture files to add"
            onChange={(event) => {
              const files = [...(event.currentTarget.files ?? [])]
              event.currentTarget.value = ''
              if (files.length) on.onPictures(files)
            }}
          />
          {!local && (
            <button type="button" className="primary" onClick={on.publishing.open}>
              {words.publish}
            </button>
          )}
        </div>
      )}
    </div>
  )
}
