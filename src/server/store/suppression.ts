import type { AddressKey } from './store.ts'

/**
 * The suppression list's key for an e-mail address: HMAC-SHA256 with a server secret, hex. Without the secret a
 * stolen list cannot be checked against guessed addresses; with it, the server can still tell that an address
 * which withdrew consent (and was then erased) comes back. Addresses are compared trimmed and lower-cased.
 * Web Crypto only: runs on Node and Deno.
 */
export async function addressKeyOf(secret: string, email: string): Promise<AddressKey> {
  if (secret.length < 16) throw new Error('The suppression secret is too short: use at least 16 random characters.')
  const encoder = new TextEncoder()
  const key = await crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign'])
  const mac = new Uint8Array(await crypto.subtle.sign('HMAC', key, encoder.encode(email.trim().toLowerCase())))
  return Array.from(mac, (b) => b.toString(16).padStart(2, '0')).join('') as AddressKey
}
