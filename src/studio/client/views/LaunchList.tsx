import { useEffect, useState } from 'react'
import type { LaunchSummary } from '../../protocol.ts'
import { studioApi } from '../api.ts'
import { formatMoment } from '../format.ts'
import { StudioLink } from '../navigation.tsx'

const statusWords: Record<LaunchSummary['status'], string> = {
  live: 'Live',
  broken: 'Problems on disk: the last good version is live',
  unpublished: 'Not published yet',
}

/** The launches this person may see: a link per launch (by its site name), its status and its draft. */
export function LaunchList({ canEdit, local = false }: { canEdit: boolean; local?: boolean }) {
  const [launches, setLaunches] = useState<LaunchSummary[]>()
  const [error, setError] = useState('')
  useEffect(() => {
    studioApi.launches().then(setLaunches, (e: unknown) => setError((e as Error).message))
  }, [])
  return (
    <main className="page" aria-labelledby="launches-heading">
      <div className="page-head">
        <h1 id="launches-heading">Launches</h1>
        {canEdit && (
          <StudioLink to={{ view: 'new-launch' }} className="button">
            New launch
          </StudioLink>
        )}
      </div>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      {!launches && !error && <p className="loading">Loading the launches…</p>}
      {launches && launches.length === 0 && <p>No launch yet.</p>}
      {launches && launches.length > 0 && (
        <ul className="launches" aria-label="Launches">
          {launches.map((launch) => (
            <li key={launch.slug} className="launch-card">
              <h2>
                <StudioLink to={{ view: 'launch', slug: launch.slug }}>{launch.siteName}</StudioLink>
              </h2>
              <p className="slug">{launch.slug}</p>
              <p className={`status status-${launch.status}`}>
                {statusWords[launch.status]}
                {launch.liveVersion !== undefined && ` · version ${launch.liveVersion}`}
              </p>
              <p className="draft">
                {launch.draft ? `Draft by ${launch.draft.by}, ${formatMoment(launch.draft.updatedAt)}` : 'No draft'}
              </p>
              {launch.changedOnDisk && <p className="warn-text">The file on disk was changed outside the studio.</p>}
              {local ? (
                <p className="slug">{launch.localUrl}</p>
              ) : (
                <p>
                  <a href={launch.localUrl}>Open the live page</a>
                </p>
              )}
            </li>
          ))}
        </ul>
      )}
    </main>
  )
}
