import type { PresenceResponse } from '../../protocol.ts'

/** Who else has this launch open in an editor now, by name; nothing when no one else has. */
export function EditorsNow({ others }: { others: PresenceResponse['others'] }) {
  if (others.length === 0) return null
  return (
    <p className="presence" role="status">
      Also editing now: {others.map((other) => other.who).join(', ')}
    </p>
  )
}
