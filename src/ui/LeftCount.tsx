import { useEffect, useState } from 'react'
import { leftTextDefaults } from '../../schema/left-texts.ts'
import { countLeft, readLeft } from './left-counts.ts'

/**
 * The props of a card's count: the models it counts, the config's words, and where the counts are read when not on
 * the page's own host (the hosted function's left.json for the launch, on a static host).
 */
export type LeftCountProps = {
  models: string[]
  texts?: { left?: string; soldOut?: string } | undefined
  source?: string | undefined
}

/**
 * "N left" or "Sold out" on a home types card, read in the browser after the page is interactive, so an allocation
 * shows on the next load with no build. Empty (and announced politely when it fills) until then, and for good when
 * the launch has no inventory. Said in words, never by colour alone.
 */
export function LeftCount({ models, texts, source }: LeftCountProps) {
  const [count, setCount] = useState<number>()
  useEffect(() => {
    let live = true
    void readLeft(source).then((answer) => live && answer && setCount(countLeft(answer, models)))
    return () => {
      live = false
    }
  }, [models, source])
  const words =
    count === undefined
      ? ''
      : count === 0
        ? (texts?.soldOut ?? leftTextDefaults.soldOut)
        : (texts?.left ?? leftTextDefaults.left).split('{count}').join(String(count))
  return (
    <p className="mt-4 min-h-7 text-base font-semibold text-forest-900" aria-live="polite">
      {words}
    </p>
  )
}
