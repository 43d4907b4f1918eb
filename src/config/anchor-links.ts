import type { Segment } from './json-source.ts'

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/** Every "href" in the config that points at a section of this page ("#anchor"). */
export function listAnchorLinks(data: unknown): { at: Segment[]; href: string }[] {
  const found: { at: Segment[]; href: string }[] = []
  const visit = (value: unknown, at: Segment[]): void => {
    if (Array.isArray(value)) value.forEach((item, i) => visit(item, [...at, i]))
    else if (isObject(value)) {
      // The form's own schema and layout are not page links.
      if (at.length === 1 && at[0] === 'form') return
      if (typeof value.href === 'string' && value.href.startsWith('#'))
        found.push({ at: [...at, 'href'], href: value.href })
      for (const [key, child] of Object.entries(value)) visit(child, [...at, key])
    }
  }
  visit(data, [])
  return found
}
