import type { PreviewPhases } from '../../protocol.ts'

/** A phase's start as the wall clock where the launch is reads it ("2026-12-05T10:00" → "Sat, Dec 5, 10:00 a.m."). */
export function startWords(starts: string): string {
  const match = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})$/.exec(starts)
  if (!match) return starts
  const [year, month, day, hour, minute] = match.slice(1).map(Number) as [number, number, number, number, number]
  // Written in UTC and read back in UTC: the wall-clock time as it is, whatever this browser's time zone.
  return new Date(Date.UTC(year, month - 1, day, hour, minute)).toLocaleString('en-CA', {
    timeZone: 'UTC',
    weekday: 'short',
    month: 'short',
    day: 'numeric',
    year: year === new Date().getUTCFullYear() ? undefined : 'numeric',
    hour: 'numeric',
    minute: '2-digit',
  })
}

/** What the picker says of one phase beside its name: live now, or when it starts by itself. */
function whenOf(phase: PreviewPhases['list'][number], phases: PreviewPhases): string {
  if (phase.name === phases.live) return 'live now'
  const after =
    phases.list.findIndex((p) => p.name === phase.name) > phases.list.findIndex((p) => p.name === phases.live)
  if (phase.starts && after) return `starts ${startWords(phase.starts)}`
  return after ? 'not scheduled' : 'an earlier phase'
}

type Props = {
  phases: PreviewPhases
  /** Whether this person may change the text (the button that makes the shown phase current). */
  canEdit: boolean
  onShow: (name: string) => void
  onMakeCurrent: (name: string) => void
}

/**
 * The launch's phases above the previews: which one the previews (and a new preview link) show, what is live now and
 * when the next one starts by itself, and a button that makes the shown phase the current one in the text.
 */
export function PhasePicker({ phases, canEdit, onShow, onMakeCurrent }: Props) {
  const shown = phases.list.find((phase) => phase.name === phases.shown)
  const live = phases.list.find((phase) => phase.name === phases.live)
  const next = phases.list
    .slice(phases.list.findIndex((phase) => phase.name === phases.live) + 1)
    .find((phase) => phase.starts)
  return (
    <section className="phases" aria-labelledby="phases-heading">
      <h2 id="phases-heading" className="sr-only">
        Phases
      </h2>
      <label>
        Phase shown
        <select value={phases.shown} onChange={(event) => onShow(event.currentTarget.value)}>
          {phases.list.map((phase) => (
            <option key={phase.name} value={phase.name}>
              {phase.words} ({whenOf(phase, phases)})
            </option>
          ))}
        </select>
      </label>
      <p className="muted">
        Live now: {live?.words ?? phases.live}.
        {next?.starts
          ? ` ${next.words} starts by itself ${startWords(next.starts)} (${phases.timeZone} time), with no publishing.`
          : ''}
        {shown && shown.name !== phases.live
          ? ` The previews show ${shown.words}, as it will look once it is live.`
          : ''}
      </p>
      {canEdit && shown && shown.name !== phases.live && (
        <button type="button" onClick={() => onMakeCurrent(shown.name)}>
          Make {shown.words} the current phase
        </button>
      )}
    </section>
  )
}
