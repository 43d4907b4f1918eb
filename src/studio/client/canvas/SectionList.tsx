import type { SectionAction } from '../editing/preview-messages.ts'
import { nameOfPart } from '../preview/canvas-marks.ts'

type Props = {
  /** The config as typed (undefined while the text is not JSON). */
  config: unknown
  /** The section the cursor (or the canvas) selected. */
  selected: number | undefined
  onSelect: (index: number) => void
  onAction: (action: SectionAction) => void
  onAdd: () => void
}

/** The page's sections as a list: the keyboard's way to select, move and add sections (the canvas's toolbar too). */
export function SectionList({ config, selected, onSelect, onAction, onAdd }: Props) {
  const sections = (config as { sections?: unknown[] } | undefined)?.sections
  return (
    <section className="section-list" aria-labelledby="section-list-heading">
      <h2 id="section-list-heading">Sections</h2>
      {!Array.isArray(sections) ? (
        <p className="muted">The list shows again once the text is valid JSON.</p>
      ) : (
        <ol aria-label="Sections of the page">
          {sections.map((_section, index) => {
            const name = nameOfPart(config, { kind: 'section', index })
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
