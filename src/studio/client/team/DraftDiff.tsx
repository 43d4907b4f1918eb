import { useEffect, useState } from 'react'
import { diffLines } from '../views/History.tsx'

/**
 * `See the difference`: their draft against the text in this editor, as a unified diff a person can read (lines only
 * theirs marked "Their draft", lines only yours "Your text"). The diff code loads on first use.
 */
export function DraftDiff({ theirs, mine, theirsBy }: { theirs: string; mine: string; theirsBy: string }) {
  const [diff, setDiff] = useState<string>()
  useEffect(() => {
    let live = true
    void import('diff').then(({ createTwoFilesPatch }) => {
      if (live)
        setDiff(createTwoFilesPatch('their draft', 'your text', theirs, mine, undefined, undefined, { context: 3 }))
    })
    return () => {
      live = false
    }
  }, [theirs, mine])
  if (diff === undefined) return <p className="loading">Comparing…</p>
  const lines = diffLines(diff).filter((line) => line.text !== '\\ No newline at end of file')
  if (!lines.some((line) => line.kind === 'add' || line.kind === 'remove'))
    return <p className="muted">Your text and their draft are the same.</p>
  return (
    <figure className="draft-diff">
      <figcaption>
        <span className="diff-remove">− {theirsBy}’s draft</span> · <span className="diff-add">+ your text</span>
      </figcaption>
      {/* A region that scrolls must be reachable by keyboard (axe: scrollable-region-focusable). */}
      {/* eslint-disable-next-line jsx-a11y/no-noninteractive-tabindex */}
      <pre className="diff" tabIndex={0} aria-label={`Differences between ${theirsBy}’s draft and your text`}>
        {lines.map((line, i) => (
          <span key={i} className={`diff-${line.kind}`}>
            {line.kind === 'add' && <span className="sr-only">Your text: </span>}
            {line.kind === 'remove' && <span className="sr-only">Their draft: </span>}
            {line.text}
            {'\n'}
          </span>
        ))}
      </pre>
    </figure>
  )
}
