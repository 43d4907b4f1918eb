import { FormView } from '../editing/FormView.tsx'
import { partValue, type FormPart } from '../editing/form-parts.ts'

type Props = {
  /** The config parsed from the text; undefined while the text is not valid JSON. */
  config: unknown
  /** The part of the config the form shows (the cursor's, or the section selected on the canvas). */
  part: FormPart | undefined
  onChange: (value: unknown) => void
}

/** The side panel: the form view of one part of the config, for what is not visible text on the page. */
export function FormPanel({ config, part, onChange }: Props) {
  return (
    <section className="form-view" aria-labelledby="form-view-heading">
      <h2 id="form-view-heading">{part ? part.title : 'Form'}</h2>
      {config === undefined && (
        <p className="muted">The text is not valid JSON at the moment: the form shows again once it is.</p>
      )}
      {config !== undefined && !part && (
        <p className="muted">
          Put the cursor in a section, a form field or the SEO block to change it here without touching brackets.
        </p>
      )}
      {config !== undefined && part && (
        <FormView
          key={part.path.join('/')}
          part={part}
          value={partValue(config, part)}
          onChange={onChange}
          idPrefix="part"
        />
      )}
    </section>
  )
}
