import { useEffect, useState, type MouseEvent, type ReactNode } from 'react'
import { hrefOf, routeOf, type Route } from './routes.ts'

const listeners = new Set<() => void>()

/** Goes to a place in the studio without reloading the page (the browser's Back button comes back). */
export function navigate(route: Route): void {
  window.history.pushState(null, '', hrefOf(route))
  for (const listener of listeners) listener()
}

/** The place the address bar names now, kept current on navigate() and Back/Forward. */
export function useRoute(): Route {
  const read = () => routeOf(window.location.pathname, window.location.search)
  const [route, setRoute] = useState(read)
  useEffect(() => {
    const update = () => setRoute(read())
    listeners.add(update)
    window.addEventListener('popstate', update)
    return () => {
      listeners.delete(update)
      window.removeEventListener('popstate', update)
    }
  }, [])
  return route
}

/** A link to a place in the studio: a real link (opens in a new tab too), followed in place on a plain click. */
export function StudioLink({
  to,
  children,
  className,
  current,
}: {
  to: Route
  children: ReactNode
  className?: string
  current?: boolean
}) {
  const onClick = (event: MouseEvent<HTMLAnchorElement>) => {
    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return
    event.preventDefault()
    navigate(to)
  }
  return (
    <a href={hrefOf(to)} onClick={onClick} className={className} aria-current={current ? 'page' : undefined}>
      {children}
    </a>
  )
}
