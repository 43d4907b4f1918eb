import type { RefObject } from 'react'
import type { StudioProblem } from '../../protocol.ts'
import { ProblemList } from '../views/ProblemList.tsx'

type Props = {
  hostRef: RefObject<HTMLDivElement | null>
  problems: StudioProblem[]
  onLocate: (line: number, column: number) => void
}

/** The text of page.config.json (the code editor lives in `hostRef`) and its problems list under it. */
export function SourcePane({ hostRef, problems, onLocate }: Props) {
  return (
    <section className="source" aria-label="Text">
      <div className="code" ref={hostRef} />
      <ProblemList problems={problems} onLocate={onLocate} headingId="problems-heading" />
    </section>
  )
}
