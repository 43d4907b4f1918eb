/**
 * A keyed hash (HMAC-SHA256, addressKeyOf below) of an e-mail address: what the suppression list holds instead of the
 * address. Branded, so a plain address cannot be stored by mistake.
 */
export type AddressKey = string & { readonly __addressKey: unique symbol }

/** The suppression list's part of the store contract (store.ts): sqlite-suppression.ts, postgres-suppression.ts. */
export interface SuppressionStore {
  /** Puts an address (as its key) on the suppression list: it withdrew consent and must not be contacted again. */
  suppressAddress(key: AddressKey): Promise<void>
  /** Whether an address (as its key) is on the suppression list. */
  isSuppressed(key: AddressKey): Promise<boolean>
}

/** HMAC-SHA256 computed on the caller's thread (the Node entry's node:crypto); without one, Web Crypto's. */
export type HmacSha256 = (secret: string, message: string) => Uint8Array

// Imported once per secret: importKey costs as much as the signature itself, and this runs for every registration.
const keys = new Map<string, Promise<CryptoKey>>()

/**
 * The suppression list's key for an e-mail address: HMAC-SHA256 with a server secret, hex. Without the secret a
 * stolen list cannot be checked against guessed addresses; with it, the server can still tell that an address
 * which withdrew consent (and was then erased) comes back. Addresses are compared trimmed and lower-cased.
 * Web Crypto unless `hmac` is given (the same bytes): runs on Node and Deno.
 */
export async function addressKeyOf(secret: string, email: string, hmac?: HmacSha256): Promise<AddressKey> {
  if (secret.length < 16) throw new Error('The suppression secret is too short: use at least 16 random characters.')
  if (hmac) return hex(hmac(secret, email.trim().toLowerCase()))
  const encoder = new TextEncoder()
  let key = keys.get(secret)
  if (!key) {
    key = crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign'])
    keys.set(secret, key)
  }
  return hex(new Uint8Array(await crypto.subtle.sign('HMAC', await key, encoder.encode(email.trim().toLowerCase()))))
}

const hexDigits = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, '0'))

function hex(mac: Uint8Array): AddressKey {
  let out = ''
  for (const b of mac) out += hexDigits[b]
  return out as AddressKey
}
