/**
 * Which launch a request's host name belongs to, on a server that serves several (the Node entry). Pure and
 * web-standard: no Node, no env.
 */

/** What host routing needs of a launch: its slug, its canonical address and its further origins. */
export type LaunchAddresses = { slug: string; canonicalUrl: string; origins?: readonly string[] }

/** The launch serving a Host (or X-Forwarded-Host) header value: by name, port ignored; else the default. */
export type LaunchOfHost = (hostHeader: string | undefined) => string

const localSuffix = '.localhost'

/** The lower-case host name of a Host header value ("Example.com:3000" → "example.com", "[::1]:80" → "::1"). */
export function hostNameOf(hostHeader: string): string {
  const value = hostHeader.trim().toLowerCase()
  const name = value.startsWith('[')
    ? value.slice(1, value.indexOf(']') === -1 ? undefined : value.indexOf(']'))
    : value.replace(/:\d*$/, '')
  // "example.com." names the same host as "example.com".
  return name.replace(/\.$/, '')
}

function hostNameOfUrl(url: string): string | undefined {
  return URL.canParse(url) ? hostNameOf(new URL(url).host) : undefined
}

/**
 * Host routing: a launch is served on the host name of its canonical URL and of each of its origins, and on
 * `<slug>.localhost` (any port: browsers resolve *.localhost to this machine); any other host, or none, gets the
 * default launch, so a one-launch server behind any name or IP works as before. A host two launches claim (the
 * launches' check refuses that) stays with the first, the default launch first.
 */
export function createLaunchHosts(launches: readonly LaunchAddresses[], defaultSlug: string): LaunchOfHost {
  const byHost = new Map<string, string>()
  const claim = (host: string | undefined, slug: string) => {
    if (host && !byHost.has(host)) byHost.set(host, slug)
  }
  // The default launch claims first, so a copied canonical URL never takes its host away from it.
  const ordered = [...launches].sort((a, b) => Number(b.slug === defaultSlug) - Number(a.slug === defaultSlug))
  for (const launch of ordered) claim(`${launch.slug}${localSuffix}`, launch.slug)
  for (const launch of ordered) {
    claim(hostNameOfUrl(launch.canonicalUrl), launch.slug)
    for (const origin of launch.origins ?? []) claim(hostNameOfUrl(origin), launch.slug)
  }
  return (hostHeader) => (hostHeader ? (byHost.get(hostNameOf(hostHeader)) ?? defaultSlug) : defaultSlug)
}
