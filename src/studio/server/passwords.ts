import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto'

/**
 * Passwords, hashed with node:crypto's scrypt (memory-hard): a random salt per hash, and the cost parameters stored
 * with it, so raising them later leaves earlier hashes readable. Encoded as `scrypt$N$r$p$salt$hash` (base64url).
 */

/** The fewest characters a studio password may have. */
export const minPasswordLength = 12

/** scrypt's cost parameters: memory 128 × N × r bytes, work N × r × p. */
export type ScryptCost = { N: number; r: number; p: number }

/**
 * OWASP's scrypt setting N=2^15, r=8, p=3 (32 MiB a hash; about 0.5 s on these shared 2-core machines). Tests pass
 * a smaller cost (the hash records its own, so verifying is the same code either way).
 */
export const defaultScryptCost: ScryptCost = { N: 2 ** 15, r: 8, p: 3 }
const keyLength = 32

function derive(password: string, salt: Buffer, N: number, r: number, p: number, keyLength: number): Promise<Buffer> {
  const options: ScryptOptions = { N, r, p, maxmem: 256 * N * r + 1024 * 1024 }
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFKC'), salt, keyLength, options, (error, key) =>
      error ? reject(error) : resolve(key),
    ),
  )
}

/** The encoded hash of a password. */
export async function hashPassword(password: string, cost: ScryptCost = defaultScryptCost): Promise<string> {
  const salt = randomBytes(16)
  const { N, r, p } = cost
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
const decoys = new Map<string, Promise<string>>()
export function decoyHash(cost: ScryptCost = defaultScryptCost): Promise<string> {
  const key = `${cost.N}/${cost.r}/${cost.p}`
  let decoy = decoys.get(key)
  if (!decoy) decoys.set(key, (decoy = hashPassword(randomBytes(32).toString('hex'), cost)))
  return decoy
}
