/**
 * The sign-in limiter's counts (registration/sign-in-limits.ts), behind the store contract so that several servers
 * sharing one database share them too: recent failures by key, and the devices that signed in. Both stores keep them
 * (sqlite-sign-in-counts.ts, postgres-sign-in-counts.ts; supabase/migrations/20251226000000_sign_in_limits.sql).
 *
 * sign_in_failures: key (what was counted: an address, a network, an account), failed_at
 * sign_in_devices:  device_hash (SHA-256 of the device cookie, never the cookie), account, expires_at
 */

/** How many failures a key has had since a time, and when the oldest of them was. */
export type SignInFailureCount = { key: string; failures: number; oldestAt: Date }

/** Where the sign-in limiter keeps its counts. Every method may be called concurrently, from several servers. */
export type SignInCounts = {
  /** Adds one failure at `at` under each key, and forgets every failure from before `forgetBefore`. */
  addSignInFailure(keys: readonly string[], at: Date, forgetBefore: Date): Promise<void>
  /** The keys among `keys` that have failures after `since`, with how many and the oldest's time. */
  countSignInFailures(keys: readonly string[], since: Date): Promise<SignInFailureCount[]>
  /** Remembers a device (its cookie's hash) for an account until `expiresAt`; forgets devices expired at `now`. */
  saveSignInDevice(deviceHash: string, account: string, expiresAt: Date, now: Date): Promise<void>
  /** Whether a device (its cookie's hash) signed in to the account and has not expired at `now`. */
  isSignInDevice(deviceHash: string, account: string, now: Date): Promise<boolean>
}
