import type { PreviewLinkResponse, PreviewPhases, StudioProblem } from '../../protocol.ts'
import { countProblems, formatMoment } from '../format.ts'
import { CopyField } from '../views/People.tsx'
import type { PublishWords } from './words.ts'

/** A version just published (or saved to the file): its number, how long it took, where it is. */
export type Published = { version: number; ms: number; url: string; warning?: string | undefined }

/** The file was changed outside the editor since its last version. */
export function ChangedOnDiskBanner({ local }: { local: boolean }) {
  return (
    <p className="banner warn" role="alert">
      {local
        ? 'The file was changed outside this editor since its last version. Saving from here replaces it: compare in History first.'
        : 'The file on disk was changed outside the studio since the live version. Publishing from here replaces it: compare in History first.'}
    </p>
  )
}

/** Where the version just published is, and what a local save did not do. */
export function PublishedBanner({ published, local }: { published: Published; local: boolean }) {
  return (
    <>
      <div className="banner ok" role="status">
        {local ? (
          <p>
            Version {published.version} is saved to {published.url}. Nothing was built: npm run dev shows it, npm run
            build or npm start puts it live.
          </p>
        ) : (
          <p>
            Version {published.version} is live{published.ms ? ` (in ${(published.ms / 1000).toFixed(1)} s)` : ''}:{' '}
            <a href={published.url} target="_blank" rel="noreferrer">
              {published.url}
            </a>
          </p>
        )}
      </div>
      {published.warning && (
        <p className="banner warn" role="alert">
          {published.warning}
        </p>
      )}
    </>
  )
}

/** Why the last publish was refused: problems to fix first. */
export function BlockingBanner({ blocking, words }: { blocking: StudioProblem[]; words: PublishWords }) {
  return (
    <div className="banner warn" role="alert">
      <p>
        {words.not}: {countProblems(blocking.length)} must be fixed first (listed under the text).
      </p>
    </div>
  )
}

/** A preview link just made: the address to copy, until when it works, and the phase it shows. */
export function PreviewLinkBanner({ link, phases }: { link: PreviewLinkResponse; phases: PreviewPhases | undefined }) {
  return (
    <div className="banner" role="status">
      <CopyField label="Preview link (read-only, no account needed)" value={link.url} />
      <p>
        Works until {formatMoment(link.expiresAt)}. It shows the draft as saved now
        {link.phase ? `, in the ${phases?.list.find((p) => p.name === link.phase)?.words ?? link.phase} phase` : ''}.
      </p>
    </div>
  )
}
