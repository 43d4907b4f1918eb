import { startTransition, StrictMode, type ComponentType } from 'react'
import { hydrateRoot } from 'react-dom/client'
import { RegistrationProvider, type RegistrationStore } from '../form/registration-state.tsx'
import { islandKindAttribute, islandPropsAttribute } from './Island.tsx'
import { islandRegistry, type IslandKind } from './islands.ts'
import { yieldToMain } from './yield-to-main.ts'

/**
 * Hydrates each island of a prerendered page as a React root of its own, with the component the server rendered
 * there and the props it wrote beside it; every root shares the page's registration store. The rest of the page
 * is left as it is.
 *
 * Each root starts in a task of its own (not the one that evaluated the app's code) and hydrates as a transition:
 * React then works in slices of a few milliseconds and yields between them, instead of hydrating in one task that
 * would keep a phone from answering a tap. A tap on a root still hydrating makes React hydrate it at once and replay
 * the tap; before its root exists, a button follows its link as without scripts.
 */
export async function hydrateIslands(root: ParentNode, registration: RegistrationStore): Promise<void> {
  for (const element of root.querySelectorAll<HTMLElement>(`[${islandKindAttribute}]`)) {
    const kind = element.getAttribute(islandKindAttribute) as IslandKind
    const Component = islandRegistry[kind] as ComponentType<Record<string, unknown>> | undefined
    if (!Component) throw new Error(`The page has an island of unknown kind "${kind}": rebuild it with this code.`)
    const props = JSON.parse(element.getAttribute(islandPropsAttribute) ?? '{}') as Record<string, unknown>
    // Apart from the task that evaluated the app's code, and from the island before.
    await yieldToMain()
    startTransition(() => {
      hydrateRoot(
        element,
        <StrictMode>
          <RegistrationProvider store={registration}>
            <Component {...props} />
          </RegistrationProvider>
        </StrictMode>,
      )
    })
  }
}
