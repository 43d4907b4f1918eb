import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto'

/**
 * Passwords, hashed with node:crypto's scrypt (memory-hard): a random salt per hash, and the cost parameters stored
 * with it, so raising them later leaves earlier hashes readable. Encoded as `scrypt$N$r$p$salt$hash` (base64url).
 */

/** The fewest characters a studio password may have. */
export const minPasswordLength = 12

/** The cost: N=2^15, r=8 (32 MiB of memory a hash, about 50–100 ms on these machines). */
const defaults = { N: 2 ** 15, r: 8, p: 1, keyLength: 32 }

function derive(password: string, salt: Buffer, N: number, r: number, p: number, keyLength: number): Promise<Buffer> {
  const options: ScryptOptions = { N, r, p, maxmem: 256 * N * r + 1024 * 1024 }
  return new Promise((resolve, reject) => scrypt(password.normalize('NFKC'), salt, keyLength, options, (error, key) => (error ? reject(error) : resolve(key))))
}

/** The encoded hash of a password. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16)
  const { N, r, p, keyLength } = defaults
  const key = await derive(password, salt, N, r, p, keyLength)
  return ['scrypt', N, r, p, salt.toString('base64url'), key.toString('base64url')].join('$')
}

/** Whether `password` matches the encoded hash; false for a hash this code cannot read. */
export async function verifyPassword(password: string, encoded: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = encoded.split('$')
  if (scheme !== 'scrypt' || !salt || !hash) return false
  const N = Number(n)
  const R = Number(r)
  const P = Number(p)
  // Bounds, so a tampered row cannot make a sign-in allocate gigabytes.
  if (![N, R, P].every(Number.isSafeInteger) || N < 2 || N > 2 ** 20 || R < 1 || R > 32 || P < 1 || P > 16) return false
  const expected = Buffer.from(hash, 'base64url')
  const key = await derive(password, Buffer.from(salt, 'base64url'), N, R, P, expected.length)
  return timingSafeEqual(key, expected)
}

/** A hash of nothing anyone can type, verified against for unknown addresses so they take as long as known ones. */
let decoy: Promise<string> | undefined
export function decoyHash(): Promise<string> {
  decoy ??= hashPassword(randomBytes(32).toString('hex'))
  return decoy
}
