import type { ComponentType } from 'react'
import { islandRegistry, type IslandKind, type IslandProps } from './islands.ts'

/** The attribute that marks an island in the prerendered HTML; its value is the island's kind. */
export const islandKindAttribute = 'data-island'
/** The attribute that carries an island's props, as JSON. */
export const islandPropsAttribute = 'data-island-props'

/**
 * An interactive part of a static page: rendered here like any component, inside a wrapper that names its kind
 * and carries its props, so the browser hydrates just this part with the same component (hydrate-islands.tsx).
 * The wrapper is `display: contents`: it adds no box, so the layout is the component's own.
 */
export function Island<K extends IslandKind>({ kind, props }: { kind: K; props: IslandProps<K> }) {
  // Each kind's props type is checked at the call site; inside, one shape for all.
  const Component = islandRegistry[kind] as ComponentType<Record<string, unknown>>
  const own = props as Record<string, unknown>
  const attributes = {
    className: 'contents',
    [islandKindAttribute]: kind,
    [islandPropsAttribute]: JSON.stringify(props),
  }
  // A button's island sits where phrasing content may (span); the others hold whole blocks (div).
  return kind === 'cta' ? (
    <span {...attributes}>
      <Component {...own} />
    </span>
  ) : (
    <div {...attributes}>
      <Component {...own} />
    </div>
  )
}
