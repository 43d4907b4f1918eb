import { useState, type RefObject } from 'react'
import type { SectionType } from '../../../../schema/sections.ts'
import { nameOfPart } from '../preview/canvas-marks.ts'
import { sectionChoices } from './section-defaults.ts'
import { SectionPicture } from './SectionPicture.tsx'

type Props = {
  dialog: RefObject<HTMLDialogElement | null>
  config: unknown
  /** Where the new section goes unless the person chooses another place: after the selected section. */
  suggested: number
  onChoose: (type: SectionType, index: number) => void
}

/** `Add section`: the palette of section types (a picture and a sentence each) and the place the new one goes. */
export function AddSectionDialog({ dialog, config, suggested, onChoose }: Props) {
  const sections = (config as { sections?: unknown[] } | undefined)?.sections ?? []
  const [place, setPlace] = useState<number | undefined>(undefined)
  const at = place ?? suggested
  return (
    <dialog ref={dialog} className="palette" aria-labelledby="palette-heading" onClose={() => setPlace(undefined)}>
      <h2 id="palette-heading">Add section</h2>
      <label>
        Where
        <select value={at} onChange={(e) => setPlace(Number(e.currentTarget.value))}>
          <option value={0}>At the top of the page</option>
          {sections.map((_s, index) => (
            <option key={index} value={index + 1}>
              After {index + 1}. {nameOfPart(config, { kind: 'section', index })}
            </option>
          ))}
        </select>
      </label>
      <ul className="choices" aria-label="Section types">
        {sectionChoices().map((choice) => (
          <li key={choice.type}>
            <button
              type="button"
              aria-describedby={`choice-${choice.type}`}
              onClick={() => {
                dialog.current?.close()
                onChoose(choice.type, at)
              }}
            >
              <SectionPicture type={choice.type} />
              <strong>{choice.title}</strong>
            </button>
            <p id={`choice-${choice.type}`}>{choice.description}</p>
          </li>
        ))}
      </ul>
      <button type="button" onClick={() => dialog.current?.close()}>
        Cancel
      </button>
    </dialog>
  )
}
