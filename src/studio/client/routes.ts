/** A place in the studio, from its address. */
export type Route =
  | { view: 'launches' }
  | { view: 'launch'; slug: string }
  | { view: 'allocation'; slug: string }
  | { view: 'new-launch' }
  | { view: 'people' }
  | { view: 'audit' }

const views = new Set(['new-launch', 'people', 'audit'])

/**
 * The place an address names: /studio/launches/<slug>[/allocation], or /studio/?view=people|audit|new-launch, else the
 * launches.
 */
export function routeOf(pathname: string, search = ''): Route {
  const allocation = /^\/studio\/launches\/([^/]+)\/allocation\/?$/.exec(pathname)
  if (allocation) return { view: 'allocation', slug: decodeURIComponent(allocation[1]!) }
  const launch = /^\/studio\/launches\/([^/]+)\/?$/.exec(pathname)
  if (launch) return { view: 'launch', slug: decodeURIComponent(launch[1]!) }
  const view = new URLSearchParams(search).get('view')
  if (view && views.has(view)) return { view } as Route
  return { view: 'launches' }
}

/** The address of a place (the server serves the app shell at /studio/ and /studio/launches/…). */
export function hrefOf(route: Route): string {
  if (route.view === 'launch') return `/studio/launches/${encodeURIComponent(route.slug)}`
  if (route.view === 'allocation') return `/studio/launches/${encodeURIComponent(route.slug)}/allocation`
  if (route.view === 'launches') return '/studio/'
  return `/studio/?view=${route.view}`
}
