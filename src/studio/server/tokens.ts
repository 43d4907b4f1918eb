import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto'

/**
 * Random tokens (one-time links, session ids), stored only as their SHA-256; and signed tokens (preview links,
 * device cookies) that the server checks with its secret without storing them: `<payload>.<HMAC-SHA256>`, base64url.
 */

/** 32 random bytes, base64url: for a link or a session cookie. */
export function newToken(): string {
  return randomBytes(32).toString('base64url')
}

/** What the store keeps of a token. */
export function tokenHash(token: string): string {
  return createHash('sha256').update(token).digest('hex')
}

function mac(secret: string, purpose: string, payload: string): Buffer {
  return createHmac('sha256', secret).update(`${purpose}\n${payload}`).digest()
}

/** Signs a JSON payload for one purpose (a token for one purpose never passes as another's). */
export function signToken(secret: string, purpose: string, payload: unknown): string {
  const body = Buffer.from(JSON.stringify(payload)).toString('base64url')
  return `${body}.${mac(secret, purpose, body).toString('base64url')}`
}

/** The payload of a token signed for `purpose`, or undefined when it is malformed or its signature is wrong. */
export function readSignedToken<T>(secret: string, purpose: string, token: string): T | undefined {
  const [body, signature, extra] = token.split('.')
  if (!body || !signature || extra !== undefined) return undefined
  const given = Buffer.from(signature, 'base64url')
  const expected = mac(secret, purpose, body)
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined
  try {
    return JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as T
  } catch {
    return undefined
  }
}
