import type { SectionAction } from '../editing/preview-messages.ts'
import { nameOfPart } from '../preview/canvas-marks.ts'
import { hiddenIn } from './phase-hide.ts'

type Props = {
  /** The config as typed (undefined while the text is not JSON). */
  config: unknown
  /** The section the cursor (or the canvas) selected. */
  selected: number | undefined
  onSelect: (index: number) => void
  onAction: (action: SectionAction) => void
  onAdd: () => void
  /** The phase the previews show (none without phases): each section can be hidden in it, or shown again. */
  phase?: { name: string; words: string } | undefined
  onHide: (index: number, hide: boolean) => void
}

/**
 * The page's sections as a list: the keyboard's way to select, move, add and hide in the shown phase sections (the
 * canvas's toolbar too).
 */
export function SectionList({ config, selected, onSelect, onAction, onAdd, phase, onHide }: Props) {
  const sections = (config as { sections?: Array<{ anchor?: unknown }> } | undefined)?.sections
  const hidden = hiddenIn(config, phase?.name)
  return (
    <section className="section-list" aria-labelledby="section-list-heading">
      <h2 id="section-list-heading">Sections</h2>
      {!Array.isArray(sections) ? (
        <p className="muted">The list shows again once the text is valid JSON.</p>
      ) : (
        <ol aria-label="Sections of the page">
          {sections.map((section, index) => {
            const name = nameOfPart(config, { kind: 'section', index })
            const isHidden = typeof section?.anchor === 'string' && hidden.includes(section.anchor)
            return (
              <li key={index} className={index === selected ? 'selected' : undefined}>
                <button
                  type="button"
                  className="section-name"
                  aria-current={index === selected ? 'true' : undefined}
                  onClick={() => onSelect(index)}
                >
                  {index + 1}. {name}
                </button>
                <button
                  type="button"
                  disabled={index === 0}
                  onClick={() => onAction({ action: 'up', index })}
                  aria-label={`Move up: ${name}`}
                >
                  ↑
                </button>
                <button
                  type="button"
                  disabled={index === sections.length - 1}
                  onClick={() => onAction({ action: 'down', index })}
                  aria-label={`Move down: ${name}`}
                >
                  ↓
                </button>
                {/* On the selected row, and on each row the phase hides (pressed): the names keep their room. */}
                {phase && (index === selected || isHidden) && (
                  <button
                    type="button"
                    aria-pressed={isHidden}
                    onClick={() => onHide(index, !isHidden)}
                    aria-label={`Hide in ${phase.words}: ${name}`}
                    title={isHidden ? `Hidden in ${phase.words}: press to show it again` : `Hide in ${phase.words}`}
                  >
                    Hide
                  </button>
                )}
              </li>
            )
          })}
        </ol>
      )}
      <button type="button" onClick={onAdd}>
        Add section
      </button>
    </section>
  )
}
