import * as OTPAuth from 'otpauth'

/** A TOTP for a secret, as authenticator apps compute it (SHA-1, 6 digits, 30 s). */
export function totpOf(secret: string, label = 'studio'): OTPAuth.TOTP {
  return new OTPAuth.TOTP({
    issuer: 'Studio',
    label,
    algorithm: 'SHA1',
    digits: 6,
    period: 30,
    secret: OTPAuth.Secret.fromBase32(secret),
  })
}

/** Whether `code` is the secret's current code (one step either side, for clocks a little apart). */
export function checkTotp(secret: string, code: string, now: Date): boolean {
  return /^\d{6}$/.test(code) && totpOf(secret).validate({ token: code, timestamp: now.getTime(), window: 1 }) !== null
}

/**
 * The 30-second time-step `code` belongs to (one step either side of now), or undefined when it is not a current code.
 */
export function totpStepOf(secret: string, code: string, now: Date): number | undefined {
  if (!/^\d{6}$/.test(code)) return undefined
  const delta = totpOf(secret).validate({ token: code, timestamp: now.getTime(), window: 1 })
  return delta === null ? undefined : Math.floor(now.getTime() / 30_000) + delta
}
