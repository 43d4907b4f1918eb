/**
 * Who the visitor is, for the rate limit: the address a trusted proxy or the platform saw, never one the client
 * wrote itself. Web-standard APIs and ipaddr.js only: the Deno entry runs this file too.
 */
import ipaddr from 'ipaddr.js'

/**
 * The key a client is counted under: an IPv4 address as it is (IPv4-mapped IPv6 too), an IPv6 address by its /64
 * network (one household or phone gets a whole /64 and can pick any address in it), anything else as it is.
 */
export function rateLimitKey(address: string): string {
  if (!ipaddr.isValid(address)) return address
  const ip = ipaddr.process(address)
  if (ip.kind() === 'ipv4') return ip.toString()
  const network = (ip as ipaddr.IPv6).parts.slice(0, 4).map((part) => part.toString(16))
  return `${network.join(':')}::/64`
}

/**
 * The visitor's address from a header the platform in front sets and overwrites, so a client cannot choose it
 * (Cloudflare's CF-Connecting-IP, which Supabase's hosted functions sit behind; see docs/deploy.md). Only a single
 * valid address is taken; anything else is ignored.
 */
export function platformClientAddress(headers: Headers, header: string): string | undefined {
  const value = headers.get(header)?.trim()
  return value && ipaddr.isValid(value) ? ipaddr.process(value).toString() : undefined
}
