/**
 * X-Forwarded-Host and X-Forwarded-Proto on the Node server (issue 21, item 6): believed only from a proxy that
 * TRUST_PROXY and TRUSTED_PROXIES describe (the TCP peer is in TRUSTED_PROXIES), and only for a host a launch declares
 * (its canonical URL, its origins, `<slug>.localhost`). From anyone else, or naming any other host, they are dropped
 * before the request is answered, so a request cannot pick the launch or poison what is built from the host. The
 * leads page alone (`npm run leads:page`) uses the same guard without launches: it serves none, and the host it reads
 * only checks that a form was posted from its own page.
 */
import proxyAddr from 'proxy-addr'
import { hostNameOf, type LaunchAddresses } from './launch-hosts.ts'

/** What the guard needs: the proxies of TRUST_PROXY and the launches whose hosts may be named (without: any host). */
export type ForwardedHeaderTrust = {
  proxies: { hops: number; ranges: readonly string[] }
  launches?: readonly LaunchAddresses[]
}

/** The right-most entry of a header a chain of proxies may have appended to: the one the nearest proxy wrote. */
function nearest(value: string | null): string | undefined {
  return value?.split(',').at(-1)?.trim() || undefined
}

/** Returns the request as the app may read it: forwarded headers kept only when they can be believed. */
export function createForwardedHeaderGuard(
  trust: ForwardedHeaderTrust,
): (request: Request, peer: string | undefined) => Request {
  const fromProxy =
    trust.proxies.hops > 0 && trust.proxies.ranges.length > 0 ? proxyAddr.compile([...trust.proxies.ranges]) : undefined
  const declared = trust.launches === undefined ? undefined : new Set<string>()
  for (const launch of trust.launches ?? []) {
    declared?.add(`${launch.slug}.localhost`)
    for (const url of [launch.canonicalUrl, ...(launch.origins ?? [])])
      if (URL.canParse(url)) declared?.add(hostNameOf(new URL(url).host))
  }
  return (request, peer) => {
    const host = request.headers.get('x-forwarded-host')
    const proto = request.headers.get('x-forwarded-proto')
    if (host === null && proto === null) return request
    const believed = fromProxy !== undefined && peer !== undefined && fromProxy(peer, 0)
    const headers = new Headers(request.headers)
    headers.delete('x-forwarded-host')
    headers.delete('x-forwarded-proto')
    if (believed) {
      const named = nearest(host)
      if (named && (declared === undefined || declared.has(hostNameOf(named)))) headers.set('x-forwarded-host', named)
      const scheme = nearest(proto)?.toLowerCase()
      if (scheme === 'http' || scheme === 'https') headers.set('x-forwarded-proto', scheme)
    }
    return new Request(request, { headers })
  }
}
