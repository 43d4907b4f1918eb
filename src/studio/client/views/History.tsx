import { useEffect, useState } from 'react'
import type { VersionDetail, VersionSummary } from '../../protocol.ts'
import { studioApi } from '../api.ts'
import { formatMoment } from '../format.ts'

/** A unified diff's lines, each marked as added, removed, a hunk header or context (its file headers left out). */
export function diffLines(diff: string): { kind: 'add' | 'remove' | 'hunk' | 'same'; text: string }[] {
  return diff
    .split('\n')
    .filter((line) => !/^(\+\+\+|---|Index: |={10,}$)/.test(line))
    .map((text) => ({
      kind: text.startsWith('@@') ? 'hunk' : text.startsWith('+') ? 'add' : text.startsWith('-') ? 'remove' : 'same',
      text,
    }))
}

function Diff({ detail }: { detail: VersionDetail }) {
  if (!detail.diff.trim()) return <p className="muted">No change against the version before.</p>
  return (
    // A scrolling region must be reachable by keyboard (WCAG 2.1.1; axe's scrollable-region-focusable).
    // eslint-disable-next-line jsx-a11y/no-noninteractive-tabindex
    <pre className="diff" tabIndex={0} aria-label={`Changes in version ${detail.version}`}>
      {diffLines(detail.diff).map((line, i) => (
        <span key={i} className={`diff-${line.kind}`}>
          {line.kind === 'add' && <span className="sr-only">Added: </span>}
          {line.kind === 'remove' && <span className="sr-only">Removed: </span>}
          {line.text}
          {'\n'}
        </span>
      ))}
    </pre>
  )
}

type VersionProps = {
  v: VersionSummary
  detail: VersionDetail | 'loading' | undefined
  newest: boolean
  canRestore: boolean
  local: boolean
  onToggle: () => void
  onRestore: () => void
}

/** One published version: when, by whom, its note, its changes on demand and a Restore button. */
function VersionItem({ v, detail, newest, canRestore, local, onToggle, onRestore }: VersionProps) {
  return (
    <li>
      <div className="version-line">
        <p>
          <strong>Version {v.version}</strong>
          {newest && <span className="tag">{local ? 'in the file' : 'live'}</span>}
          {v.fromDisk && <span className="tag">from disk</span>}
          <br />
          <span className="muted">
            {formatMoment(v.at)} · {v.by}
            {v.restoredFrom !== undefined && ` · restored from version ${v.restoredFrom}`}
          </span>
          {v.message && (
            <>
              <br />“{v.message}”
            </>
          )}
        </p>
        <div className="actions">
          <button type="button" aria-expanded={Boolean(detail)} onClick={onToggle}>
            {detail ? 'Hide changes' : 'Show changes'}
            <span className="sr-only"> of version {v.version}</span>
          </button>
          {canRestore && (
            <button type="button" onClick={onRestore}>
              Restore<span className="sr-only"> version {v.version}</span>
            </button>
          )}
        </div>
      </div>
      {detail === 'loading' && <p className="loading">Loading the changes…</p>}
      {detail && detail !== 'loading' && <Diff detail={detail} />}
    </li>
  )
}

/** `History`: the published versions, newest first, each with what changed and a `Restore` button. */
export function History({
  slug,
  canEdit,
  local = false,
  onRestored,
}: {
  slug: string
  canEdit: boolean
  local?: boolean
  onRestored: (version: number, warning?: string) => void
}) {
  const [versions, setVersions] = useState<VersionSummary[]>()
  const [open, setOpen] = useState<Record<number, VersionDetail | 'loading'>>({})
  const [error, setError] = useState('')
  useEffect(() => {
    studioApi.versions(slug).then(setVersions, (e: unknown) => setError((e as Error).message))
  }, [slug])
  const toggle = async (version: number) => {
    if (open[version]) {
      const rest = { ...open }
      delete rest[version]
      setOpen(rest)
      return
    }
    setOpen({ ...open, [version]: 'loading' })
    try {
      const detail = await studioApi.version(slug, version)
      setOpen((now) => ({ ...now, [version]: detail }))
    } catch (e) {
      setError((e as Error).message)
    }
  }
  const restore = async (version: number) => {
    const question = local
      ? `Save version ${version} to the file again? It becomes a new version.`
      : `Publish version ${version} again? It becomes the live page and a new version.`
    if (!window.confirm(question)) return
    setError('')
    try {
      const result = await studioApi.restore(slug, version)
      onRestored(result.version, result.warning)
    } catch (e) {
      setError((e as Error).message)
    }
  }
  const newest = versions?.[0]?.version
  return (
    <section className="history panel" aria-labelledby="history-heading">
      <h2 id="history-heading">History</h2>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      {versions && versions.length === 0 && (
        <p className="muted">{local ? 'Nothing saved to the file yet.' : 'Nothing published from the studio yet.'}</p>
      )}
      <ol aria-label="History" className="versions">
        {versions?.map((v) => (
          <VersionItem
            key={v.version}
            v={v}
            detail={open[v.version]}
            newest={v.version === newest}
            canRestore={canEdit && v.version !== newest}
            local={local}
            onToggle={() => void toggle(v.version)}
            onRestore={() => void restore(v.version)}
          />
        ))}
      </ol>
    </section>
  )
}
