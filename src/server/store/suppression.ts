import type { AddressKey } from './store.ts'

// Imported once per secret: importKey costs as much as the signature itself, and this runs for every registration.
const keys = new Map<string, Promise<CryptoKey>>()

/**
 * The suppression list's key for an e-mail address: HMAC-SHA256 with a server secret, hex. Without the secret a
 * stolen list cannot be checked against guessed addresses; with it, the server can still tell that an address
 * which withdrew consent (and was then erased) comes back. Addresses are compared trimmed and lower-cased.
 * Web Crypto only: runs on Node and Deno.
 */
export async function addressKeyOf(secret: string, email: string): Promise<AddressKey> {
  if (secret.length < 16) throw new Error('The suppression secret is too short: use at least 16 random characters.')
  const encoder = new TextEncoder()
  let key = keys.get(secret)
  if (!key) {
    key = crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign'])
    keys.set(secret, key)
  }
  const mac = new Uint8Array(await crypto.subtle.sign('HMAC', await key, encoder.encode(email.trim().toLowerCase())))
  return Array.from(mac, (b) => b.toString(16).padStart(2, '0')).join('') as AddressKey
}
