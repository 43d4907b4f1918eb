import type { ProblemView } from '../editing/code-editor.ts'
import { countProblems } from '../format.ts'

/** The checker's problems, in its words; each one a button that puts the cursor at its spot. */
export function ProblemList({
  problems,
  onLocate,
  headingId,
}: {
  problems: ProblemView[]
  onLocate: (line: number, column: number) => void
  headingId: string
}) {
  return (
    <section className="problems" aria-labelledby={headingId}>
      <h2 id={headingId}>
        {problems.length ? `${countProblems(problems.length)}: publishing waits until they are fixed` : 'No problems'}
      </h2>
      <ul aria-label="Problems">
        {problems.map((p, i) => (
          <li key={`${p.line}:${p.column}:${i}`}>
            <button type="button" onClick={() => onLocate(p.line, p.column)}>
              <span className="where">
                Line {p.line}, column {p.column}
                {p.where ? ` · ${p.where}` : ''}
              </span>
              <span className="message">{p.message}</span>
              {p.fix && <span className="fix">What to do: {p.fix}</span>}
            </button>
          </li>
        ))}
      </ul>
    </section>
  )
}
