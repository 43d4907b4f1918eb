import { useState } from 'react'
import type { DraftConflict } from '../../protocol.ts'
import { formatMoment } from '../format.ts'
import { DraftDiff } from './DraftDiff.tsx'

/**
 * Someone else saved a newer draft: `refused` when this editor's save was turned down for it, else announced by the
 * heartbeat. Nothing is loaded into the person's text until they choose: `See the difference`, `Take theirs` (their
 * draft replaces the text here), `Keep mine` (the text here is saved over theirs, knowingly).
 */
export function DraftConflictBanner({
  conflict,
  refused,
  mine,
  onTakeTheirs,
  onKeepMine,
}: {
  conflict: DraftConflict
  refused: boolean
  mine: () => string
  onTakeTheirs: () => void
  onKeepMine: () => void
}) {
  const [compared, setCompared] = useState<string>()
  const when = formatMoment(conflict.savedAt)
  return (
    <div className="banner warn conflict" role="alert" aria-labelledby="conflict-heading">
      <p id="conflict-heading">
        <strong>
          {conflict.by} saved a newer draft {when} (version {conflict.version}).
        </strong>{' '}
        {refused
          ? 'Your save was not made, so nothing of theirs was replaced. Your text is still here: choose which to keep.'
          : 'Your text here is unchanged: choose which to keep before you save.'}
      </p>
      <div className="actions">
        <button
          type="button"
          aria-expanded={compared !== undefined}
          onClick={() => setCompared(compared === undefined ? mine() : undefined)}
        >
          See the difference
        </button>
        <button type="button" onClick={onTakeTheirs}>
          Take theirs
        </button>
        <button type="button" onClick={onKeepMine}>
          Keep mine
        </button>
      </div>
      {compared !== undefined && <DraftDiff theirs={conflict.text} mine={compared} theirsBy={conflict.by} />}
    </div>
  )
}
