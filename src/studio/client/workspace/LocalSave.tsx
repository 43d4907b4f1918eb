/**
 * `npm run edit`'s save: one button (and Ctrl+S) that writes page.config.json exactly as typed, at once, with an
 * optional note for History beside it: no draft to save first, no second step to confirm.
 */
export function LocalSave({
  message,
  onMessage,
  onSave,
}: {
  message: string
  onMessage: (message: string) => void
  onSave: () => void
}) {
  return (
    <>
      <button type="button" className="primary" onClick={onSave} aria-keyshortcuts="Control+S Meta+S">
        Save to file
      </button>
      <label className="note">
        What changed (optional)
        <input
          value={message}
          onChange={(e) => onMessage(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter') onSave()
          }}
          maxLength={200}
        />
      </label>
    </>
  )
}
