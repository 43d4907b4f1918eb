import type { Context, MiddlewareHandler } from 'hono'

/**
 * Which hosts the studio and the leads page answer on, from configured addresses only (PUBLIC_URL, STUDIO_HOST, the
 * launches' declared hosts): a request naming any other host in its Host header is refused before anything is read
 * or mailed, so a forged Host can neither be linked to nor pass the Origin check as "this origin".
 */

/** The addresses the server was given: where the studio is, and the launches' own hosts. */
export type StudioAddress = {
  /** PUBLIC_URL's origin. */
  publicUrl?: string | undefined
  /** STUDIO_HOST: when set, the only host the studio and the leads page answer on. */
  studioHost?: string | undefined
  /** The host names the launches declare (canonical URL, origins, `<slug>.localhost`), as they are now. */
  launchHosts: () => Iterable<string>
}

// This machine's own names: a browser elsewhere cannot send them (it names the host it connected to).
const loopbackNames = new Set(['localhost', '127.0.0.1', '::1'])

/** The lower-case host name of a Host header value, port dropped ("[::1]:80" → "::1"). */
export function hostNameOf(hostHeader: string): string {
  const value = hostHeader.trim().toLowerCase()
  const name = value.startsWith('[') ? value.slice(1, Math.max(1, value.indexOf(']'))) : value.replace(/:\d*$/, '')
  return name.replace(/\.$/, '')
}

/** Whether a Host header value names a host the studio and the leads page answer on. */
export function isStudioHost(address: StudioAddress, hostHeader: string | undefined): boolean {
  if (!hostHeader) return false
  const name = hostNameOf(hostHeader)
  if (address.studioHost) return name === hostNameOf(address.studioHost)
  if (loopbackNames.has(name)) return true
  if (address.publicUrl && name === hostNameOf(new URL(address.publicUrl).host)) return true
  for (const host of address.launchHosts()) if (hostNameOf(host) === name) return true
  return false
}

/** The Host a request names (the Host header; the URL's host where a runtime gives no header). */
function requestHost(c: Context): string | undefined {
  return c.req.header('host') ?? new URL(c.req.url).host
}

/** A middleware that answers 404 to a request for a host the studio and the leads page do not answer on. */
export function hostGate(address: StudioAddress): MiddlewareHandler {
  return async (c, next) => {
    if (!isStudioHost(address, requestHost(c))) return c.text('Not Found', 404)
    await next()
  }
}

/**
 * The base of links the studio hands out and mails: STUDIO_HOST (PUBLIC_URL's scheme, else https), else PUBLIC_URL,
 * else http://localhost with the port this server answered on (never a name the request chose).
 */
export function linkBaseOf(address: StudioAddress, c: Context): string {
  if (address.studioHost) {
    const scheme = address.publicUrl ? new URL(address.publicUrl).protocol : 'https:'
    return `${scheme}//${address.studioHost}`
  }
  if (address.publicUrl) return address.publicUrl.replace(/\/+$/, '')
  return `http://localhost${portPart(c)}`
}

/** ":PORT" of the socket the request came in on (Node's server hands it in c.env); '' when there is none. */
function portPart(c: Context): string {
  const env = c.env as { incoming?: { socket?: { localPort?: number } } } | undefined
  const port = env?.incoming?.socket?.localPort
  return port ? `:${port}` : ''
}
