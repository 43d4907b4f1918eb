import { useCallback, useEffect, useState } from 'react'
import type { PreviewLinkSummary } from '../../protocol.ts'
import { studioApi } from '../api.ts'
import { formatMoment } from '../format.ts'

/** One working link: who made it, when, until when, the phase it shows; an owner's `Revoke`. */
function LinkItem({
  link,
  canRevoke,
  onRevoke,
}: {
  link: PreviewLinkSummary
  canRevoke: boolean
  onRevoke: () => void
}) {
  const made = formatMoment(link.createdAt)
  return (
    <li>
      <div className="version-line">
        <p>
          Made by <strong>{link.madeBy}</strong> on {made}, works until {formatMoment(link.expiresAt)}
          {link.phase ? ` (the ${link.phase} phase)` : ''}
        </p>
        {canRevoke && (
          <button
            type="button"
            onClick={onRevoke}
            aria-label={`Revoke the preview link made by ${link.madeBy} on ${made}`}
          >
            Revoke
          </button>
        )}
      </div>
    </li>
  )
}

/**
 * `Preview links`: the launch's links that work now (each shows the text it was made from, without an account), who
 * made each and until when; an owner revokes one, and whoever holds it then gets "This preview link does not work".
 * `refreshKey` changes when a new link is made, to list it.
 */
export function PreviewLinks({ slug, refreshKey }: { slug: string; refreshKey: unknown }) {
  const [links, setLinks] = useState<PreviewLinkSummary[]>()
  const [owner, setOwner] = useState(false)
  const [message, setMessage] = useState('')
  const load = useCallback(
    () => studioApi.previewLinks(slug).then(setLinks, (e: unknown) => setMessage((e as Error).message)),
    [slug],
  )
  useEffect(() => void load(), [load, refreshKey])
  useEffect(() => {
    studioApi.me().then(
      (me) => setOwner(me.role === 'owner' && me.local !== true),
      () => setOwner(false),
    )
  }, [])
  const revoke = async (link: PreviewLinkSummary) => {
    if (!window.confirm(`Revoke the preview link made by ${link.madeBy}? Whoever has it can no longer open it.`)) return
    try {
      await studioApi.revokePreviewLink(slug, link.id)
      setMessage(`The preview link made by ${link.madeBy} on ${formatMoment(link.createdAt)} is revoked.`)
      await load()
    } catch (e) {
      setMessage((e as Error).message)
    }
  }
  return (
    <section className="panel" aria-labelledby="preview-links-heading">
      <h2 id="preview-links-heading">Preview links</h2>
      <p role="status">{message}</p>
      {links?.length === 0 && <p className="muted">No preview link of this launch works now.</p>}
      {links && links.length > 0 && (
        <ul aria-label="Preview links that work now" className="versions">
          {links.map((link) => (
            <LinkItem key={link.id} link={link} canRevoke={owner} onRevoke={() => void revoke(link)} />
          ))}
        </ul>
      )}
      {links && links.length > 0 && !owner && <p className="muted">An owner of the studio can revoke a link.</p>}
    </section>
  )
}
