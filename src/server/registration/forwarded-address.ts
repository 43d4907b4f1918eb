/**
 * The visitor's address behind reverse proxies, on the Node server (the Deno entry reads a platform header instead).
 */
import proxyAddr from 'proxy-addr'

/** Which proxies in front are believed: how many hops, and the address ranges they connect from. */
export type ProxyTrust = {
  /** How many proxies in front append to X-Forwarded-For; 0 ignores the header. */
  hops: number
  /**
   * Where those proxies connect from: CIDR ranges, addresses, or proxy-addr's names (loopback, linklocal, uniquelocal).
   */
  ranges: readonly string[]
}

/** A request as the Node server has it: its headers and the TCP peer. */
type PeerRequest = {
  headers: Record<string, string | string[] | undefined>
  socket: { remoteAddress?: string | undefined }
}

/**
 * The visitor's address on the Node server, as Express resolves it (proxy-addr): walking X-Forwarded-For from the
 * TCP peer back through at most `hops` proxies, each of which must connect from a trusted range, and taking the
 * first address no trusted proxy vouches for: the one the nearest trusted proxy appended. A peer outside the
 * ranges (someone reaching the port directly) is the visitor itself, whatever it wrote in the header.
 */
export function createForwardedAddress(trust: ProxyTrust): (request: PeerRequest) => string | undefined {
  const peer = (request: PeerRequest) => request.socket.remoteAddress
  if (trust.hops <= 0 || trust.ranges.length === 0) return peer
  const inRange = proxyAddr.compile([...trust.ranges])
  const trusted = (address: string, hop: number) => hop < trust.hops && inRange(address, hop)
  return (request) => {
    if (!request.socket.remoteAddress) return undefined
    // proxy-addr reads the peer from request.connection, Node's older name for the socket.
    return proxyAddr(
      { headers: request.headers, connection: request.socket } as unknown as Parameters<typeof proxyAddr>[0],
      trusted,
    )
  }
}
