import { CheckIcon } from './icons.tsx'

type CheckListProps = {
  items: readonly string[] | undefined
  /** Classes of the list itself (spacing, grid). */
  className: string
  /** Smaller marks and tighter gaps, as inside a card. */
  compact?: boolean
  /** Light marks for a dark background. */
  dark?: boolean
}

/** A list of short points, each behind a check mark; renders nothing when there are none. */
export function CheckList({ items, className, compact = false, dark = false }: CheckListProps) {
  if (!items || items.length === 0) return null
  return (
    <ul className={className}>
      {items.map((item) => (
        <li key={item} className={`flex ${compact ? 'gap-2' : 'gap-3 text-base'}`}>
          <CheckIcon
            className={`mt-0.5 shrink-0 ${compact ? 'size-4' : 'size-5'} ${dark ? 'text-brass-300' : 'text-forest-700'}`}
          />
          <span>{item}</span>
        </li>
      ))}
    </ul>
  )
}
